// Test helpers for the plugin: a private build of the bundle, a CNI bin dir, direct execution and
// libcni's cnitool, and probes of what is left on the host (ports, veths, IPAM leases).
//
// Both paths of the plugin run the same tests: by itself (`standalone`), or handing every verb to
// agent-host's CNI socket (`agent-host`, the fast path). FABRIK_CNI_TEST_PATH picks the path of a
// test run (the vitest project `host-fast-path` sets it); a sandbox of the agent-host path starts
// agent-host on the test's OVSDB when its settings are first written, and names its socket in
// every settings file it writes.
import { mkdtemp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { runCommand } from '@fabrik/netcore';
import { afterAll, beforeAll } from 'vitest';
import {
  DEBIAN_CNI_DIR,
  cnitool as runCnitool,
  createTempNetns,
  execCniPlugin,
  startOvs,
  uniqueName,
  type CniExecResult,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import { bundlePlugin } from '../scripts/bundle.js';
import { hostVethName } from '@fabrik/ovs-attachment';
import { DEFAULT_IPAM_TYPES } from '@fabrik/api';
import { startAgentHost, type AgentHostProcess } from './agent-host.js';

export { CNITOOL, DEBIAN_CNI_DIR } from '@fabrik/testkit';

/** How the plugin's verbs run: in the plugin process, or in agent-host (the fast path). */
export type CniPath = 'standalone' | 'agent-host';

/** The path of this test run (FABRIK_CNI_TEST_PATH, default `standalone`). */
export function cniTestPath(): CniPath {
  const path = process.env['FABRIK_CNI_TEST_PATH'] ?? 'standalone';
  if (path !== 'standalone' && path !== 'agent-host')
    throw new Error(`FABRIK_CNI_TEST_PATH=${path}: must be standalone or agent-host`);
  return path;
}

/** A private directory per test file: the bundled plugin, confs, the CNI cache, host-local data. */
export interface PluginSandbox {
  readonly dir: string;
  readonly path: CniPath;
  /** The agent serving the fast path once started (agent-host path only, see {@link writeNodeSettings}). */
  readonly agent: AgentHostProcess | undefined;
  readonly binDir: string;
  readonly plugin: string;
  readonly cniPath: string;
  readonly confDir: string;
  readonly cacheDir: string;
  readonly ipamDataDir: string;
  readonly cnitoolCache: string;
  /** The plugin's V8 code cache (FABRIK_OVS_CODE_CACHE_DIR). */
  readonly codeCacheDir: string;
  /** The node settings file every call gets through FABRIK_CNI_CONFIG (see {@link writeNodeSettings}). */
  readonly settingsPath: string;
  /** Starts agent-host on `ovsdbSocket` unless it runs (then returns the running one). */
  startAgent(ovsdbSocket: string): Promise<AgentHostProcess>;
  /** Stops the agent, removes the directory. */
  remove(): Promise<void>;
}

/** Bundles the plugin with scripts/bundle.ts into a private directory; `path` defaults to {@link cniTestPath}. */
export async function createPluginSandbox(path: CniPath = cniTestPath()): Promise<PluginSandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-cni-'));
  const binDir = join(dir, 'bin');
  const plugin = join(binDir, 'fabrik-ovs');
  await mkdir(binDir);
  await bundlePlugin(plugin);
  let agent: AgentHostProcess | undefined;
  const sb: PluginSandbox = {
    dir,
    path,
    get agent() {
      return agent;
    },
    startAgent: async (ovsdbSocket) => {
      if (!agent?.running()) agent = await startAgentHost(join(dir, 'agent-host'), ovsdbSocket);
      return agent;
    },
    binDir,
    plugin,
    cniPath: `${binDir}:${DEBIAN_CNI_DIR}`,
    confDir: join(dir, 'net.d'),
    cacheDir: join(dir, 'cache'),
    ipamDataDir: join(dir, 'ipam'),
    cnitoolCache: join(dir, 'cnitool-cache'),
    codeCacheDir: join(dir, 'code-cache'),
    settingsPath: join(dir, 'fabrik.d', 'config.yaml'),
    remove: async () => {
      await agent?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await mkdir(sb.confDir);
  return sb;
}

/** What a host test file of the plugin runs on: see {@link usePluginTestBed}. */
export interface PluginTestBed {
  /** The file's sandbox (set in beforeAll). */
  readonly sb: PluginSandbox;
  /** The file's private Open vSwitch (set in beforeAll). */
  readonly ovs: OvsInstance;
  /** The name of the bridge on it, for the files' network configs. */
  readonly bridge: string;
  /** A new Pod namespace, destroyed in afterAll. */
  netns(): Promise<TempNetns>;
}

/**
 * The set-up every plugin host test file shares, as the calling file's beforeAll and afterAll: a
 * sandbox on `path` (default {@link cniTestPath}), a private OVS with a bridge named
 * `<bridgePrefix><random>`, the sandbox's node settings on it (which start agent-host on the
 * agent-host path); afterwards the Pod namespaces made by `netns()` (named `<netnsPrefix>...`, default `fovs-`) are
 * destroyed, OVS stopped and the sandbox removed. A file's own hooks, registered after this call,
 * run after this beforeAll and before this afterAll.
 */
export function usePluginTestBed(options: {
  readonly bridgePrefix: string;
  readonly netnsPrefix?: string;
  readonly path?: CniPath;
}): PluginTestBed {
  const bridge = uniqueName(options.bridgePrefix);
  const namespaces: TempNetns[] = [];
  let sb: PluginSandbox | undefined;
  let ovs: OvsInstance | undefined;
  beforeAll(async () => {
    sb = await createPluginSandbox(options.path);
    ovs = await startOvs();
    await ovs.addBridge(bridge);
    await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint));
  }, 660_000);
  afterAll(async () => {
    for (const ns of namespaces) await ns.destroy();
    await ovs?.stop();
    await sb?.remove();
  });
  const setUp = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the plugin test bed is set up in beforeAll');
    return value;
  };
  return {
    get sb() {
      return setUp(sb);
    },
    get ovs() {
      return setUp(ovs);
    },
    bridge,
    async netns() {
      const ns = await createTempNetns(options.netnsPrefix ?? 'fovs-');
      namespaces.push(ns);
      return ns;
    },
  };
}

