import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  CNI_NODE_SETTINGS_PATH,
  parseAgentHostConfig,
  parseCniNodeSettings,
  type CniNodeSettings,
} from '@fabrik/api';
import { writeFileAtomic } from './install.js';
import { FabrikError } from '@fabrik/api';

// `<plugin> install-node`: the node installer (the fabrik-cni image runs fabrik-ovs's), run by a
// DaemonSet on every node with the node's directories under --host-root, as Multus' and Antrea's
// installers are:
//   - every plugin of --plugins-dir into the CNI bin directory (and, with --with-node, the Node.js
//     running this, as <bin dir>/fabrik-node, the plugins' interpreter: nodes need no Node.js),
//     with the plugins' node_modules beside them (koffi, netcore's rtnetlink FFI: no bundle holds
//     a native binary, and Node finds it there from the plugin's own path);
//   - the node settings file (CniNodeSettings) at /etc/cni/net.d/fabrik.d/config.yaml;
//   - a copy of agent-host's config where the settings' agentHostConfig says (the default bridge);
//   - fabrik-ipam's kubeconfig from this pod's ServiceAccount token where ipam.kubeconfig says;
// each file atomically, after every input was validated (bad input: exit 2, nothing written).
// With --watch it stays, and rewrites what changed every 30 s (the token rotates) until SIGTERM.

/** A file to write on the node: its path on the node, its content, its mode. */
export interface NodeFile {
  readonly path: string;
  readonly content: string | Uint8Array | { readonly copyOf: string };
  readonly mode: number;
}

/** The pod's ServiceAccount credentials and where the API server is. */
export interface ServiceAccountCredentials {
  readonly token: string;
  readonly caCrt: string;
  readonly server: string;
}

export interface NodeInstallInputs {
  readonly cniBinDir: string;
  readonly plugins: readonly { readonly name: string; readonly data: Uint8Array }[];
  /** What the plugins load at run time: the files under --plugins-dir's node_modules, by relative path. */
  readonly pluginModules: readonly {
    readonly path: string;
    readonly data: Uint8Array;
    readonly mode: number;
  }[];
  /** The Node.js binary to install as the plugins' interpreter, if any. */
  readonly nodeBinary?: string;
  readonly settingsText: string;
  readonly settings: CniNodeSettings;
  readonly agentHostConfigText?: string;
  readonly serviceAccount?: ServiceAccountCredentials;
}

/** The interpreter's name in the CNI bin directory. */
export const NODE_BINARY_NAME = 'fabrik-node';

/** A kubeconfig for a bearer token (YAML; every value written as a JSON string, which YAML reads). */
export function serviceAccountKubeconfig(sa: ServiceAccountCredentials): string {
  const q = JSON.stringify;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: fabrik`,
    '    cluster:',
    `      server: ${q(sa.server)}`,
    `      certificate-authority-data: ${q(Buffer.from(sa.caCrt).toString('base64'))}`,
    'users:',
    '  - name: fabrik-cni',
    '    user:',
    `      token: ${q(sa.token)}`,
    'contexts:',
    '  - name: fabrik',
    '    context:',
    '      cluster: fabrik',
    '      user: fabrik-cni',
    'current-context: fabrik',
    '',
  ].join('\n');
}

/** `https://host:port`, brackets around an IPv6 host (KUBERNETES_SERVICE_HOST is bare). */
export function apiServerUrl(host: string, port: string): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Replaces the `#!` line of a plugin by `#!<interpreter>` (the bundles start with one). */
export function withInterpreter(plugin: Uint8Array, interpreter: string): Uint8Array {
  const text = Buffer.from(plugin);
  if (text.subarray(0, 2).toString() !== '#!') return plugin;
  const end = text.indexOf(0x0a);
  return Buffer.concat([Buffer.from(`#!${interpreter}`), end < 0 ? Buffer.alloc(0) : text.subarray(end)]);
}

/** What the installer writes on the node, in order (pure). */
export function planNodeInstall(inputs: NodeInstallInputs): NodeFile[] {
  const files: NodeFile[] = [];
  const interpreter = inputs.nodeBinary ? join(inputs.cniBinDir, NODE_BINARY_NAME) : undefined;
  if (inputs.nodeBinary && interpreter)
    files.push({ path: interpreter, content: { copyOf: inputs.nodeBinary }, mode: 0o755 });
  // Before the plugins: a new plugin must find what it loads.
  for (const m of inputs.pluginModules)
    files.push({ path: join(inputs.cniBinDir, m.path), content: m.data, mode: m.mode });
  for (const p of inputs.plugins)
    files.push({
      path: join(inputs.cniBinDir, p.name),
      content: interpreter ? withInterpreter(p.data, interpreter) : p.data,
      mode: 0o755,
    });
  if (inputs.agentHostConfigText !== undefined)
    files.push({ path: inputs.settings.agentHostConfig, content: inputs.agentHostConfigText, mode: 0o644 });
  if (inputs.serviceAccount)
    files.push({
      path: inputs.settings.ipam.kubeconfig,
      content: serviceAccountKubeconfig(inputs.serviceAccount),
      mode: 0o600,
    });
  // Last: the settings name the files above, so they exist once the settings point at them.
  files.push({ path: CNI_NODE_SETTINGS_PATH, content: inputs.settingsText, mode: 0o644 });
  return files;
}

/** Bad input: the message names the option, file or field. Nothing has been written. */
export class InstallInputError extends FabrikError<'INSTALL_INPUT'> {
  override readonly name = 'InstallInputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('INSTALL_INPUT', message, options);
  }
}

