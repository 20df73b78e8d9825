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
