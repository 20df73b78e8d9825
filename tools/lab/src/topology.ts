import { netnsAdd, netnsDel, runCommand } from '@fabrik/netcore';

// Lab topologies are data: namespaces ("nodes") and veth links between them with addresses.
// What runs on the nodes (fabrik's agents, FRR, OVS) is up to the scenario.

/** One end of a veth link. */
export interface LinkEnd {
  /**
   * Node (netns) name; absent: the namespace the topology is built from (the lab's own, where a
   * scenario runs its control plane, such as the API server).
   */
  readonly node?: string;
  readonly ifname: string;
  /** Interface addresses in CIDR notation (10.0.0.1/30). */
  readonly addresses?: readonly string[];
}

/** A static route in a node: `ip -n NODE route add TO via VIA`. */
export interface StaticRoute {
  readonly node: string;
  readonly to: string;
  readonly via: string;
}

export interface Topology {
  /** Network namespaces to create (names must be unique on the machine). */
  readonly nodes: readonly string[];
  /** veth pairs, each end in its node, brought up with its addresses. */
  readonly links: readonly { readonly a: LinkEnd; readonly b: LinkEnd }[];
  /** Routes added once the links are up. */
  readonly routes?: readonly StaticRoute[];
}

export interface BuiltTopology {
  readonly topology: Topology;
  /** Deletes every node netns (and with them the links); safe to call twice. */
  destroy(): Promise<void>;
}

function validate(t: Topology): void {
  const nodes = new Set(t.nodes);
  if (nodes.size !== t.nodes.length) throw new Error('topology: duplicate node names');
  for (const [i, l] of t.links.entries()) {
    for (const end of [l.a, l.b]) {
      if (end.node !== undefined && !nodes.has(end.node))
        throw new Error(`topology: links[${i}] names unknown node ${end.node}`);
    }
    if (l.a.node === undefined && l.b.node === undefined)
      throw new Error(`topology: links[${i}] has both ends in the lab's own namespace`);
  }
  for (const [i, r] of (t.routes ?? []).entries())
    if (!nodes.has(r.node)) throw new Error(`topology: routes[${i}] names unknown node ${r.node}`);
}

/** One `ip -batch` of `lines` in `node` (or in this namespace); nothing when there are none. */
async function ipBatch(node: string | undefined, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  const args = node === undefined ? ['-batch', '-'] : ['-n', node, '-batch', '-'];
  await runCommand('ip', args, { input: `${lines.join('\n')}\n` });
}

/**
 * The `ip -batch` lines of a topology: veth pairs created from this namespace straight into their
 * nodes, then per namespace (undefined: this one) addresses, links up and routes. Few processes:
 * every one costs about a second in the lab kernel.
 */
export function topologyBatches(topology: Topology): {
  readonly create: string[];
  readonly configure: Map<string | undefined, string[]>;
} {
  const inNode = (end: LinkEnd) => (end.node === undefined ? '' : ` netns ${end.node}`);
  const create = topology.links.map(
    ({ a, b }) => `link add ${a.ifname}${inNode(a)} type veth peer name ${b.ifname}${inNode(b)}`,
  );
  const configure = new Map<string | undefined, string[]>(topology.nodes.map((n) => [n, ['link set lo up']]));
  const lines = (node: string | undefined) => {
    const list = configure.get(node) ?? [];
    configure.set(node, list);
    return list;
  };
  for (const { a, b } of topology.links)
    for (const end of [a, b]) {
      const list = lines(end.node);
      for (const addr of end.addresses ?? []) list.push(`addr add ${addr} dev ${end.ifname}`);
      list.push(`link set ${end.ifname} up`);
    }
  for (const r of topology.routes ?? []) lines(r.node).push(`route add ${r.to} via ${r.via}`);
  return { create, configure };
}

/**
 * Creates the topology's namespaces and links. On failure, removes what it created (a link with an
 * end in this namespace goes with the node at its other end).
 */
export async function buildTopology(topology: Topology): Promise<BuiltTopology> {
  validate(topology);
  const created: string[] = [];
  const destroy = async () => {
    for (const n of created.splice(0).reverse()) await netnsDel(n);
  };
  try {
    for (const node of topology.nodes) {
      await netnsAdd(node);
      created.push(node);
    }
    const { create, configure } = topologyBatches(topology);
    await ipBatch(undefined, create);
    await Promise.all([...configure].map(([node, lines]) => ipBatch(node, lines)));
  } catch (e) {
    await destroy();
    throw e;
  }
  return { topology, destroy };
}
