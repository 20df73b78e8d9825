import type { Topology } from '@fabrik/lab';

// The default lab: two Kubernetes-like nodes, each a host netns (OVS, Pods' host-side veths)
// plus an HBR netns (FRR, VXLAN, the trunk's far end), joined by an underlay between the HBRs.
//
//   pod a1 (vlan 100) ─┐                                           ┌─ pod b1 (vlan 100)
//   pod a2 (vlan 200) ─┤ OVS br-sec ── trunk ── HBR a ═ underlay ═ HBR b ── trunk ── OVS br-sec ├─ pod b2 (vlan 200)
//                       (host a netns)  tr-host/tr     192.0.2.0/30          (host b netns)

export interface PodSpec {
  /** The Pod's netns. Its address comes from IPAM (host-local, a range per node). */
  readonly name: string;
  readonly vlan: number;
}

export interface LabNode {
  readonly id: 'a' | 'b';
  readonly host: string;
  readonly hbr: string;
  readonly vtep: string;
  readonly peerVtep: string;
  readonly underlayIf: string;
  readonly pods: readonly PodSpec[];
}

/** The L2 networks of the default lab: VLAN on the trunk -> L2 VNI. */
export const LAB_NETWORKS = [
  { vlan: 100, vni: 2100, subnet: '10.100.0.0/24' },
  { vlan: 200, vni: 2200, subnet: '10.200.0.0/24' },
] as const;

/** The L3 VNI / VRF both nodes define. */
export const LAB_VRF = { name: 'red', vni: 1001 } as const;

export const OVS_BRIDGE = 'br-sec';
export const TRUNK_HOST_IF = 'tr-host';
export const TRUNK_HBR_IF = 'tr';

/** Node descriptions; `prefix` keeps concurrent runs apart (netns names are machine-wide). */
export function labNodes(prefix: string): [LabNode, LabNode] {
  const node = (id: 'a' | 'b', vtep: string, peerVtep: string): LabNode => ({
    id,
    host: `${prefix}${id}-host`,
    hbr: `${prefix}${id}-hbr`,
    vtep,
    peerVtep,
    underlayIf: `u${id}`,
    pods: [
      { name: `${prefix}${id}-pod1`, vlan: 100 },
      { name: `${prefix}${id}-pod2`, vlan: 200 },
    ],
  });
  return [node('a', '192.0.2.1', '192.0.2.2'), node('b', '192.0.2.2', '192.0.2.1')];
}

/** Namespaces and links of the lab as data (tools/lab builds it). Pods are added by the CNI plugin. */
export function labTopology(nodes: readonly LabNode[]): Topology {
  const [a, b] = nodes as [LabNode, LabNode];
  return {
    nodes: nodes.flatMap((n) => [n.host, n.hbr, ...n.pods.map((p) => p.name)]),
    links: [
      {
        a: { node: a.hbr, ifname: a.underlayIf, addresses: [`${a.vtep}/30`] },
        b: { node: b.hbr, ifname: b.underlayIf, addresses: [`${b.vtep}/30`] },
      },
      ...nodes.map((n) => ({
        a: { node: n.host, ifname: TRUNK_HOST_IF },
        b: { node: n.hbr, ifname: TRUNK_HBR_IF },
      })),
    ],
  };
}
