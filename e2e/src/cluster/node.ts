import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { runInNetns } from '@fabrik/netcore';
import { startFrr, startOvs, type FrrInstance, type OvsInstance } from '@fabrik/testkit';
import type { ControlPlane } from './control-plane.js';
import { REPO } from './control-plane.js';
import { MULTUS_BIN_DIR, MULTUS_CONF_FILE, MULTUS_SERVICE_ACCOUNT, multusConfig } from './multus.js';
import { PodRuntime, type NodeCni } from './pods.js';
import { supervise, type Supervised } from './processes.js';
import { ASN, HBR_VRF, OVS_BRIDGE, TRUNK_HBR_IF, TRUNK_HOST_IF, type ClusterNode } from './topology.js';

// One lab node as a cluster runs it: FRR in the HBR netns with agent-netns beside it (the HBR
// pod: no API credentials, intent and status through the relay directory), Open vSwitch and
// agent-host in the node's host netns (its own ServiceAccount token), and the CNI setup the
// fabrik-cni installer writes (node settings, fabrik-ipam's kubeconfig from the fabrik-cni
// ServiceAccount) beside Multus's config (its own ServiceAccount's kubeconfig). Agents run as
// processes under a supervisor that restarts them like a kubelet.

export const FABRIK_NAMESPACE = 'fabrik-system';
export const AGENT_BINS = {
  netns: join(REPO, 'apps/agent-netns/bin/fabrik-agent-netns.mjs'),
  host: join(REPO, 'apps/agent-host/bin/fabrik-agent-host.mjs'),
} as const;
export type AgentKind = keyof typeof AGENT_BINS;
const CNI_PLUGIN_DIRS = [
  MULTUS_BIN_DIR,
  join(REPO, 'apps/cni-ovs/dist'),
  join(REPO, 'apps/ipam/dist'),
  '/usr/lib/cni',
];
export const CNITOOL = join(REPO, 'node_modules/.cache/fabrik/cnitool');
/** FRR runs with the lab kernel's hostname; agent-netns renders it from its own UTS namespace. */
const FRR_BOOT_CONFIG = 'frr defaults datacenter\n!\n';

/** agent-host's metrics address (in the node's host netns). */
const HOST_METRICS = ':9731';

