import { scheduleIntent, type IntentObject } from '@fabrik/agent-runtime';
import {
  API_VERSION,
  parseIpPool,
  type IpPoolVlan,
  type NodeIdentity,
  type NodeNetworkConfig,
  type NodeNetworkConfigSpec,
  type ObjectError,
  type RenderedObject,
} from '@fabrik/api';
import type { OperatorConfig } from './config.js';
import { allocateIdentities, type IdentityProblem } from './identity/allocate.js';
import { revisionOf } from './revision.js';

// Rendering (pure): the cluster's Nodes and network objects -> one NodeNetworkConfig spec per
// Node. The objects a node gets are chosen by the agents' own scheduling (validation, nodeSelector,
// conflicts between objects: @fabrik/agent-runtime's scheduleIntent), so the operator and an agent
// reading the objects itself select the same ones.

/** A Node as rendering needs it. */
export interface NodeInput {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** Everything rendering reads, as the informers hold it. */
export interface ClusterState {
  readonly nodes: readonly NodeInput[];
  /** VRFs, Layer2Networks, BGPPeerings and IPPools as the API server holds them. */
  readonly objects: readonly IntentObject[];
  /** The identity each existing NodeNetworkConfig records, by its name (deleted Nodes' too). */
  readonly held: ReadonlyMap<string, NodeIdentity>;
}

/** One node's rendering. */
export interface RenderedNode {
  readonly name: string;
  readonly spec: NodeNetworkConfigSpec;
  /** Why the node has no identity (spec.identity is absent then). */
  readonly identityProblems: readonly IdentityProblem[];
  /** Objects not given to the node: invalid or in conflict, with the field at fault. */
  readonly objectErrors: readonly ObjectError[];
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** The object as its node's agents get it: name, generation, age, and its spec without nodeSelector. */
function renderedObject(o: IntentObject): RenderedObject {
  const { nodeSelector: _selected, ...spec } = (o.spec ?? {}) as Record<string, unknown>;
  const created = (o.metadata as { creationTimestamp?: unknown }).creationTimestamp;
  return {
    name: o.metadata.name,
    ...(o.metadata.generation !== undefined && { generation: o.metadata.generation }),
    ...(typeof created === 'string' && { creationTimestamp: created }),
    spec,
  };
}

/** The VLAN of each valid IPPool that names one (IPPools are not selected per node). */
function ipPoolVlans(objects: readonly IntentObject[]): IpPoolVlan[] {
  const out: IpPoolVlan[] = [];
  for (const o of objects) {
    if (o.kind !== 'IPPool') continue;
    const pool = parseIpPool(o);
    const vlan = pool.ok ? pool.value.spec.subnetInfo.vlan : undefined;
    if (vlan !== undefined) out.push({ ipPool: o.metadata.name, vlan });
  }
  return out.sort((a, b) => byName({ name: a.ipPool }, { name: b.ipPool }));
}

/** The spec of one node (its revision included), from what is selected for it and its identity. */
export function renderNode(
  config: OperatorConfig,
  node: NodeInput,
  objects: readonly IntentObject[],
  identity: NodeIdentity | undefined,
  pools: readonly IpPoolVlan[] = ipPoolVlans(objects),
): { spec: NodeNetworkConfigSpec; objectErrors: readonly ObjectError[] } {
  const scheduled = scheduleIntent(
    { objects, node: { name: node.name, labels: node.labels }, problems: [] },
    { hbrVrf: config.hbrVrf },
  );
  const chosen = new Set(
    [...scheduled.vrfs, ...scheduled.layer2Networks, ...scheduled.bgpPeerings].map(
      (o) => `${o.kind}/${o.metadata.name}`,
    ),
  );
  const of = (kind: string) =>
    objects
      .filter((o) => o.kind === kind && chosen.has(`${kind}/${o.metadata.name}`))
      .map(renderedObject)
      .sort(byName);
  const body: Omit<NodeNetworkConfigSpec, 'revision'> = {
    ...(identity && { identity }),
    ...(config.underlay && { underlay: config.underlay }),
    vrfs: of('VRF'),
    layer2Networks: of('Layer2Network'),
    bgpPeerings: of('BGPPeering'),
    ipPoolVlans: [...pools],
    ...(config.hostBridges && { hostBridges: config.hostBridges }),
  };
  return { spec: { ...body, revision: revisionOf(body) }, objectErrors: scheduled.objectErrors };
}

/** Every Node's spec: identities allocated for all of them at once, then each node rendered. */
export function renderCluster(config: OperatorConfig, state: ClusterState): RenderedNode[] {
  const { identities, problems } = allocateIdentities(
    {
      routerIds: config.identity.routerIdPool,
      vtepIps: config.identity.vtepPool,
      asn: config.identity.asn,
    },
    state.nodes,
    state.held,
  );
  const pools = ipPoolVlans(state.objects);
  return [...state.nodes].sort(byName).map((node) => {
    const { spec, objectErrors } = renderNode(config, node, state.objects, identities.get(node.name), pools);
    return {
      name: node.name,
      spec,
      identityProblems: problems.filter((p) => p.node === node.name),
      objectErrors,
    };
  });
}

/** The whole object the operator applies for a rendered node (its spec only: status is the agents'). */
export function nodeNetworkConfigOf(rendered: Pick<RenderedNode, 'name' | 'spec'>): NodeNetworkConfig {
  return {
    apiVersion: API_VERSION,
    kind: 'NodeNetworkConfig',
    metadata: { name: rendered.name },
    spec: rendered.spec,
  };
}
