import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { AgentNetnsConfigInput, NodeNetworkStatusSection } from '@fabrik/api';
import { writeIntentFile, type IntentObject } from '@fabrik/agent-runtime';
import { runCommand, runInNetns } from '@fabrik/netcore';
import { createNetlink, type Netlink } from '@fabrik/netcore/netlink';
import { buildTopology, type BuiltTopology } from '@fabrik/lab';
import { startAgentProcess, startFrr, type AgentProcess, type FrrInstance } from '@fabrik/testkit';

// Lab tests of agent-netns run the built agent as a process per node, as the HBR container runs
// it: one host netns and one HBR netns per node, a trunk veth between them (`tr-host` / `tr`), an
// underlay veth between the two HBRs, FRR (zebra, bgpd, staticd) in each HBR netns. Pods are
// netns with a VLAN sub-interface of the host side of the trunk, so their traffic takes the path
// through tr.<vid>, the bridge and VXLAN that agent-netns builds. Needs `npm run build` first.

export const AGENT_BIN = fileURLToPath(new URL('../bin/fabrik-agent-netns.mjs', import.meta.url));
/** The agent's V8 code caches in the node's directory, not on this machine's disk (its default). */
const codeCacheEnv = (node: LabNode) => ({ FABRIK_AGENT_NETNS_CODE_CACHE_DIR: join(node.dir, 'code-cache') });
export const API_VERSION = 'network.fabrik.dev/v1alpha1';
const TRUNK_HOST = 'tr-host';

export interface LabNode {
  readonly id: 'a' | 'b';
  readonly host: string;
  readonly hbr: string;
  readonly vtep: string;
  readonly peerVtep: string;
  readonly dir: string;
  readonly intentFile: string;
  readonly statusFile: string;
  readonly stateDir: string;
  readonly configFile: string;
  readonly hbrNetlink: Netlink;
  frr: FrrInstance;
  agent?: AgentProcess;
  health: string;
  metrics: string;
}

export interface LabNodesOptions {
  /** netns name prefix, unique per test file. */
  readonly prefix: string;
  /** Nodes whose HBR netns starts as the HBR container sets it up: VRF `hbr` (table 10) with `hbn` in it. */
  readonly givenHbr?: readonly ('a' | 'b')[];
  readonly mode?: 'netns' | 'vrf-ibgp';
  /** Only node a. */
  readonly single?: boolean;
}

