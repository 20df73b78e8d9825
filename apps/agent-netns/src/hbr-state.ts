import type { FrrIntent } from '@fabrik/api';
import { vrfIbgpLinkNames } from '@fabrik/frr';
import type { DesiredLink, DesiredState, RouteSpec } from '@fabrik/netcore/netlink';

// The HBR network namespace's kernel state, derived from the same routing intent @fabrik/frr
// renders: one place decides names and tables, so kernel and FRR always agree.
//
//   VRF:      vrf <name> (table) + bridge br<vni> (master vrf) + vxlan vx<vni> (master bridge)
//             vrf-ibgp mode adds a veth pair ibv<vni> (master vrf) / ibd<vni> (default VRF)
//   hbrVrf:   vrf hbr, when an L2 network joins it or a VRF leaks from it; a pre-existing hbr
//             (the HBR container's own, with hbn enslaved) is used as found, never declared
//   L2:       bridge br<vni> (master = its VRF or hbrVrf; anycast gateways and MAC) + vxlan vx<vni>
//             + vlan tr.<vid> on the trunk
//   routes:   an unreachable default (IPv4 and IPv6) in every VRF table this state declares, so a
//             lookup that misses in the VRF never falls through to the main table

/** Table of a VRF = this base + its L3 VNI: stable, readable (ends in the VNI), clear of 253-255. */
export const VRF_TABLE_BASE = 1_000_000;
/** Table of the hbrVrf when fabrik creates it and it has no L3 VNI. */
export const HBR_TABLE = VRF_TABLE_BASE;
export const VXLAN_PORT = 4789;
/** The metric of the unreachable default routes: the highest, so any real default wins. */
export const UNREACHABLE_METRIC = 4_278_198_272;

/** How an L2 network looks in the kernel besides its VNI and VLAN (a Layer2Network's spec). */
export interface Layer2Kernel {
  /** MTU of the bridge, the vxlan and tr.<vid>. Default: the state's `mtu`. */
  readonly mtu?: number;
  /** Gateway addresses with prefix length on the bridge: the same on every node (symmetric IRB). */
  readonly anycastGateways?: readonly string[];
  /** The bridge's MAC, the gateways' MAC on every node. Default: the kernel's. */
  readonly anycastMac?: string;
  /** ARP/ND suppression on the vxlan port (answered from EVPN routes). Default: true. */
  readonly neighSuppression?: boolean;
}

export interface HbrStateOptions {
  /** The trunk towards the host (veth end inside the HBR netns). Default: `tr`. */
  readonly trunk?: string;
  /** Ownership mark of every link (`fabrik:<owner>`). Default: `agent-netns`. */
  readonly owner?: string;
  /** MTU of every link that gets no other. Default: the kernel's. */
  readonly mtu?: number;
  /** Kernel details of the L2 networks, by VNI. */
  readonly layer2?: ReadonlyMap<number, Layer2Kernel>;
  /**
   * The hbrVrf device exists and is not this owner's (the HBR container created it, with its
   * table and `hbn` enslaved): it is used as found and never declared, changed or deleted.
   */
  readonly hbrVrfGiven?: boolean;
  /**
   * `l3-down`: only the VRFs and the L3 VNI devices (and vrf-ibgp's veth pairs), with `up` unset:
   * new links start down, links that exist keep their state (an agent restart must not take a
   * working VRF down). Zebra must learn the VRF-to-VNI mapping (FRR reload) before the L3 VNI
   * devices come up, or it treats the L3 VNI as an L2 VNI. A partial state: apply it without
   * pruning. `full` (default): everything, up, with the routes.
   */
  readonly phase?: 'l3-down' | 'full';
}

export const bridgeName = (vni: number): string => `br${vni}`;
export const vxlanName = (vni: number): string => `vx${vni}`;
export const vrfTable = (vni: number | undefined): number =>
  vni === undefined ? HBR_TABLE : VRF_TABLE_BASE + vni;

/** Ownership labels (`fabrik:<owner>:<label>`): what each link is for, readable in `ip link`. */
const LABEL = {
  vrf: 'vrf',
  l3vni: (vni: number) => `l3vni${vni}`,
  l2vni: (vni: number) => `l2vni${vni}`,
  vlan: (vid: number) => `vlan${vid}`,
  ibgp: (vni: number) => `ibgp${vni}`,
};

