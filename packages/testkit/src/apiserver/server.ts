// startApiServer(): the test API server as a handle a test (or `npm run apiserver`) holds: start,
// stop and restart on the same port and directory (objects, resourceVersions and tokens survive),
// compaction, ServiceAccount tokens and what RBAC grants each of them.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@fabrik/netcore';
import { parseAllDocuments } from 'yaml';
import {
  ADMIN_USER,
  rulesForUser,
  serviceAccountUser,
  TokenAuthenticator,
  type GrantedRule,
  type RbacSource,
  type UserInfo,
} from './auth.js';
import { isObject, type JsonObject } from './json.js';
import { resourceKey, ResourceRegistry } from './resources.js';
import { RestStorage } from './rest.js';
import { Router } from './router.js';
import { Store } from './store.js';

export interface StartApiServerOptions {
  /** TCP port; 0 (default) picks a free one, which restarts keep. */
  port?: number;
  /** Listen address. Default 127.0.0.1; `0.0.0.0` or `::` listens on every address. */
  host?: string;
  /**
   * The address clients use (kubeconfig server URL, certificate name), for example the lab's bridge
   * address when agents in other namespaces connect. Default: `host`, or 127.0.0.1 when it is a wildcard.
   */
  advertiseAddress?: string;
  /** Where state, tokens, the TLS pair and the kubeconfig live. Default: a new temporary directory. */
  dir?: string;
  /** Directories of CRD YAML files applied at start. Default: the repository's deploy/crds (if present). */
  crdDirs?: string[];
  /** HTTPS with a self-signed certificate (default) or plain HTTP. */
  tls?: boolean;
  /** Authorize requests by the stored RBAC objects (admin is always allowed). Default false. */
  rbac?: boolean;
  /** Events kept for watches and exact reads; older resourceVersions get 410 Expired. Default 1000. */
  historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them. Default 1000 ms. */
  bookmarkIntervalMs?: number;
}

export interface ApiServer {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly kubeconfigPath: string;
  /** The admin bearer token (also in the kubeconfig). */
  readonly token: string;
  readonly dir: string;
  /** Cuts every watch, saves the state and closes the port. */
  stop(): Promise<void>;
  /** Starts again on the same port with the saved state. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Forgets the watch history: every watch is cut and resuming from any earlier version gets 410. */
  compact(): void;
  /** A bearer token that authenticates as system:serviceaccount:<namespace>:<name>. */
  createServiceAccountToken(namespace: string, name: string): string;
  /** Writes a kubeconfig for a ServiceAccount token next to the admin one; returns its path. */
  writeServiceAccountKubeconfig(namespace: string, name: string): string;
  /** Every RBAC rule the ServiceAccount gets, with the binding it comes from. */
  rulesFor(namespace: string, name: string): GrantedRule[];
  /** Stops the server and removes its directory if the server created it. */
  destroy(): Promise<void>;
}

const REPO_CRDS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../deploy/crds');

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function loadCrdFiles(dirs: string[]): JsonObject[] {
  const crds: JsonObject[] = [];
  for (const dir of dirs) {
    for (const file of readdirSync(dir)
      .filter((f) => /\.(ya?ml|json)$/.test(f))
      .sort()) {
      for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
        const value: unknown = doc.toJS();
        if (isObject(value) && value.kind === 'CustomResourceDefinition') crds.push(value);
      }
    }
  }
  return crds;
}

/**
 * The server's self-signed certificate for `names` (IP addresses or DNS names), made with openssl
 * once and kept in `dir`; made anew when the names change.
 */
async function ensureCertificate(dir: string, names: string[]): Promise<{ cert: string; key: string }> {
  const certPath = join(dir, 'apiserver.crt');
  const keyPath = join(dir, 'apiserver.key');
  const namesPath = join(dir, 'apiserver.names');
  const subjectAltName = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  const current = existsSync(namesPath) ? readFileSync(namesPath, 'utf8') : undefined;
  if (!existsSync(certPath) || !existsSync(keyPath) || current !== subjectAltName) {
    await runCommand('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '3650',
      '-subj',
      '/CN=fabrik-test-apiserver',
      '-addext',
      `subjectAltName=${subjectAltName}`,
    ]);
    writeFileSync(namesPath, subjectAltName);
  }
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
}

function kubeconfigYaml(url: string, token: string, user: string, caPem: string | undefined): string {
  const ca =
    caPem === undefined ? '' : `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}\n`;
  return (
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: fabrik-test',
      '  cluster:',
      `    server: ${url}`,
      ca.trimEnd(),
      'users:',
      `- name: ${user}`,
      '  user:',
      `    token: ${token}`,
      'contexts:',
      '- name: fabrik-test',
      '  context:',
      '    cluster: fabrik-test',
      `    user: ${user}`,
      'current-context: fabrik-test',
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n'
  );
}

