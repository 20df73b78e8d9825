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

/** `ip [-n NODE] ARGS...`: in the node, or in this namespace for an end without one. */
const ipIn = (node: string | undefined, ...args: string[]) =>
  runCommand('ip', node === undefined ? args : ['-n', node, ...args]);

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
  const inNode = (end: LinkEnd) => (end.node === undefined ? [] : ['netns', end.node]);
  try {
    for (const node of topology.nodes) {
      await netnsAdd(node);
      created.push(node);
      await runCommand('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
    }
    for (const { a, b } of topology.links) {
      await runCommand('ip', [
        'link',
        'add',
        a.ifname,
        ...inNode(a),
        'type',
        'veth',
        'peer',
        'name',
        b.ifname,
        ...inNode(b),
      ]);
      for (const end of [a, b]) {
        for (const addr of end.addresses ?? []) await ipIn(end.node, 'addr', 'add', addr, 'dev', end.ifname);
        await ipIn(end.node, 'link', 'set', end.ifname, 'up');
      }
    }
    for (const r of topology.routes ?? []) await ipIn(r.node, 'route', 'add', r.to, 'via', r.via);
  } catch (e) {
    await destroy();
    throw e;
  }
  return { topology, destroy };
}