export interface InstallNodeOptions {
  hostRoot: string;
  cniBinDir: string;
  pluginsDir: string;
  settings?: string;
  agentHostConfig?: string;
  serviceAccountDir?: string;
  withNode: boolean;
  watch: boolean;
}

const USAGE = `usage: <plugin> install-node [--host-root DIR] [--cni-bin-dir DIR] [--plugins-dir DIR]
       [--settings FILE] [--agent-host-config FILE] [--service-account-kubeconfig[=DIR]]
       [--with-node] [--watch] [--version]`;
const DEFAULT_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Parses the options (`--flag value` or `--flag=value`). */
export function parseInstallNodeArgs(argv: readonly string[], self: string): InstallNodeOptions | 'version' {
  const options: InstallNodeOptions = {
    hostRoot: '/',
    cniBinDir: '/opt/cni/bin',
    pluginsDir: join(self, '..'),
    withNode: false,
    watch: false,
  };
  const valued = ['--host-root', '--cni-bin-dir', '--plugins-dir', '--settings', '--agent-host-config'];
  for (let i = 0; i < argv.length; i++) {
    const [flag = '', inline] = argv[i]!.split(/=(.*)/s, 2);
    if (flag === '--version') return 'version';
    if (flag === '--with-node' || flag === '--watch') {
      options[flag === '--watch' ? 'watch' : 'withNode'] = true;
      continue;
    }
    if (flag === '--service-account-kubeconfig') {
      options.serviceAccountDir = inline ?? DEFAULT_SERVICE_ACCOUNT_DIR;
      continue;
    }
    if (!valued.includes(flag))
      throw new InstallInputError(`unknown argument ${JSON.stringify(argv[i])}\n${USAGE}`);
    const value = inline ?? argv[++i];
    if (!value?.startsWith('/')) throw new InstallInputError(`${flag}: needs an absolute path`);
    if (flag === '--host-root') options.hostRoot = value;
    else if (flag === '--cni-bin-dir') options.cniBinDir = value;
    else if (flag === '--plugins-dir') options.pluginsDir = value;
    else if (flag === '--settings') options.settings = value;
    else options.agentHostConfig = value;
  }
  return options;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new InstallInputError(`${what} ${path}: ${(e as Error).message}`, { cause: e });
  }
}

async function parseYaml(text: string, where: string): Promise<unknown> {
  const { parse } = await import('yaml');
  try {
    return (parse(text, { maxAliasCount: 100 }) as unknown) ?? {};
  } catch (e) {
    throw new InstallInputError(`${where}: not valid YAML: ${(e as Error).message}`, { cause: e });
  }
}

const firstIssue = (error: { issues: readonly { path: string; message: string }[] }): string => {
  const [i] = error.issues;
  return `${i?.path || '(file)'}: ${i?.message ?? 'invalid'}`;
};

