// startKubeApiServer(): the real Kubernetes control plane as a handle a test (or `npm run
// apiserver`) holds: etcd in the handle's directory and kube-apiserver on a loopback port, with
// RBAC and the Node authorizer, ServiceAccount token signing (TokenRequest, projected tokens with
// their Pod's node claims), admission policies as the release ships them. Like
// controller-runtime's envtest there is no controller-manager: no namespace finalization, garbage
// collection or default ServiceAccounts (so the ServiceAccount admission plugin is off), and no
// kubelet: whoever plays the kubelet writes what it would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createServer, isIP, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCommand, startCommand, type StartedCommand } from '@fabrik/netcore';
import { controlPlaneBinaries, type ControlPlaneBinaries } from './binaries.js';
import { ensureControlPlanePki, kubeconfigYaml, type ControlPlanePki } from './pki.js';
import { apiJson, apiRequest } from './request.js';
import { grantedRules, type GrantedRule } from './rules.js';

export interface StartKubeApiServerOptions {
  /** kube-apiserver's port; 0 (default) picks a free one, which restarts keep. */
  readonly port?: number;
  /** Listen address of kube-apiserver. Default 127.0.0.1. */
  readonly host?: string;
  /** Where etcd's data, the keys, the logs and the kubeconfigs live. Default: a new temporary directory. */
  readonly dir?: string;
  /** Directories of CRD YAML files applied (and waited for) at start. Default: the repository's deploy/crds. */
  readonly crdDirs?: readonly string[];
  /** Prints the start time once (default true). */
  readonly report?: boolean;
}

export interface TokenOptions {
  /** Bind the token to this Pod: the token then carries its node's name and uid claims. */
  readonly boundPod?: { readonly name: string; readonly uid: string };
  /**
   * Bind the token to a Pod of the ServiceAccount on this Node, named `<serviceaccount>-<node>`
   * and created when missing (as the ServiceAccount's DaemonSet would): a node agent's token, with
   * the node claim (`authentication.kubernetes.io/node-name`) that admission policies check.
   */
  readonly node?: string;
  /** Default 24 h. */
  readonly expirationSeconds?: number;
}

export interface KubeApiServer {
  /** https://<host>:<port> */
  readonly url: string;
  readonly kubeconfigPath: string;
  /** The admin bearer token (group system:masters; also in the kubeconfig). */
  readonly token: string;
  /** PEM of the certificate clients trust. */
  readonly caPem: string;
  readonly dir: string;
  readonly binaries: ControlPlaneBinaries;
  /** `kubectl ARGS` (the server's release) as the admin; resolves with its standard output. */
  kubectl(...args: string[]): Promise<string>;
  /** Stops kube-apiserver and etcd; their data stays. */
  stop(): Promise<void>;
  /** Starts both again on the same ports with the saved data. */
  start(): Promise<void>;
  restart(): Promise<void>;
  /**
   * Compacts etcd at its current revision and restarts kube-apiserver: every watch is cut, and
   * resuming from a resourceVersion before the compaction gets 410 Gone.
   */
  compact(): Promise<void>;
  /** A TokenRequest token of an existing ServiceAccount. */
  createServiceAccountToken(namespace: string, name: string, options?: TokenOptions): Promise<string>;
  /** Writes a kubeconfig with such a token next to the admin one; returns its path. */
  writeServiceAccountKubeconfig(namespace: string, name: string, options?: TokenOptions): Promise<string>;
  /**
   * What RBAC grants the ServiceAccount beyond what every authenticated user has, as
   * SelfSubjectRulesReviews answer for it: cluster-wide rules, and those of `namespaces`.
   */
  rulesFor(namespace: string, name: string, namespaces?: readonly string[]): Promise<GrantedRule[]>;
  /** Stops the server and removes its directory if the server created it. */
  destroy(): Promise<void>;
}