/** `cni_requests_total{command, result="success"}` of agent-host's metrics text (pure). */
export function cniRequestsOf(metrics: string, command: string): number {
  const line = metrics
    .split('\n')
    .find(
      (l) =>
        l.startsWith('fabrik_agent_host_cni_requests_total{') &&
        l.includes(`command="${command}"`) &&
        l.includes('result="success"'),
    );
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Where a node keeps its files (all under the run's directory). */
export interface NodePaths {
  readonly relayIntent: string;
  readonly relayStatus: string;
  readonly netnsConfig: string;
  readonly hostConfig: string;
  readonly netnsState: string;
  readonly hostState: string;
  /** fabrik-ovs's attachment records. */
  readonly cniCache: string;
  /** libcni's result cache (cnitool). */
  readonly libcniCache: string;
  /** Multus's cache (its `cniDir`), inside libcni's as on a node (/var/lib/cni/multus). */
  readonly multusCache: string;
  /** Multus's log file. */
  readonly multusLog: string;
  readonly cniSettings: string;
  readonly confDir: string;
  /** The NADs' configs for the CHECK of each attachment. */
  readonly delegateConfDir: string;
  /** agent-host's CNI socket (the fast path: fabrik-ovs hands its verbs to agent-host there). */
  readonly cniSocket: string;
}

export interface NodeRuntime {
  readonly node: ClusterNode;
  readonly paths: NodePaths;
  readonly frr: FrrInstance;
  readonly ovs: OvsInstance;
  readonly agents: Readonly<Record<AgentKind, Supervised>>;
  readonly pods: PodRuntime;
  /** How many CNI invocations of `command` agent-host answered with success on its socket (its metrics). */
  cniAnswered(command: 'ADD' | 'CHECK' | 'DEL'): Promise<number>;
  /** Stops the agents (SIGTERM: the data plane stays), OVS and FRR. */
  stop(): Promise<void>;
}

function nodePaths(dir: string): NodePaths {
  return {
    relayIntent: join(dir, 'relay', 'intent.yaml'),
    relayStatus: join(dir, 'relay', 'netns-status.json'),
    netnsConfig: join(dir, 'agent-netns.yaml'),
    hostConfig: join(dir, 'agent-host.yaml'),
    netnsState: join(dir, 'state', 'agent-netns'),
    hostState: join(dir, 'state', 'agent-host'),
    cniCache: join(dir, 'cni', 'fabrik-ovs'),
    libcniCache: join(dir, 'cni', 'libcni'),
    multusCache: join(dir, 'cni', 'libcni', 'multus'),
    multusLog: join(dir, 'multus.log'),
    cniSettings: join(dir, 'net.d', 'fabrik.d', 'config.yaml'),
    confDir: join(dir, 'net.d'),
    delegateConfDir: join(dir, 'net.d', 'delegates'),
    cniSocket: join(dir, 'cni', 'agent-host.sock'),
  };
}

/** agent-netns's config: the HBR of this node, intent from the relay file, status into the relay. */
export function agentNetnsConfig(node: ClusterNode, paths: NodePaths): Record<string, unknown> {
  return {
    nodeName: node.name,
    mode: 'netns',
    asn: ASN,
    routerId: node.vtep,
    vtepIp: node.vtep,
    hbrVrf: HBR_VRF,
    trunk: TRUNK_HBR_IF,
    underlay: { neighbors: [{ address: node.peerVtep, remoteAs: 'internal' }] },
    frr: { pathspace: node.hbr },
    source: { kind: 'file', path: paths.relayIntent },
    statusFile: paths.relayStatus,
    stateDir: paths.netnsState,
    metricsAddress: ':9721',
    healthAddress: ':9722',
  };
}

/** agent-host's config: the OVS bridge with the trunk as uplink, the API through its own token, the relay. */
export function agentHostConfig(
  node: ClusterNode,
  paths: NodePaths,
  ovsdb: string,
  kubeconfig: string,
): Record<string, unknown> {
  return {
    nodeName: node.name,
    secondaryNetwork: { ovsBridges: [{ bridgeName: OVS_BRIDGE, physicalInterfaces: [] }] },
    ovsdbSocket: ovsdb,
    datapathType: 'netdev',
    trunk: { hostInterface: TRUNK_HOST_IF, attach: 'ovs', bridge: OVS_BRIDGE },
    source: { kind: 'kubernetes', kubeconfig },
    relay: { intentFile: paths.relayIntent, statusFile: paths.relayStatus },
    stateDir: paths.hostState,
    metricsAddress: HOST_METRICS,
    healthAddress: ':9732',
    cniSocket: paths.cniSocket,
  };
}

const writeJson = async (path: string, value: unknown) => {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
};

/** Starts FRR, Open vSwitch and both agents of `node`, and writes its CNI setup. */
export async function startNode(node: ClusterNode, cp: ControlPlane, dir: string): Promise<NodeRuntime> {
  const paths = nodePaths(dir);
  const [frrStart, ovsStart] = await Promise.allSettled([
    startFrr({ netns: node.hbr, config: FRR_BOOT_CONFIG }),
    startOvs({ netns: node.host }),
  ]);
  if (frrStart.status === 'rejected' || ovsStart.status === 'rejected') {
    if (frrStart.status === 'fulfilled') await frrStart.value.stop();
    if (ovsStart.status === 'fulfilled') await ovsStart.value.stop();
    throw frrStart.status === 'rejected' ? frrStart.reason : (ovsStart as PromiseRejectedResult).reason;
  }
  const frr = frrStart.value;
  const ovs = ovsStart.value;
  try {
    // The relay directory is a volume both containers mount: it exists before either starts.
    await mkdir(join(paths.relayIntent, '..'), { recursive: true });
    const hostKubeconfig = await cp.nodeAgentKubeconfig(FABRIK_NAMESPACE, 'fabrik-agent-host', node.name);
    await writeJson(paths.netnsConfig, agentNetnsConfig(node, paths));
    await writeJson(paths.hostConfig, agentHostConfig(node, paths, ovs.endpoint, hostKubeconfig));
    // YAML as the fabrik-cni installer writes it: the plugin finds `agentHostSocket` on its own
    // line without loading a YAML parser (deploy/base/config/cni-settings.yaml).
    await mkdir(join(paths.cniSettings, '..'), { recursive: true });
    await writeFile(
      paths.cniSettings,
      stringifyYaml({
        ovsdbSocket: ovs.endpoint,
        cacheDir: paths.cniCache,
        agentHostConfig: paths.hostConfig,
        agentHostSocket: paths.cniSocket,
        ipam: { kubeconfig: await cp.serviceAccountKubeconfig(FABRIK_NAMESPACE, 'fabrik-cni') },
      }),
    );
    // Multus's config, as its installer writes it, with its ServiceAccount's kubeconfig.
    const multusKubeconfig = await cp.serviceAccountKubeconfig(
      MULTUS_SERVICE_ACCOUNT.namespace,
      MULTUS_SERVICE_ACCOUNT.name,
    );
    await writeJson(
      join(paths.confDir, MULTUS_CONF_FILE),
      multusConfig({ kubeconfig: multusKubeconfig, cniDir: paths.multusCache, logFile: paths.multusLog }),
    );
  } catch (e) {
    await ovs.stop();
    await frr.stop();
    throw e;
  }
  // The agents' V8 code caches (one per verb, see @fabrik/cni-bundle) in the node's directory, not
  // on this machine's disk: every lab run starts them cold, as a new node does.
  const agentCodeCacheEnv = {
    FABRIK_AGENT_HOST_CODE_CACHE_DIR: join(dir, 'code-cache', 'agent-host'),
    FABRIK_AGENT_NETNS_CODE_CACHE_DIR: join(dir, 'code-cache', 'agent-netns'),
  };
  const agent = (kind: AgentKind, netns: string, config: string) =>
    supervise({
      name: `agent-${kind} ${node.id}`,
      command: process.execPath,
      args: [AGENT_BINS[kind], 'run', '--config', config],
      netns,
      env: { NODE_NAME: node.name, ...agentCodeCacheEnv },
    });
  const agents = {
    host: agent('host', node.host, paths.hostConfig),
    netns: agent('netns', node.hbr, paths.netnsConfig),
  };
  const cni: NodeCni = {
    confDir: paths.confDir,
    multusCache: paths.multusCache,
    delegateConfDir: paths.delegateConfDir,
    cnitool: CNITOOL,
    env: {
      NETCONFPATH: paths.confDir,
      CNI_PATH: CNI_PLUGIN_DIRS.join(':'),
      CNITOOL_CACHE: paths.libcniCache,
      FABRIK_CNI_CONFIG: paths.cniSettings,
      // The plugins' V8 code caches in the run's directory, not on this machine's disk.
      FABRIK_OVS_CODE_CACHE_DIR: join(dir, 'cni', 'code-cache', 'fabrik-ovs'),
      FABRIK_IPAM_CODE_CACHE_DIR: join(dir, 'cni', 'code-cache', 'fabrik-ipam'),
    },
  };
  return {
    node,
    paths,
    frr,
    ovs,
    agents,
    pods: new PodRuntime(node, cni, cp.kube),
    async cniAnswered(command) {
      const { stdout } = await runInNetns(node.host, 'curl', [
        '-sf',
        `http://127.0.0.1${HOST_METRICS}/metrics`,
      ]);
      return cniRequestsOf(stdout, command);
    },
    async stop() {
      // The agents first (they talk to OVS and FRR); then OVS and FRR, which share nothing.
      await Promise.all([agents.host.stop(), agents.netns.stop()]);
      await Promise.all([ovs.stop(), frr.stop()]);
    },
  };
}