/** Reads and validates every input; throws InstallInputError naming what is wrong. */
export async function readInstallInputs(
  options: InstallNodeOptions,
  env: Readonly<Record<string, string | undefined>>,
  execPath: string,
): Promise<NodeInstallInputs> {
  const settingsText = options.settings ? await readText(options.settings, '--settings') : '{}\n';
  const parsed = parseCniNodeSettings(await parseYaml(settingsText, options.settings ?? 'settings'));
  if (!parsed.ok) throw new InstallInputError(`--settings ${options.settings}: ${firstIssue(parsed.error)}`);
  let agentHostConfigText: string | undefined;
  if (options.agentHostConfig) {
    agentHostConfigText = await readText(options.agentHostConfig, '--agent-host-config');
    const host = parseAgentHostConfig(await parseYaml(agentHostConfigText, options.agentHostConfig));
    if (!host.ok)
      throw new InstallInputError(
        `--agent-host-config ${options.agentHostConfig}: ${firstIssue(host.error)}`,
      );
  }
  let serviceAccount: ServiceAccountCredentials | undefined;
  if (options.serviceAccountDir) {
    const host = env['KUBERNETES_SERVICE_HOST'];
    const port = env['KUBERNETES_SERVICE_PORT'];
    if (!host || !port || !/^\d{1,5}$/.test(port))
      throw new InstallInputError(
        '--service-account-kubeconfig: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (in a pod)',
      );
    const token = (
      await readText(join(options.serviceAccountDir, 'token'), 'the ServiceAccount token')
    ).trim();
    if (!/^[\x21-\x7e]+$/.test(token))
      throw new InstallInputError('the ServiceAccount token: not a bearer token');
    serviceAccount = {
      token,
      caCrt: await readText(join(options.serviceAccountDir, 'ca.crt'), 'the ServiceAccount CA'),
      server: apiServerUrl(host, port),
    };
  }
  const plugins: { name: string; data: Uint8Array }[] = [];
  let names: string[];
  try {
    names = (await readdir(options.pluginsDir)).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    throw new InstallInputError(`--plugins-dir ${options.pluginsDir}: ${(e as Error).message}`, { cause: e });
  }
  for (const name of names) {
    const path = join(options.pluginsDir, name);
    if ((await stat(path)).isFile()) plugins.push({ name, data: await readFile(path) });
  }
  if (plugins.length === 0)
    throw new InstallInputError(`--plugins-dir ${options.pluginsDir}: no plugin in it`);
  return {
    cniBinDir: options.cniBinDir,
    plugins,
    pluginModules: await readPluginModules(options.pluginsDir),
    ...(options.withNode ? { nodeBinary: execPath } : {}),
    settingsText,
    settings: parsed.value,
    ...(agentHostConfigText !== undefined ? { agentHostConfigText } : {}),
    ...(serviceAccount ? { serviceAccount } : {}),
  };
}

/** Every file under `<pluginsDir>/node_modules` (none when it is missing), executable bits kept. */
async function readPluginModules(pluginsDir: string): Promise<NodeInstallInputs['pluginModules']> {
  const root = join(pluginsDir, 'node_modules');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [];
      throw new InstallInputError(`--plugins-dir ${pluginsDir}: ${e.message}`, { cause: e });
    },
  );
  const modules = [];
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    modules.push({
      path: relative(pluginsDir, path),
      data: await readFile(path),
      mode: (await stat(path)).mode & 0o111 ? 0o755 : 0o644,
    });
  }
  return modules.sort((a, b) => (a.path < b.path ? -1 : 1));
}

const sameContent = async (path: string, content: string | Uint8Array): Promise<boolean> =>
  readFile(path).then(
    (old) => old.equals(Buffer.from(content)),
    () => false,
  );

/**
 * Writes the planned files below `hostRoot`; returns the node paths written. Files whose content
 * is already there are left alone (so a running plugin is not replaced for nothing); a copy of a
 * binary is written once per process (`copied` remembers them).
 */
export async function applyNodeInstall(
  files: readonly NodeFile[],
  hostRoot: string,
  copied: Set<string>,
): Promise<string[]> {
  const written: string[] = [];
  for (const f of files) {
    const target = join(hostRoot, f.path);
    if (typeof f.content === 'object' && 'copyOf' in f.content) {
      if (copied.has(f.path)) continue;
      copied.add(f.path);
    } else if (await sameContent(target, f.content)) continue;
    await writeFileAtomic(target, f.content, f.mode);
    written.push(f.path);
  }
  return written;
}

const WATCH_INTERVAL_MS = 30_000;

export async function runInstallNode(
  plugin: string,
  argv: readonly string[],
  self: string,
  version: string,
): Promise<number> {
  let options: InstallNodeOptions;
  try {
    const parsed = parseInstallNodeArgs(argv, self);
    if (parsed === 'version') {
      process.stdout.write(`fabrik-cni ${version}\n`);
      return 0;
    }
    options = parsed;
  } catch (e) {
    process.stderr.write(`${plugin} install-node: ${(e as Error).message}\n`);
    return 2;
  }
  const copied = new Set<string>();
  const pass = async (): Promise<void> => {
    const files = planNodeInstall(await readInstallInputs(options, process.env, process.execPath));
    for (const path of await applyNodeInstall(files, options.hostRoot, copied))
      process.stdout.write(`wrote ${path}\n`);
  };
  try {
    await pass();
  } catch (e) {
    process.stderr.write(`${plugin} install-node: ${(e as Error).message}\n`);
    return e instanceof InstallInputError ? 2 : 1;
  }
  process.stdout.write(`fabrik-cni ${version}: node installed under ${options.hostRoot}\n`);
  if (!options.watch) return 0;
  return new Promise<number>((resolve) => {
    const timer = setInterval(() => {
      pass().catch((e: unknown) => process.stderr.write(`${plugin} install-node: ${(e as Error).message}\n`));
    }, WATCH_INTERVAL_MS);
    const stop = () => {
      clearInterval(timer);
      resolve(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
}
