import { netnsAdd, netnsDel, runCommand } from '@fabrik/netcore';

// Lab topologies are data: namespaces ("nodes") and veth links between them with addresses.
// What runs on the nodes (fabrik's agents, FRR, OVS) is up to the scenario.

/** One end of a veth link. */
export interface LinkEnd {
  /** Node (netns) name. */
  readonly node: string;
  readonly ifname: string;
  /** Interface addresses in CIDR notation (10.0.0.1/30). */
  readonly addresses?: readonly string[];
}

export interface Topology {
  /** Network namespaces to create (names must be unique on the machine). */
  readonly nodes: readonly string[];
  /** veth pairs, each end in its node, brought up with its addresses. */
  readonly links: readonly { readonly a: LinkEnd; readonly b: LinkEnd }[];
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
      if (!nodes.has(end.node)) throw new Error(`topology: links[${i}] names unknown node ${end.node}`);
    }
  }
}

/** Creates the topology's namespaces and links. On failure, removes what it created. */
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
      await runCommand('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
    }
    for (const { a, b } of topology.links) {
      await runCommand('ip', [
        'link',
        'add',
        a.ifname,
        'netns',
        a.node,
        'type',
        'veth',
        'peer',
        'name',
        b.ifname,
        'netns',
        b.node,
      ]);
      for (const end of [a, b]) {
        for (const addr of end.addresses ?? [])
          await runCommand('ip', ['-n', end.node, 'addr', 'add', addr, 'dev', end.ifname]);
        await runCommand('ip', ['-n', end.node, 'link', 'set', end.ifname, 'up']);
      }
    }
  } catch (e) {
    await destroy();
    throw e;
  }
  return { topology, destroy };
}
