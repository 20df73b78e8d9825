import type { Topology } from '@fabrik/lab';

// The lab cluster: two Kubernetes nodes, each a host netns (agent-host, Open vSwitch, the Pods'
// host-side veths, the CNI plugins) plus an HBR netns (agent-netns, FRR, VXLAN, the trunk's far
// end), the nodes' HBRs joined by an underlay, and each host netns linked to the lab's own
// namespace, where the API server runs (its address is routed through that link).
//
//                      lab namespace: API server on 10.250.255.1
//                 10.250.1.1 /            \ 10.250.2.1
//        eth0 10.250.1.2                    eth0 10.250.2.2
//   host a: OVS br-sec ── tr-host ═ tr ── HBR a ═ underlay ═ HBR b ── tr ═ tr-host ── OVS br-sec: host b
//   (pods a*)                             192.0.2.1    192.0.2.2                         (pods b*)

/** Where the API server is reached from the nodes (held in the lab's namespace). */
export const API_ADDRESS = '10.250.255.1';
export const OVS_BRIDGE = 'br-sec';
export const TRUNK_HOST_IF = 'tr-host';
export const TRUNK_HBR_IF = 'tr';
export const HBR_VRF = 'hbr';
export const ASN = 65000;

export interface ClusterNode {
  readonly id: 'a' | 'b';
  /** The Kubernetes Node's name. */
  readonly name: string;
  /** The node's host network namespace. */
  readonly host: string;
  /** The HBR container's network namespace (also FRR's pathspace). */
  readonly hbr: string;
  readonly vtep: string;
  readonly peerVtep: string;
  readonly underlayIf: string;
  /** The node's address towards the lab namespace, and the lab's end of that link. */
  readonly mgmt: { readonly address: string; readonly gateway: string; readonly labIf: string };
  /** Prefix of the network namespaces of this node's Pods. */
  readonly podPrefix: string;
}

/** The two nodes; `prefix` keeps concurrent runs apart (netns and lab-side link names are machine-wide). */
export function clusterNodes(prefix: string): [ClusterNode, ClusterNode] {
  const node = (id: 'a' | 'b', n: number, vtep: string, peerVtep: string): ClusterNode => ({
    id,
    name: `node-${id}`,
    host: `${prefix}${id}-host`,
    hbr: `${prefix}${id}-hbr`,
    vtep,
    peerVtep,
    underlayIf: `u${id}`,
    mgmt: { address: `10.250.${n}.2`, gateway: `10.250.${n}.1`, labIf: `${prefix}${id}-m` },
    podPrefix: `${prefix}${id}-`,
  });
  return [node('a', 1, '192.0.2.1', '192.0.2.2'), node('b', 2, '192.0.2.2', '192.0.2.1')];
}

/** Namespaces, links and routes of the cluster as data (@fabrik/lab builds it). Pods come later. */
export function clusterTopology(nodes: readonly ClusterNode[]): Topology {
  const [a, b] = nodes as [ClusterNode, ClusterNode];
  return {
    nodes: nodes.flatMap((n) => [n.host, n.hbr]),
    links: [
      {
        a: { node: a.hbr, ifname: a.underlayIf, addresses: [`${a.vtep}/30`] },
        b: { node: b.hbr, ifname: b.underlayIf, addresses: [`${b.vtep}/30`] },
      },
      ...nodes.map((n) => ({
        a: { node: n.host, ifname: TRUNK_HOST_IF },
        b: { node: n.hbr, ifname: TRUNK_HBR_IF },
      })),
      ...nodes.map((n, i) => ({
        // The API server's address sits on the first node's link; the kernel answers for it on both.
        a: {
          ifname: n.mgmt.labIf,
          addresses: [`${n.mgmt.gateway}/30`, ...(i === 0 ? [`${API_ADDRESS}/32`] : [])],
        },
        b: { node: n.host, ifname: 'eth0', addresses: [`${n.mgmt.address}/30`] },
      })),
    ],
    routes: nodes.map((n) => ({ node: n.host, to: `${API_ADDRESS}/32`, via: n.mgmt.gateway })),
  };
}
