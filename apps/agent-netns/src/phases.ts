import { isOwnedBy, type DesiredState, type ObservedState } from '@fabrik/netcore/netlink';

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