/** The desired netlink state of the HBR netns for `intent` (already parsed by parseFrrIntent). */
export function hbrDesiredState(intent: FrrIntent, options: HbrStateOptions = {}): DesiredState {
  const trunk = options.trunk ?? 'tr';
  const full = (options.phase ?? 'full') === 'full';
  const mtuOf = (mtu: number | undefined) => {
    const m = mtu ?? options.mtu;
    return m === undefined ? {} : { mtu: m };
  };
  const vtep = intent.vtepIp;
  const links: DesiredLink[] = [];
  const tables: number[] = [];

  // `up` unset (phase l3-down) = leave as is; a link created without it starts down.
  const up = full ? { up: true } : {};
  const vniPair = (vni: number, master: string, label: string, l2?: Layer2Kernel): DesiredLink[] => [
    {
      kind: 'bridge',
      name: bridgeName(vni),
      master,
      ...up,
      ...mtuOf(l2?.mtu),
      ...(l2?.anycastMac === undefined ? {} : { mac: l2.anycastMac }),
      alias: label,
      // The gateways are the same address on every node: no IPv6 duplicate address detection.
      ...(l2 === undefined
        ? {}
        : {
            addresses: (l2.anycastGateways ?? []).map((address) =>
              address.includes(':') ? { address, nodad: true } : { address },
            ),
          }),
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
      ...mtuOf(l2?.mtu),
      alias: label,
      // EVPN installs remote MACs: no learning; it answers ARP/ND for remote hosts when asked to.
      port: { learning: false, neighSuppress: l2?.neighSuppression ?? true },
    },
  ];

  const declared = new Map(intent.vrfs.map((v) => [v.name, v]));
  const vrfNames = new Set(intent.vrfs.map((v) => v.name));
  const hbrUsed =
    intent.layer2s.some((l) => (l.vrf ?? intent.hbrVrf) === intent.hbrVrf) ||
    intent.vrfs.some((v) => v.importVrfs.includes(intent.hbrVrf));
  if (hbrUsed && !options.hbrVrfGiven) vrfNames.add(intent.hbrVrf);
  for (const name of [...vrfNames].sort()) {
    const vrf = declared.get(name);
    const table = vrfTable(vrf?.vni);
    tables.push(table);
    links.push({ kind: 'vrf', name, table, ...up, alias: LABEL.vrf });
    if (!vrf) continue;
    links.push(...vniPair(vrf.vni, name, LABEL.l3vni(vrf.vni)));
    if (intent.mode === 'vrf-ibgp') {
      // The iBGP session between the VRF and the default VRF runs over this pair (unnumbered,
      // IPv6 link-local: the kernel's default address generation stays on).
      const { vrfSide, defaultSide } = vrfIbgpLinkNames(vrf.vni);
      links.push(
        {
          kind: 'veth',
          name: vrfSide,
          peer: { name: defaultSide },
          master: name,
          ...up,
          alias: LABEL.ibgp(vrf.vni),
        },
        { kind: 'veth', name: defaultSide, peer: { name: vrfSide }, ...up, alias: LABEL.ibgp(vrf.vni) },
      );
    }
  }
  if (!full) return { owner: options.owner ?? 'agent-netns', links };

  // The trunk itself is the host agent's veth end: a parent here, never owned or changed.
  for (const l2 of [...intent.layer2s].sort((a, b) => a.vni - b.vni)) {
    const kernel = options.layer2?.get(l2.vni) ?? {};
    links.push(...vniPair(l2.vni, l2.vrf ?? intent.hbrVrf, LABEL.l2vni(l2.vni), kernel));
    links.push({
      kind: 'vlan',
      name: `${trunk}.${l2.vlan}`,
      parent: trunk,
      id: l2.vlan,
      master: bridgeName(l2.vni),
      up: true,
      ...mtuOf(kernel.mtu),
      alias: LABEL.vlan(l2.vlan),
    });
  }
  const routes: RouteSpec[] = tables.flatMap((table) => [
    { dst: 'default', family: 'inet', type: 'unreachable', table, metric: UNREACHABLE_METRIC },
    { dst: 'default', family: 'inet6', type: 'unreachable', table, metric: UNREACHABLE_METRIC },
  ]);
  return { owner: options.owner ?? 'agent-netns', links, routes };
}
