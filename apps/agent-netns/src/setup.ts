import { hostname } from 'node:os';
import {
  AgentNetnsConfig,
  BGP_PEERING_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
  type NodeNetworkStatusSection,
} from '@fabrik/api';
import {
  ConfigError,
  createCreationJournal,
  createFileSource,
  createStatusFile,
  loadConfig,
  withSecretNamespace,
  type IntentSource,
  type StatusSink,
} from '@fabrik/agent-runtime';
import type { FrrTarget } from '@fabrik/frr';
import type { EventRecorder, KubeLogger } from '@fabrik/kube';
import { formatKubeTime } from '@fabrik/kube/labels';
import { createIprouteNetlink } from '@fabrik/netcore/netlink';
import type { HbrNode } from './apply.js';
import { createFrrState } from './frr-state.js';
import { READY_CONDITION } from './status.js';

/** agent-netns's configuration once loaded: the node's name is known. */
export type NetnsConfig = AgentNetnsConfig & { readonly nodeName: string };

/** Ownership mark of every link agent-netns creates: `fabrik:agent-netns[:label]`. */
export const OWNER = 'agent-netns';
/** The kinds agent-netns reads. */
export const INTENT_KINDS = [
  { kind: 'VRF', resource: VRF_RESOURCE },
  { kind: 'Layer2Network', resource: LAYER2_NETWORK_RESOURCE },
  { kind: 'BGPPeering', resource: BGP_PEERING_RESOURCE },
] as const;

/** Loads the YAML config (nodeName defaults to env NODE_NAME); ConfigError names file and field. */
export async function loadNetnsConfig(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<NetnsConfig> {
  const config = await loadConfig(path, AgentNetnsConfig, { env, envDefaults: { nodeName: 'NODE_NAME' } });
  if (config.nodeName === undefined)
    throw new ConfigError(path, [
      { path: 'nodeName', message: 'required (or set the environment variable NODE_NAME)' },
    ]);
  frrTarget(config, path);
  // A Kubernetes source reads the Secrets of one namespace (BGPPeering's passwordSecretRef).
  return { ...config, source: withSecretNamespace(config.source, env, path), nodeName: config.nodeName };
}

/**
 * Where FRR runs. @fabrik/frr addresses FRR by pathspace (`-N NAME`): `frr.pathspace`, else the
 * managed netns's name (FRR runs per namespace with `-N NS`, as in the lab).
 */
export function frrTarget(config: AgentNetnsConfig, file = 'config'): FrrTarget {
  const pathspace = config.frr.pathspace ?? config.netns;
  if (pathspace === undefined)
    throw new ConfigError(file, [
      {
        path: 'frr.pathspace',
        message: 'required when netns is not set (FRR is addressed by its pathspace, -N NAME)',
      },
    ]);
  return {
    pathspace,
    ...(config.netns !== undefined ? { netns: config.netns } : {}),
    // Each FRR tool run (vtysh, every frr-reload.py step of a reload) is bounded by it.
    toolTimeoutMs: config.frr.reloadTimeoutMs,
  };
}

/** The HBR namespace as agent-netns drives it. */
export function hbrNodeOf(config: NetnsConfig): HbrNode {
  return {
    // iproute2 until the agents pass the lab on the native backend every time (issue 34: on it,
    // agents died with SIGSEGV in 2 agent.lab runs of 7, all on a loaded machine; 45 of 45 tests
    // passed in 5 runs after the monitor held its poll buffer); the CNI path is native.
    netlink: createIprouteNetlink({
      ...(config.netns === undefined ? {} : { netns: config.netns }),
      journal: createCreationJournal(config.stateDir),
    }),
    frr: createFrrState(frrTarget(config)),
    owner: OWNER,
    trunk: config.trunk,
    // FRR runs in the agent's UTS namespace (the HBR container, or the lab kernel): same hostname.
    hostname: hostname(),
    vniWaitTimeoutMs: config.frr.vniWaitTimeoutMs,
  };
}

const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});

export interface Wiring {
  readonly source: IntentSource;
  readonly status?: StatusSink<NodeNetworkStatusSection>;
  readonly events?: EventRecorder;
}

/**
 * The source and, where they go, status and events, as the config's `source` says. The Kubernetes
 * modules are loaded only for a Kubernetes source (@kubernetes/client-node takes seconds to load).
 */
export async function wiringOf(config: NetnsConfig, log: KubeLogger): Promise<Wiring> {
  const source = config.source;
  if (source.kind === 'file') {
    return {
      source: createFileSource({
        path: source.path,
        kinds: INTENT_KINDS.map((k) => k.kind),
        nodeName: config.nodeName,
        requireRelayHeader: source.format === 'relay',
      }),
      ...(config.statusFile
        ? {
            status: createStatusFile<NodeNetworkStatusSection>({
              path: config.statusFile,
              // agent-host's relay takes a status older than its netnsMaxAgeSeconds for a dead agent.
              heartbeat: {
                everyMs: config.statusHeartbeatSeconds * 1000,
                stamp: (s, now) => ({ ...s, lastUpdate: formatKubeTime(now) }),
              },
            }),
          }
        : {}),
    };
  }
  const [{ createEventRecorder, loadKubeConfig }, { createKubernetesSource, createNodeStatusSink }] =
    await Promise.all([import('@fabrik/kube'), import('@fabrik/agent-runtime/kubernetes')]);
  const { kc } = loadKubeConfig(source.kubeconfig === undefined ? {} : { kubeconfig: source.kubeconfig });
  return {
    source: createKubernetesSource({
      kc,
      nodeName: config.nodeName,
      kinds: INTENT_KINDS.map((k) => ({ kind: k.kind, resource: gvr(k.resource) })),
      ...(source.secretNamespace !== undefined ? { secretNamespace: source.secretNamespace } : {}),
      log,
    }),
    status: createNodeStatusSink<NodeNetworkStatusSection>({
      kc,
      nodeName: config.nodeName,
      resource: gvr(NODE_NETWORK_STATUS_RESOURCE),
      kind: 'NodeNetworkStatus',
      section: 'netns',
      nodeConditionType: READY_CONDITION,
      ...(config.startupTaint
        ? { startupTaint: { key: config.startupTaint.key, effect: config.startupTaint.effect } }
        : {}),
      log,
    }),
    events: createEventRecorder({ kc, component: 'fabrik-agent-netns', host: config.nodeName, log }),
  };
}