export type ExecResult = CniExecResult;

/**
 * The node settings of a sandbox: its private OVSDB, cache and host-local data directory, a
 * generous ofport timeout (test files run their own ovs-vswitchd side by side on a 2-core machine),
 * and the default IPAM plugins plus `ipamTypes` (the test's own plugins) allowed.
 */
export function sandboxSettings(
  sb: PluginSandbox,
  ovsdbSocket: string,
  ipamTypes: readonly string[] = [],
): Record<string, unknown> {
  return {
    ovsdbSocket,
    cacheDir: sb.cacheDir,
    ipam: { hostLocalDataDir: sb.ipamDataDir, allowedTypes: [...DEFAULT_IPAM_TYPES, ...ipamTypes] },
    timeouts: { ofportTimeoutMs: 30_000 },
  };
}

/**
 * Writes a node settings file (YAML, as an installer would) and returns its path: the sandbox's
 * own (`sb.settingsPath`) unless `file` names another one in the sandbox. On the agent-host path,
 * the file names the agent's socket (`agentHostSocket`), and the agent is started on the
 * settings' OVSDB first if it does not run yet.
 */
export async function writeNodeSettings(
  sb: PluginSandbox,
  settings: Record<string, unknown>,
  file = sb.settingsPath,
): Promise<string> {
  const ovsdbSocket = settings['ovsdbSocket'];
  const agent =
    sb.path === 'agent-host' && typeof ovsdbSocket === 'string' ? await sb.startAgent(ovsdbSocket) : sb.agent;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, stringify(agent ? { agentHostSocket: agent.socket, ...settings } : settings));
  return file;
}

