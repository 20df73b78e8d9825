import type { DesiredLink, DesiredState } from '@fabrik/netcore/netlink';
import type { FrrIntent } from '@fabrik/api';

// The HBR network namespace's kernel state in mode `netns`, derived from the same routing intent
// @fabrik/frr renders: one place decides names and tables, so kernel and FRR always agree.
//
//   L3 VRF:  vrf <name> (table) + bridge br<vni> (master vrf) + vxlan vx<vni> (master bridge)
//   hbrVrf:  vrf hbr (table), without an L3 VNI unless the intent declares it in vrfs
//   L2:      bridge br<vni> (master = its VRF or hbrVrf) + vxlan vx<vni> + vlan tr.<vid> on the trunk

/** Table of a VRF = this base + its L3 VNI: stable, readable (ends in the VNI), clear of 253-255. */
export const VRF_TABLE_BASE = 1_000_000;
/** Table of the hbrVrf when it has no L3 VNI. */
export const HBR_TABLE = VRF_TABLE_BASE;
export const VXLAN_PORT = 4789;

export interface HbrStateOptions {
  /** The trunk towards the host (veth end inside the HBR netns). Default: `tr`. */
  readonly trunk?: string;
  /** Ownership mark of every link (`fabrik:<owner>`). Default: `agent-netns`. */
  readonly owner?: string;
  /** MTU of the bridges, vxlans and VLANs. Default: the kernel's. */
  readonly mtu?: number;
  /**
   * `l3-down`: only the VRFs and L3 VNI devices, with `up` unset: new links start down, links
   * that exist keep their state (an agent restart must not take a working VRF down). Zebra must learn the VRF-to-VNI
   * mapping (FRR reload) before the L3 VNI devices come up, or it treats the L3 VNI as an L2 VNI.
   * It is a partial state: reconcile it with `{ prune: false }`, or the L2 networks it does not
   * list would be deleted.
   * `full` (default): everything, up.
   */
  readonly phase?: 'l3-down' | 'full';
}

export const bridgeName = (vni: number): string => `br${vni}`;
export const vxlanName = (vni: number): string => `vx${vni}`;
export const vrfTable = (vni: number | undefined): number =>
  vni === undefined ? HBR_TABLE : VRF_TABLE_BASE + vni;

/** The desired netlink state of the HBR netns for `intent` (already parsed by parseFrrIntent). */
export function hbrDesiredState(intent: FrrIntent, options: HbrStateOptions = {}): DesiredState {
  const trunk = options.trunk ?? 'tr';
  const full = (options.phase ?? 'full') === 'full';
  const mtu = options.mtu === undefined ? {} : { mtu: options.mtu };
  const vtep = intent.vtepIp;
  const links: DesiredLink[] = [];

  // `up` unset (phase l3-down) = leave as is; a link created without it starts down.
  const up = full ? { up: true } : {};
  const vniPair = (vni: number, master: string): DesiredLink[] => [
    {
      kind: 'bridge',
      name: bridgeName(vni),
      master,
      ...up,
      ...mtu,
      alias: `vni${vni}`,
      sysctls: { addrGenMode: 'none' },
    },
    {
      kind: 'vxlan',
      name: vxlanName(vni),
      vni,
      local: vtep,
      dstport: VXLAN_PORT,
      learning: false,
      master: bridgeName(vni),
      ...up,
      ...mtu,
      alias: `vni${vni}`,
      // EVPN answers ARP/ND for remote hosts and installs remote MACs: no flooding, no learning.
      port: { learning: false, neighSuppress: true },
    },
  ];

  const declared = new Map(intent.vrfs.map((v) => [v.name, v]));
  const vrfNames = new Set(intent.vrfs.map((v) => v.name));
  if (intent.layer2s.some((l) => (l.vrf ?? intent.hbrVrf) === intent.hbrVrf)) vrfNames.add(intent.hbrVrf);
  for (const name of [...vrfNames].sort()) {
    const vrf = declared.get(name);
    links.push({ kind: 'vrf', name, table: vrfTable(vrf?.vni), ...up, alias: 'vrf' });
    if (vrf) links.push(...vniPair(vrf.vni, name));
  }
  if (full) {
    // The trunk itself is the host agent's veth end: a parent here, never owned or changed.
    for (const l2 of [...intent.layer2s].sort((a, b) => a.vni - b.vni)) {
      links.push(...vniPair(l2.vni, l2.vrf ?? intent.hbrVrf));
      links.push({
        kind: 'vlan',
        name: `${trunk}.${l2.vlan}`,
        parent: trunk,
        id: l2.vlan,
        master: bridgeName(l2.vni),
        up: true,
        ...mtu,
        alias: `vlan${l2.vlan}`,
      });
    }
  }
  return { owner: options.owner ?? 'agent-netns', links };
}
