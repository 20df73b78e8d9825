import { vniMappingKey } from './frr-state.js';
import { bridgeName, vxlanName } from './hbr-state.js';
import {
  isOwnedBy,
  type DesiredState,
  type ObservedState,
  type Plan,
  type PlanOp,
} from '@fabrik/netcore/netlink';

/**
 * The netlink state applied before FRR is reloaded (pure), the first step of the safe order:
 * - owned links the full state no longer lists are deleted (pruned), so FRR's later removal of a
 *   VRF finds it inactive (FRR refuses to delete an active VRF);
 * - new VRFs and L3 VNI devices are created down (`l3` is the l3-down phase of the same intent):
 *   zebra must learn the VRF-to-VNI mapping before the L3 VNI comes up;
 * - links that exist and stay keep their up state and get their other attributes (a master that
 *   only the full state creates waits for it);
 * - new L2 networks wait for the full state, after FRR knows the L3 VNIs.
 * Routes are left alone until the full state.
 */
export function beforeFrrState(full: DesiredState, l3: DesiredState, observed: ObservedState): DesiredState {
  const owned = new Set(observed.links.filter((l) => isOwnedBy(l.alias, full.owner)).map((l) => l.spec.name));
  const l3Names = new Set(l3.links.map((l) => l.name));
  const staying = full.links.filter((l) => !l3Names.has(l.name) && owned.has(l.name));
  // A staying link whose new master comes only with the full state (a VLAN that moves to a new
  // L2 network's bridge) keeps its master until then.
  const present = new Set([
    ...l3Names,
    ...staying.map((l) => l.name),
    ...observed.links.map((l) => l.spec.name),
  ]);
  const kept = staying.map(({ up: _up, master, ...rest }) =>
    master === undefined || master === null || present.has(master) ? { ...rest, master } : rest,
  );
  return { owner: full.owner, links: [...l3.links, ...kept] };
}

/**
 * The l3-down state with the L3 VNI devices (bridge and VXLAN) of the VRFs zebra does not map to
 * their VNI set down (pure). They exist and are up when FRR lost the VRF's configuration while the
 * kernel kept them (a restart that applied an older last good state, an FRR restart): if bgpd
 * learns the L3 VNI before the reload configures the VRF's route targets, it takes a route target
 * equal to the one it derives itself (ASN:VNI) as already there and drops it from the
 * configuration (FRR 8.4, seen in crash.lab.test.ts). Down, they come up after the mapping, as new
 * ones do.
 */
export function downUnmappedL3Vnis(
  l3: DesiredState,
  vrfs: readonly { readonly name: string; readonly vni?: number }[],
  mapped: ReadonlySet<string>,
): DesiredState {
  const down = new Set(
    vrfs
      .filter((v) => v.vni !== undefined && !mapped.has(vniMappingKey(v.name, v.vni)))
      .flatMap((v) => [bridgeName(v.vni!), vxlanName(v.vni!)]),
  );
  if (down.size === 0) return l3;
  return { ...l3, links: l3.links.map((l) => (down.has(l.name) ? { ...l, up: false } : l)) };
}

/** The link an operation changes (routes, neighbours and FDB entries name none). */
function linkOf(op: PlanOp): string | undefined {
  switch (op.op) {
    case 'link-add':
      return op.spec.name;
    case 'link-del':
    case 'link-addrgenmode':
    case 'link-set':
    case 'bridge-set':
    case 'port-set':
      return op.name;
    case 'addr-add':
    case 'addr-del':
    case 'sysctl-set':
      return op.dev;
    default:
      return undefined;
  }
}

/**
 * True when the step before FRR changes a device that carries an L3 VNI: a VRF with a VNI, its
 * bridge and VXLAN device (and vrf-ibgp's veth pair), all that the l3-down state `l3` lists but
 * the VRFs without a VNI (pure). Zebra must then learn the VRF-to-VNI mapping before they come up,
 * so the safe order runs even when FRR's configuration does not change (a VRF deleted by hand).
 */
export function touchesL3Vni(first: Plan, l3: DesiredState, vrfsWithVni: readonly string[]): boolean {
  const declared = new Set(vrfsWithVni);
  const l3Vni = new Set(l3.links.filter((l) => l.kind !== 'vrf' || declared.has(l.name)).map((l) => l.name));
  return first.ops.some((op) => {
    const link = linkOf(op);
    return link !== undefined && l3Vni.has(link);
  });
}