/** Executes the plugin (or `opts.binary`) as a runtime would: CNI_* environment, config on stdin. */
export async function execPlugin(
  sb: PluginSandbox,
  command: string,
  conf: unknown,
  opts: {
    containerId?: string;
    netns?: string;
    ifname?: string;
    args?: string;
    env?: Record<string, string>;
    binary?: string;
    /** Kill the plugin after this long (default 60 s): the call then fails with code -1. */
    timeoutMs?: number;
  } = {},
): Promise<ExecResult> {
  const { binary, env, ...rest } = opts;
  const r = await execCniPlugin(binary ?? sb.plugin, command, conf, {
    ...rest,
    path: sb.cniPath,
    env: {
      FABRIK_OVS_CODE_CACHE_DIR: sb.codeCacheDir,
      FABRIK_CNI_CONFIG: sb.settingsPath,
      ...fastPathEnv(sb),
      ...env,
    },
  });
  // Another binary (Debian's, for comparison) says nothing about the path it took.
  if (!binary) pathTaken(sb, env?.['FABRIK_CNI_CONFIG'] ?? sb.settingsPath, r.stderr);
  return r;
}

/** Writes `<name>.conflist` into the sandbox's NETCONFPATH. */
export async function writeConflist(
  sb: PluginSandbox,
  name: string,
  cniVersion: string,
  plugin: Record<string, unknown>,
): Promise<void> {
  await writeFile(
    join(sb.confDir, `${name}.conflist`),
    JSON.stringify({ cniVersion, name, plugins: [{ type: 'fabrik-ovs', ...plugin }] }),
  );
}

/** Runs libcni's cnitool (add|check|del); resolves with stdout, rejects with the CommandError. */
export async function cnitool(
  sb: PluginSandbox,
  verb: 'add' | 'check' | 'del',
  net: string,
  netnsPath: string,
  opts: { ifname?: string; args?: string; capArgs?: unknown } = {},
): Promise<string> {
  const settingsPath = sb.settingsPath;
  return runCnitool(verb, net, netnsPath, {
    ...opts,
    confDir: sb.confDir,
    path: sb.cniPath,
    cacheDir: sb.cnitoolCache,
    env: { FABRIK_OVS_CODE_CACHE_DIR: sb.codeCacheDir, FABRIK_CNI_CONFIG: settingsPath, ...fastPathEnv(sb) },
    onStderr: (stderr) => pathTaken(sb, settingsPath, stderr),
  });
}

/** On the agent-host path the plugin says on stderr when it did a verb itself (see {@link pathTaken}). */
function fastPathEnv(sb: PluginSandbox): Record<string, string> {
  return sb.path === 'agent-host' ? { FABRIK_CNI_LOG_LEVEL: 'debug' } : {};
}

/**
 * On the agent-host path, while the agent runs, a call with the sandbox's own settings file (which
 * names the agent's socket) must have been answered by the agent: a plugin that did the work
 * itself fails the test, so that the agent-host run of a test cannot pass on the standalone path.
 */
function pathTaken(sb: PluginSandbox, settingsPath: string, stderr: string): void {
  if (
    sb.path === 'agent-host' &&
    sb.agent?.running() === true &&
    settingsPath === sb.settingsPath &&
    /done by this process/.test(stderr)
  )
    throw new Error(`the plugin did not use agent-host's CNI socket: ${stderr}`);
}

/**
 * The verbs the sandbox's agent answered (`ADD`, `DEL`, ...) from its log line `from` on: none on
 * the standalone path. For runtimes whose plugin output a test cannot see (podman).
 */
export function answeredByAgent(sb: PluginSandbox, from = 0): string[] {
  return (sb.agent?.logs ?? [])
    .slice(from)
    .filter((l) => l['msg'] === 'cni: answered' || l['msg'] === 'cni: answered with an error')
    .map((l) => String(l['command']));
}

