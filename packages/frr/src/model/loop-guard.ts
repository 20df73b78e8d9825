import type { FrrIntent } from '../intent.js';
import { frrObjectNames, type FrrNameOwner } from './names.js';
import type { MatchClause, Policy, PolicyObjects } from './policy.js';
import type { UnderlayRouteMaps } from './sessions.js';

// The fabric loop guard: what the underlay sends is tagged on the way in; tagged routes never go
// back to the underlay and are never advertised from a VRF (type-5), so this node is no transit
// between leaves (das-schiff's TAG-FABRIC-IN / DENY-TAG-FABRIC-OUT).

const GUARD: FrrNameOwner = { path: 'fabricLoopGuard', what: 'the fabric loop guard' };
const UNDERLAY_OUT: FrrNameOwner = { path: 'underlay', what: "the underlay's outbound filter" };

/** Matches the routes the guard tagged. */
export const TAGGED_BY_GUARD: MatchClause = {
  kind: 'community',
  list: frrObjectNames.fabricCommunityList,
  exact: false,
};

/**
 * The guard's objects and the route-maps of the underlay's sessions. `keepOutOfUnderlay` adds
 * what else the underlay must not get (entries between 5 and 20 of `fabrik-underlay-out`) and
 * says whether it added any.
 */
export function underlayRouteMaps(
  intent: FrrIntent,
  policy: PolicyObjects,
  keepOutOfUnderlay: (outbound: Policy, routeMap: string) => boolean,
): UnderlayRouteMaps {
  const guard = intent.fabricLoopGuard.enabled;
  if (guard) {
    const p = policy.for(GUARD);
    p.communityList(frrObjectNames.fabricCommunityList, [intent.fabricLoopGuard.community]);
    p.entry(frrObjectNames.fabricRouteMapIn, 'permit', 10, {
      sets: [{ kind: 'community', values: [intent.fabricLoopGuard.community], additive: true }],
    });
    p.entry(frrObjectNames.evpnRouteMapOut, 'deny', 10, { matches: [TAGGED_BY_GUARD] });
    p.entry(frrObjectNames.evpnRouteMapOut, 'permit', 20);
  }
  const outbound = policy.for(UNDERLAY_OUT);
  const name = frrObjectNames.underlayRouteMapOut;
  if (guard) outbound.entry(name, 'deny', 5, { matches: [TAGGED_BY_GUARD] });
  const filtered = keepOutOfUnderlay(outbound, name) || guard;
  if (filtered) outbound.entry(name, 'permit', 20);
  return {
    in: guard ? frrObjectNames.fabricRouteMapIn : null,
    unicastOut: filtered ? name : null,
    evpnOut: guard ? frrObjectNames.evpnRouteMapOut : null,
  };
}