export async function startApiServer(options: StartApiServerOptions = {}): Promise<ApiServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'fabrik-apiserver-'));
  mkdirSync(dir, { recursive: true });
  const tls = options.tls ?? true;
  const host = options.host ?? '127.0.0.1';
  const tokensPath = join(dir, 'tokens.json');
  const saved = existsSync(tokensPath)
    ? (JSON.parse(readFileSync(tokensPath, 'utf8')) as [string, UserInfo][])
    : [];
  const authenticator = new TokenAuthenticator(saved);
  let adminToken = saved.find(([, u]) => u.username === ADMIN_USER.username)?.[0];
  if (adminToken === undefined) {
    adminToken = TokenAuthenticator.newToken();
    authenticator.add(adminToken, ADMIN_USER);
  }
  const saveTokens = (): void => writeFileSync(tokensPath, JSON.stringify(authenticator.entries()));
  saveTokens();
  const wildcard = host === '0.0.0.0' || host === '::';
  const advertised = options.advertiseAddress ?? (wildcard ? '127.0.0.1' : host);
  if (!isIP(advertised) && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/i.test(advertised)) {
    throw new Error(
      `advertiseAddress: ${JSON.stringify(advertised)} is neither an IP address nor a DNS name`,
    );
  }
  const certNames = [...new Set(['127.0.0.1', '::1', 'localhost', advertised, ...(wildcard ? [] : [host])])];
  const pair = tls ? await ensureCertificate(dir, certNames) : undefined;
  const crdDirs = options.crdDirs ?? (existsSync(REPO_CRDS) ? [REPO_CRDS] : []);
  const crdFiles = loadCrdFiles(crdDirs);

  let port = options.port ?? 0;
  let server: Server | undefined;
  let store: Store | undefined;
  let registry = new ResourceRegistry();
  const watches = new Set<() => void>();
  const sockets = new Set<Socket>();

  const rbacSource = (s: Store): RbacSource => ({
    clusterRoles: () => s.allOf(resourceKey({ group: 'rbac.authorization.k8s.io', plural: 'clusterroles' })),
    clusterRoleBindings: () =>
      s.allOf(resourceKey({ group: 'rbac.authorization.k8s.io', plural: 'clusterrolebindings' })),
    roles: () => s.allOf(resourceKey({ group: 'rbac.authorization.k8s.io', plural: 'roles' })),
    roleBindings: () => s.allOf(resourceKey({ group: 'rbac.authorization.k8s.io', plural: 'rolebindings' })),
  });

  const start = async (): Promise<void> => {
    if (server) return;
    store = new Store({ dir, historyLimit: options.historyLimit ?? 1000 });
    registry = new ResourceRegistry();
    const rest = new RestStorage(store, registry);
    rest.restoreCrds();
    for (const ns of DEFAULT_NAMESPACES) {
      if (!store.get(resourceKey({ group: '', plural: 'namespaces' }), '', ns)) {
        rest.create(registry.get('', 'v1', 'namespaces')!, '', { metadata: { name: ns } });
      }
    }
    for (const crd of crdFiles) rest.ensureCrd(crd);
    const router = new Router({
      store,
      registry,
      rest,
      authenticator,
      rbac: options.rbac ? rbacSource(store) : undefined,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
      watches,
    });
    const handler = (req: Parameters<Router['handle']>[0], res: Parameters<Router['handle']>[1]): void => {
      void router.handle(req, res);
    };
    const s = pair
      ? createHttpsServer({ cert: pair.cert, key: pair.key }, handler)
      : createHttpServer(handler);
    await new Promise<void>((resolveListen, reject) => {
      s.once('error', reject);
      s.listen(port, host, () => resolveListen());
    });
    port = (s.address() as AddressInfo).port;
    // Every accepted TCP socket, TLS handshakes in progress included: stop() destroys them all, so
    // no request that slipped in while stopping can keep a watch (and the port) open.
    s.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    server = s;
  };

  const cutWatches = (): void => {
    for (const close of [...watches]) close();
    watches.clear();
  };

  const stop = async (): Promise<void> => {
    const s = server;
    if (!s) return;
    server = undefined;
    cutWatches();
    store?.persistSnapshot();
    await new Promise<void>((done) => {
      s.close(() => done());
      for (const socket of sockets) socket.destroy();
    });
    cutWatches();
  };

  await start();
  const url = `${tls ? 'https' : 'http'}://${advertised.includes(':') ? `[${advertised}]` : advertised}:${port}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigYaml(url, adminToken, 'admin', pair?.cert));

  const createServiceAccountToken = (namespace: string, name: string): string => {
    const token = TokenAuthenticator.newToken();
    authenticator.add(token, serviceAccountUser(namespace, name));
    saveTokens();
    return token;
  };

  return {
    url,
    kubeconfigPath,
    token: adminToken,
    dir,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    compact: () => {
      store?.compact();
      cutWatches();
    },
    createServiceAccountToken,
    writeServiceAccountKubeconfig(namespace, name) {
      const path = join(dir, `kubeconfig-${namespace}-${name}`);
      writeFileSync(
        path,
        kubeconfigYaml(url, createServiceAccountToken(namespace, name), `${namespace}-${name}`, pair?.cert),
      );
      return path;
    },
    rulesFor(namespace, name) {
      if (!store) throw new Error('the API server is stopped');
      return rulesForUser(rbacSource(store), serviceAccountUser(namespace, name));
    },
    async destroy() {
      await stop();
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