/** Names of host veths that start with `fovs`. */
export async function hostVeths(): Promise<string[]> {
  const links = JSON.parse(
    (await runCommand('ip', ['-j', 'link', 'show', 'type', 'veth'])).stdout || '[]',
  ) as Array<{ ifname: string }>;
  return links.map((l) => l.ifname).filter((n) => n.startsWith('fovs'));
}

/** IPs host-local has leased in its data dir for `network` (its files are named after the IPs). */
export async function leasedIps(sb: PluginSandbox, network: string): Promise<string[]> {
  try {
    return (await readdir(join(sb.ipamDataDir, network))).filter(
      (f) => /^\d+\.\d+\.\d+\.\d+$/.test(f) || f.includes(':'),
    );
  } catch {
    return [];
  }
}

/** Everything on the node a call of the plugin could have changed, for before/after comparisons. */
export interface NodeState {
  /** Host links named like, or marked for, one of the probed attachments. */
  readonly hostLinks: readonly string[];
  /** Every Port row of the sandbox's OVS, with its external_ids. */
  readonly ovsPorts: readonly string[];
  /** Every link and address in the probed namespaces. */
  readonly podLinks: readonly string[];
  /** Every file and directory below the cache directory. */
  readonly cache: readonly string[];
  /** Every IP host-local has leased, in any network of the sandbox. */
  readonly leases: readonly string[];
}

/**
 * The node as `probe` can see it: the probed attachments' host links, the sandbox's OVS ports,
 * cache and leases, and the probed Pod namespaces. Host links are limited to the probed
 * attachments because other test files create veths in the same (host) namespace.
 */
export async function nodeState(
  sb: PluginSandbox,
  ovs: { vsctl(...args: string[]): Promise<string> },
  probe: {
    readonly attachments: ReadonlyArray<{ containerId: string; ifname: string }>;
    readonly netns?: ReadonlyArray<{ ip(...args: string[]): Promise<string> }>;
  },
): Promise<NodeState> {
  const hostLinkRows = JSON.parse(
    (await runCommand('ip', ['-j', '-d', 'link', 'show'])).stdout || '[]',
  ) as Array<{
    ifname: string;
    ifalias?: string;
  }>;
  const names = new Set(probe.attachments.map((a) => hostVethName(a.containerId, a.ifname)));
  const hostLinks = hostLinkRows
    .filter(
      (l) => names.has(l.ifname) || probe.attachments.some((a) => l.ifalias?.includes(`:${a.containerId}:`)),
    )
    .map((l) => `${l.ifname} ${l.ifalias ?? ''}`);
  const ports = JSON.parse(
    await ovs.vsctl('--format=json', '--columns=name,external_ids', 'list', 'Port'),
  ) as {
    data: unknown[][];
  };
  const podLinks: string[] = [];
  for (const ns of probe.netns ?? []) {
    const links = JSON.parse((await ns.ip('-j', 'addr', 'show')) || '[]') as Array<{
      ifname: string;
      addr_info?: Array<{ local: string }>;
    }>;
    podLinks.push(...links.map((l) => `${l.ifname} ${(l.addr_info ?? []).map((a) => a.local).join(',')}`));
  }
  const leases: string[] = [];
  for (const net of await readdir(sb.ipamDataDir).catch(() => [] as string[]))
    leases.push(...(await leasedIps(sb, net)).map((ip) => `${net}/${ip}`));
  return {
    hostLinks: hostLinks.sort(),
    ovsPorts: ports.data.map((row) => JSON.stringify(row)).sort(),
    podLinks: podLinks.sort(),
    cache: (await walk(sb.cacheDir)).sort(),
    leases: leases.sort(),
  };
}

/** Every file and directory below `dir` (relative paths; directories end with '/'). */
async function walk(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const rel = join(prefix, e.name);
    if (e.isDirectory()) out.push(`${rel}/`, ...(await walk(dir, rel)));
    else out.push(rel);
  }
  return out;
}