export interface LabNodes {
  readonly nodes: readonly LabNode[];
  destroy(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Namespaces, links, FRR and a config file per node; the agents are started by {@link startAgent}. */
export async function startLabNodes(options: LabNodesOptions): Promise<LabNodes> {
  const ids: ('a' | 'b')[] = options.single ? ['a'] : ['a', 'b'];
  const p = options.prefix;
  const vtep = { a: '192.0.2.1', b: '192.0.2.2' };
  const topology: BuiltTopology = await buildTopology({
    nodes: ids.flatMap((id) => [`${p}${id}-host`, `${p}${id}-hbr`]),
    links: [
      ...(options.single
        ? []
        : [
            {
              a: { node: `${p}a-hbr`, ifname: 'ua', addresses: ['192.0.2.1/30'] },
              b: { node: `${p}b-hbr`, ifname: 'ub', addresses: ['192.0.2.2/30'] },
            },
          ]),
      ...ids.map((id) => ({
        a: { node: `${p}${id}-host`, ifname: TRUNK_HOST },
        b: { node: `${p}${id}-hbr`, ifname: 'tr' },
      })),
    ],
  });
  const nodes: LabNode[] = [];
  try {
    for (const id of ids) {
      const hbr = `${p}${id}-hbr`;
      if (options.givenHbr?.includes(id)) {
        // What the HBR container's own setup creates (seed 004): given to agent-netns, never its own.
        await runInNetns(hbr, 'ip', ['link', 'add', 'hbr', 'type', 'vrf', 'table', '10']);
        await runInNetns(hbr, 'ip', ['link', 'set', 'hbr', 'up']);
        await runCommand('ip', [
          '-n',
          hbr,
          'link',
          'add',
          'hbn',
          'type',
          'veth',
          'peer',
          'name',
          'hbn-host',
          'netns',
          `${p}${id}-host`,
        ]);
        await runInNetns(hbr, 'ip', ['link', 'set', 'hbn', 'master', 'hbr', 'up']);
      }
      const frr = await startFrr({
        netns: hbr,
        config: 'frr defaults datacenter\nhostname fabrik-lab\n!\n',
        daemons: ['zebra', 'bgpd', 'staticd'],
      });
      const dir = await mkdtemp(join(tmpdir(), `fabrik-agent-${id}-`));
      const node: LabNode = {
        id,
        host: `${p}${id}-host`,
        hbr,
        vtep: vtep[id],
        peerVtep: vtep[id === 'a' ? 'b' : 'a'],
        dir,
        intentFile: join(dir, 'relay', 'intent.yaml'),
        statusFile: join(dir, 'relay', 'status.json'),
        stateDir: join(dir, 'state'),
        configFile: join(dir, 'agent-netns.yaml'),
        hbrNetlink: createNetlink({ netns: hbr }),
        frr,
        health: `127.0.0.1:${await freePort()}`,
        metrics: `127.0.0.1:${await freePort()}`,
      };
      nodes.push(node);
      await writeConfig(node, { mode: options.mode ?? 'netns' });
    }
  } catch (e) {
    for (const n of nodes) await n.frr.stop();
    await topology.destroy();
    throw e;
  }
  return {
    nodes,
    async destroy() {
      for (const n of nodes) {
        await n.agent?.kill();
        await n.frr.stop();
        await rm(n.dir, { recursive: true, force: true });
      }
      await topology.destroy();
    },
  };
}

/** Writes the node's agent config (file source, status file), with `overrides`. */
export async function writeConfig(
  node: LabNode,
  overrides: Partial<AgentNetnsConfigInput> = {},
): Promise<void> {
  const config: AgentNetnsConfigInput = {
    nodeName: `node-${node.id}`,
    asn: 65000,
    routerId: node.vtep,
    vtepIp: node.vtep,
    underlay: { neighbors: [{ address: node.peerVtep, remoteAs: 'internal' }] },
    netns: node.hbr,
    frr: { pathspace: node.hbr, vniWaitTimeoutMs: 20_000 },
    source: { kind: 'file', path: node.intentFile, format: 'relay' },
    statusFile: node.statusFile,
    stateDir: node.stateDir,
    metricsAddress: node.metrics,
    healthAddress: node.health,
    resyncSeconds: 600,
    ...overrides,
  };
  await writeFile(node.configFile, stringify(config));
}

/** Starts the built agent on `node` (`fabrik-agent-netns run --config ...`). */
export function startAgent(node: LabNode, env: NodeJS.ProcessEnv = {}): AgentProcess {
  node.agent = startAgentProcess({
    command: [process.execPath, AGENT_BIN, 'run', '--config', node.configFile],
    healthAddress: node.health,
    metricsAddress: node.metrics,
    env: { LOG_LEVEL: 'info', ...codeCacheEnv(node), ...env },
  });
  return node.agent;
}

/** Runs `fabrik-agent-netns COMMAND --config ...` to its end. */
export async function agentCommand(
  node: LabNode,
  command: 'plan' | 'render' | 'cleanup',
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await runCommand(
      process.execPath,
      [AGENT_BIN, command, '--config', node.configFile],
      { env: { ...process.env, ...codeCacheEnv(node) }, timeoutMs: 120_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { exitCode?: number; stdout?: string; stderr?: string };
    if (typeof err.exitCode !== 'number') throw e;
    return { code: err.exitCode, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** The node's status file; undefined before the agent wrote one. */
export async function readStatus(node: LabNode): Promise<NodeNetworkStatusSection | undefined> {
  try {
    return JSON.parse(await readFile(node.statusFile, 'utf8')) as NodeNetworkStatusSection;
  } catch {
    return undefined;
  }
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 240_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until the agent of `node` is idle: no reconcile running or waiting (its metrics), and no
 * log line for 2 s. A reconcile logs only when it ends: the log alone cannot tell one is running.
 */
export async function agentIdle(node: LabNode): Promise<void> {
  const busy = async () =>
    /^fabrik_agent_netns_(reconcile_active|workqueue_depth) [1-9]/m.test(
      (await node.agent!.probe('/metrics')).body,
    );
  await until(`node ${node.id}: the agent idle`, async () => {
    const lines = node.agent!.logs.length;
    if (await busy()) return false;
    await new Promise((r) => setTimeout(r, 2000));
    return node.agent!.logs.length === lines && !(await busy());
  });
}

/** Every generation in `objects` (and no other object) applied, as the status file says. */
export async function waitApplied(
  node: LabNode,
  objects: readonly IntentObject[],
  timeoutMs = 240_000,
): Promise<NodeNetworkStatusSection> {
  const want = (kind: string) =>
    Object.fromEntries(
      objects.filter((o) => o.kind === kind).map((o) => [o.metadata.name, o.metadata.generation ?? 0]),
    );
  return until(
    `node ${node.id} to apply ${objects.map((o) => o.metadata.name).join(', ') || 'nothing'}`,
    async () => {
      const s = await readStatus(node);
      if (!s || s.configStatus === 'provisioning' || s.configStatus === 'invalid') return undefined;
      const applied = s.appliedGenerations ?? {};
      return JSON.stringify(sortKeys(applied.vrfs ?? {})) === JSON.stringify(sortKeys(want('VRF'))) &&
        JSON.stringify(sortKeys(applied.layer2Networks ?? {})) ===
          JSON.stringify(sortKeys(want('Layer2Network')))
        ? s
        : undefined;
    },
    timeoutMs,
  );
}

const sortKeys = (o: Record<string, number>) =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Writes the node's intent file (what agent-host's relay does). */
export const setIntent = (node: LabNode, objects: readonly IntentObject[]) =>
  writeIntentFile(node.intentFile, objects);

// Objects carry a creationTimestamp as the API server gives them (the relay passes it on): of two
// objects claiming one VNI or VLAN, the older keeps it. A name keeps the time of its first use.
const created = new Map<string, string>();
const creationTimestamp = (key: string) => {
  if (!created.has(key)) created.set(key, new Date(Date.UTC(2026, 0, 1) + created.size * 1000).toISOString());
  return created.get(key)!;
};
export const vrf = (name: string, generation: number, spec: Record<string, unknown>): IntentObject => ({
  apiVersion: API_VERSION,
  kind: 'VRF',
  metadata: {
    name,
    generation,
    creationTimestamp: creationTimestamp(`VRF/${name}`),
  } as IntentObject['metadata'],
  spec,
});
export const layer2 = (name: string, generation: number, spec: Record<string, unknown>): IntentObject => ({
  apiVersion: API_VERSION,
  kind: 'Layer2Network',
  metadata: {
    name,
    generation,
    creationTimestamp: creationTimestamp(`Layer2Network/${name}`),
  } as IntentObject['metadata'],
  spec,
});

/** Links fabrik's agent-netns owns in the node's HBR netns, by name, with their master and up state. */
export async function ownedLinks(
  node: LabNode,
): Promise<Map<string, { kind: string; master: string | null; up: boolean }>> {
  const links = await node.hbrNetlink.linkList();
  return new Map(
    links
      .filter((l) => l.alias?.startsWith('fabrik:agent-netns'))
      .map((l) => [l.spec.name, { kind: l.spec.kind, master: l.spec.master, up: l.spec.up }]),
  );
}

/**
 * A Pod: a netns holding a VLAN sub-interface `eth0` of the host side of the trunk, with an
 * address and a default route through `gateway`.
 */
export async function addPod(
  node: LabNode,
  name: string,
  vlan: number,
  address: string,
  gateway?: string,
): Promise<void> {
  await runCommand('ip', ['netns', 'add', name]);
  const tmp = `p${vlan}x${Math.floor(Math.random() * 1e6)}`.slice(0, 15);
  await runCommand('ip', ['-n', node.host, 'link', 'set', TRUNK_HOST, 'up']);
  await runCommand('ip', [
    '-n',
    node.host,
    'link',
    'add',
    'link',
    TRUNK_HOST,
    'name',
    tmp,
    'type',
    'vlan',
    'id',
    String(vlan),
  ]);
  await runCommand('ip', ['-n', node.host, 'link', 'set', tmp, 'netns', name]);
  for (const args of [
    ['link', 'set', 'lo', 'up'],
    ['link', 'set', tmp, 'name', 'eth0'],
    ['addr', 'add', address, 'dev', 'eth0'],
    ['link', 'set', 'eth0', 'up'],
    ...(gateway ? [['route', 'add', 'default', 'via', gateway]] : []),
  ])
    await runCommand('ip', ['-n', name, ...args]);
  // A Pod that has come up talks (ARP for its gateway): its node learns it and advertises it over
  // EVPN. A host that never sent anything is not reachable behind anycast gateways: the remote
  // gateways' ARP requests carry the same MAC as the local one.
  if (gateway) await runInNetns(name, 'ping', ['-c', '1', '-W', '2', gateway]).catch(() => {});
}

/** Prints the last log lines of every agent (after a failed test). */
export function dumpAgentLogs(nodes: readonly LabNode[], lines = 40): void {
  for (const n of nodes) {
    if (!n.agent) continue;
    const tail = n.agent.logs.slice(-lines).map((l) => JSON.stringify(l));
    console.log(
      `--- agent on node ${n.id} (last ${tail.length} lines) ---\n${tail.join('\n')}\n${n.agent.stderr()}`,
    );
  }
}

export async function deletePod(name: string): Promise<void> {
  await runCommand('ip', ['netns', 'del', name]).catch(() => {});
}

/** True when `from` gets an answer from `to` within a few tries. */
export async function pings(from: string, to: string, tries = 10): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    try {
      await runInNetns(from, 'ping', ['-c', '1', '-W', '1', to]);
      return true;
    } catch {
      /* try again: EVPN routes take a moment */
    }
  }
  return false;
}