const REPO_CRDS = resolve(import.meta.dirname, '../../../../deploy/crds');
const SA_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** A free TCP port on `host` (the kernel's choice). */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((done, fail) => server.once('error', fail).listen(0, host, done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

interface Daemon {
  readonly command: StartedCommand;
  readonly log: WriteStream;
  /** The last lines it printed, for the error when it dies. */
  tail(): string;
}

function startDaemon(file: string, args: string[], logPath: string): Daemon {
  const log = createWriteStream(logPath, { flags: 'a' });
  let tail = '';
  const command = startCommand(file, args, {
    onOutput: (text) => {
      log.write(text);
      tail = (tail + text).slice(-3000);
    },
  });
  return { command, log, tail: () => tail };
}

async function stopDaemon(daemon: Daemon | undefined): Promise<void> {
  if (!daemon) return;
  daemon.command.kill('SIGTERM');
  const killer = setTimeout(() => daemon.command.kill('SIGKILL'), 10_000);
  await daemon.command.exited.catch(() => undefined);
  clearTimeout(killer);
  await new Promise((done) => daemon.log.end(done));
}

let startReported = false;

export async function startKubeApiServer(options: StartKubeApiServerOptions = {}): Promise<KubeApiServer> {
  const binaries = controlPlaneBinaries();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'fabrik-kube-apiserver-'));
  mkdirSync(dir, { recursive: true });
  const host = options.host ?? '127.0.0.1';
  if (!isIP(host)) throw new Error(`host: ${JSON.stringify(host)} is not an IP address`);
  const pki: ControlPlanePki = await ensureControlPlanePki(dir, [
    ...new Set(['127.0.0.1', '::1', 'localhost', host]),
  ]);
  const port = options.port || (await freePort(host));
  const [etcdClientPort, etcdPeerPort] = [await freePort('127.0.0.1'), await freePort('127.0.0.1')];
  const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
  const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigYaml(url, pki.adminToken, 'admin', pki.certPem));
  const admin = { token: pki.adminToken, caPem: pki.certPem };

  let etcd: Daemon | undefined;
  let apiserver: Daemon | undefined;

  const startEtcd = async (): Promise<void> => {
    etcd = startDaemon(
      binaries.etcd,
      [
        '--name=fabrik-test',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeerPort}`,
        `--initial-cluster=fabrik-test=http://127.0.0.1:${etcdPeerPort}`,
        // A test's data is thrown away: no fsync (what envtest's etcd does not skip costs seconds here).
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    await waitUntilServing(
      'etcd',
      etcd,
      async () => (await apiRequest({ url: `${etcdUrl}/health` })).status === 200,
    );
  };

  const startApiServerDaemon = async (): Promise<void> => {
    apiserver = startDaemon(
      binaries.kubeApiServer,
      [
        `--etcd-servers=${etcdUrl}`,
        `--bind-address=${host}`,
        `--advertise-address=${host}`,
        `--secure-port=${port}`,
        `--tls-cert-file=${pki.certPath}`,
        `--tls-private-key-file=${pki.keyPath}`,
        `--token-auth-file=${pki.tokenFilePath}`,
        '--authorization-mode=Node,RBAC',
        `--service-account-issuer=${SA_ISSUER}`,
        `--api-audiences=${SA_ISSUER}`,
        `--service-account-key-file=${pki.serviceAccountPublicKeyPath}`,
        `--service-account-signing-key-file=${pki.serviceAccountKeyPath}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--allow-privileged=true',
        // No controller-manager creates the default ServiceAccounts this plugin requires of Pods.
        '--disable-admission-plugins=ServiceAccount',
        '--endpoint-reconciler-type=none',
        `--cert-dir=${join(dir, 'certs')}`,
        '--profiling=false',
      ],
      join(dir, 'kube-apiserver.log'),
    );
    await waitUntilServing('kube-apiserver', apiserver, async () => {
      const res = await apiRequest({ url: `${url}/readyz`, ...admin });
      return res.status === 200;
    });
  };

  const start = async (): Promise<void> => {
    if (!etcd) await startEtcd();
    if (!apiserver) await startApiServerDaemon();
  };
  const stop = async (): Promise<void> => {
    await stopDaemon(apiserver);
    apiserver = undefined;
    await stopDaemon(etcd);
    etcd = undefined;
  };

  const t0 = Date.now();
  try {
    await start();
    const crdDirs = options.crdDirs ?? [REPO_CRDS];
    if (crdDirs.length > 0) await applyCrds(binaries.kubectl, kubeconfigPath, crdDirs);
  } catch (e) {
    await stop();
    throw e;
  }
  if ((options.report ?? true) && !startReported) {
    startReported = true;
    console.log(`kube-apiserver: ready in ${Date.now() - t0} ms (etcd and kube-apiserver, ${dir})`);
  }

  /** The Pod `<serviceAccount>-<node>` on `node`, created when missing. */
  const nodeAgentPod = async (namespace: string, serviceAccount: string, node: string) => {
    const pods = `${url}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
    const podName = `${serviceAccount}-${node}`;
    const created = await apiRequest({
      url: pods,
      method: 'POST',
      ...admin,
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: podName, namespace },
        spec: {
          nodeName: node,
          serviceAccountName: serviceAccount,
          containers: [{ name: 'agent', image: 'agent' }],
        },
      },
    });
    if (created.status >= 300 && created.status !== 409)
      throw new Error(
        `POST ${new URL(pods).pathname} (Pod ${podName}): ${created.status} ${created.body.slice(0, 500)}`,
      );
    const pod = await apiJson<{ metadata: { name: string; uid: string } }>({
      url: `${pods}/${encodeURIComponent(podName)}`,
      ...admin,
    });
    return { name: pod.metadata.name, uid: pod.metadata.uid };
  };

  const createServiceAccountToken = async (
    namespace: string,
    name: string,
    tokenOptions: TokenOptions = {},
  ): Promise<string> => {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`;
    const { expirationSeconds = 86_400 } = tokenOptions;
    const boundPod =
      tokenOptions.boundPod ??
      (tokenOptions.node === undefined ? undefined : await nodeAgentPod(namespace, name, tokenOptions.node));
    const review = await apiJson<{ status: { token: string } }>({
      url: `${url}${path}`,
      method: 'POST',
      ...admin,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          expirationSeconds,
          ...(boundPod ? { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', ...boundPod } } : {}),
        },
      },
    });
    return review.status.token;
  };

  return {
    url,
    kubeconfigPath,
    token: pki.adminToken,
    caPem: pki.certPem,
    dir,
    binaries,
    kubectl: async (...args) =>
      (await runCommand(binaries.kubectl, ['--kubeconfig', kubeconfigPath, ...args], { timeoutMs: 120_000 }))
        .stdout,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    async compact() {
      const status = await apiJson<{ header: { revision: string } }>({
        url: `${etcdUrl}/v3/maintenance/status`,
        method: 'POST',
        body: {},
      });
      await apiJson({
        url: `${etcdUrl}/v3/kv/compaction`,
        method: 'POST',
        body: { revision: status.header.revision, physical: true },
      });
      await stopDaemon(apiserver);
      apiserver = undefined;
      await startApiServerDaemon();
    },
    createServiceAccountToken,
    async writeServiceAccountKubeconfig(namespace, name, tokenOptions) {
      // One file per node for a node agent's token: two nodes' agents share a ServiceAccount.
      const path = join(
        dir,
        `kubeconfig-${namespace}-${name}${tokenOptions?.node === undefined ? '' : `-${tokenOptions.node}`}`,
      );
      const token = await createServiceAccountToken(namespace, name, tokenOptions);
      writeFileSync(path, kubeconfigYaml(url, token, `${namespace}-${name}`, pki.certPem), { mode: 0o600 });
      return path;
    },
    rulesFor: (namespace, name, namespaces = []) =>
      grantedRules({ url, ...admin }, `system:serviceaccount:${namespace}:${name}`, namespaces),
    async destroy() {
      await stop();
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `ready` until it holds; fails at once with the daemon's last output when it exits. */
async function waitUntilServing(name: string, daemon: Daemon, ready: () => Promise<boolean>): Promise<void> {
  let exited = false;
  void daemon.command.exited.then(
    () => (exited = true),
    () => (exited = true),
  );
  for (const deadline = Date.now() + 90_000; ;) {
    if (exited) throw new Error(`${name} exited while starting:\n${daemon.tail()}`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${name} not ready within 90 s:\n${daemon.tail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `kubectl apply` of the CRD files, then waits until every CRD is Established. */
async function applyCrds(kubectl: string, kubeconfig: string, dirs: readonly string[]): Promise<void> {
  const run = (args: string[]) =>
    runCommand(kubectl, ['--kubeconfig', kubeconfig, ...args], { timeoutMs: 120_000 });
  for (const d of dirs) await run(['apply', '--server-side', '-f', d]);
  await run(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}
