import type { KubeConfig } from '@kubernetes/client-node';
import type { IntentObject } from '@fabrik/agent-runtime';
import {
  BGP_PEERING_RESOURCE,
  IP_POOL_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NETWORK_ROLLOUT_RESOURCE,
  NODE_NETWORK_CONFIG_RESOURCE,
  NetworkRollout,
  NodeIdentity,
  VRF_RESOURCE,
  type ResourceKind,
} from '@fabrik/api';
import {
  NODES,
  NodeObject,
  apiVersionOf,
  startInformer,
  type GroupVersionResource,
  type Informer,
  type KubeLogger,
  type Parser,
} from '@fabrik/kube';
import type { ClusterState, NodeInput } from './render.js';

// The operator's view of the cluster: one supervised informer per kind it reads, and the
// snapshot rendering takes from their caches.

/** The kinds whose objects are rendered into NodeNetworkConfigs. */
export const INTENT_KINDS: readonly ResourceKind[] = [
  VRF_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  BGP_PEERING_RESOURCE,
  IP_POOL_RESOURCE,
];

/** A NodeNetworkConfig as the operator reads it back: its name, uid and recorded spec. */
export interface ExistingConfig {
  readonly metadata: {
    readonly name: string;
    readonly uid?: string;
    /** Compared as a number with the one a write returned (etcd's revision, as kube-apiserver gives it). */
    readonly resourceVersion?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: unknown;
  /** The operator's conditions and each agent's section (read by the rollout). */
  readonly status?: { readonly conditions?: unknown } & Readonly<Record<string, unknown>>;
}

/** An object of `kind` as the server has it; only its name is required (each is validated when rendered). */
const intentObjectParser =
  (resource: ResourceKind) =>
  (raw: unknown): IntentObject => {
    const o = raw as { metadata?: { name?: unknown } } | null;
    if (typeof o?.metadata?.name !== 'string') throw new Error('metadata.name: required');
    return { ...(raw as object), apiVersion: apiVersionOf(resource), kind: resource.kind } as IntentObject;
  };

const existingConfigParser = (raw: unknown): ExistingConfig => {
  const o = raw as { metadata?: { name?: unknown } } | null;
  if (typeof o?.metadata?.name !== 'string') throw new Error('metadata.name: required');
  return raw as ExistingConfig;
};

export interface ClusterInformers {
  readonly nodes: Informer<NodeObject>;
  readonly configs: Informer<ExistingConfig>;
  /** The NetworkRollout (one object; its spec pauses, its status holds the failures). */
  readonly rollouts: Informer<NetworkRollout>;
  hasSynced(): boolean;
  waitForSync(): Promise<void>;
  /** What rendering needs, from the caches now. */
  state(): ClusterState;
  stop(): Promise<void>;
}

export function startClusterInformers(options: {
  readonly kc: KubeConfig;
  readonly onChange: (reason: string) => void;
  readonly log?: KubeLogger;
}): ClusterInformers {
  const common = { kc: options.kc, ...(options.log && { log: options.log }) };
  /** One informer whose changes are reported as `<name> <key>`. */
  const watch = <T>(resource: GroupVersionResource, name: string, parse: Parser<T>) =>
    startInformer({
      ...common,
      ...resource,
      name,
      parse,
      onChange: (key) => options.onChange(`${name} ${key}`),
    });
  const nodes = watch(NODES, 'Node', NodeObject);
  const configs = watch(NODE_NETWORK_CONFIG_RESOURCE, 'NodeNetworkConfig', existingConfigParser);
  const rollouts = watch(NETWORK_ROLLOUT_RESOURCE, 'NetworkRollout', NetworkRollout);
  const intents = INTENT_KINDS.map((resource) =>
    watch(resource, resource.kind, intentObjectParser(resource)),
  );
  const all: Informer<unknown>[] = [nodes, configs, rollouts, ...intents];
  return {
    nodes,
    configs,
    rollouts,
    hasSynced: () => all.every((i) => i.hasSynced()),
    waitForSync: async () => {
      await Promise.all(all.map((i) => i.waitForSync()));
    },
    state: () => ({
      nodes: nodes.list().map(nodeInputOf),
      objects: intents.flatMap((i) => i.list()),
      held: heldIdentities(configs.list()),
    }),
    stop: async () => {
      await Promise.all(all.map((i) => i.stop()));
    },
  };
}

export const nodeInputOf = (node: NodeObject): NodeInput => ({
  name: node.metadata.name,
  labels: node.metadata.labels ?? {},
  annotations: node.metadata.annotations ?? {},
});

/** The identity each NodeNetworkConfig records (one that does not parse records none). */
export function heldIdentities(configs: readonly ExistingConfig[]): Map<string, NodeIdentity> {
  const held = new Map<string, NodeIdentity>();
  for (const c of configs) {
    const identity = NodeIdentity.safeParse((c.spec as { identity?: unknown } | undefined)?.identity);
    if (identity.success) held.set(c.metadata.name, identity.data);
  }
  return held;
}
