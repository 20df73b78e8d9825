import type { FrrFilter } from '@fabrik/api';
import type { FrrIntentIssue, FrrVrfIntent } from '../../intent.js';
import { frrObjectNames } from '../names.js';
import type { MatchClause, Policy, PolicyObjects } from '../policy.js';
import type { FrrIbgpLinkModel } from '../types.js';

// How routes leak between VRFs is what tells the template sets apart: netns imports with
// `import vrf`, vrf-ibgp sends them over an iBGP session per VRF through the default VRF. Each
// set is one LeakStrategy; the rest of the model does not know which one it has.

/** What a template set renders for the leaks into one VRF. */
export interface VrfLeaks {
  /** Sorted names for `import vrf NAME` (netns). */
  readonly importVrfs: readonly string[];
  /** `import vrf route-map NAME` (netns). */
  readonly importRouteMap: string | null;
  /** The iBGP session to the default VRF (vrf-ibgp). */
  readonly ibgp: FrrIbgpLinkModel | null;
}

export interface LeakStrategy {
  /** What this set cannot express of the intent, every problem with its path. */
  refusals(): FrrIntentIssue[];
  /** Router ID and route distinguisher (null: FRR derives it) of a VRF's BGP instance. */
  identity(vrf: FrrVrfIntent): { readonly routerId: string; readonly rd: string | null };
  /** The leaks into `vrfs[index]`. */
  leaks(vrf: FrrVrfIntent, index: number): VrfLeaks;
  /**
   * Adds to the underlay's outbound route-map what must never reach the underlay besides the
   * loop guard's tagged routes (entries 6-19); true when it added any.
   */
  keepOutOfUnderlay(outbound: Policy, routeMap: string): boolean;
}

/** One entry of `importVrfs`. */
export interface ImportSource {
  readonly name: string;
  /** The source's own filter; null: the VRF's `import` applies. */
  readonly filter: FrrFilter | null;
  /** Its index in `importVrfs`. */
  readonly index: number;
}

/** `importVrfs` as sources, each with its own filter or none. */
export function importSources(vrf: FrrVrfIntent): ImportSource[] {
  return vrf.importVrfs.map((e, index) =>
    typeof e === 'string' ? { name: e, filter: null, index } : { name: e.vrf, filter: e.filter, index },
  );
}

/** The policy owners of the leaks into `vrfs[index]`. */
export function leakOwners(policy: PolicyObjects, vrf: FrrVrfIntent, index: number) {
  return {
    /** The route-map that decides what leaks into the VRF. */
    leakRouteMap: policy.for({
      path: `vrfs[${index}].importVrfs`,
      what: `the leak route-map of VRF ${vrf.name}`,
    }),
    /** The VRF's `import`. */
    importFilter: policy.for({ path: `vrfs[${index}].import`, what: `the import filter of VRF ${vrf.name}` }),
    /** The filter of one source. */
    source: (s: ImportSource) =>
      policy.for({
        path: `vrfs[${index}].importVrfs[${s.index}]`,
        what: `the filter of VRF ${vrf.name}'s leak from ${s.name}`,
      }),
  };
}

/**
 * Entry `seq` of `routeMap` (the leak route-map) for the sources without a filter of their own:
 * the VRF's `import` as a called filter, as prefix rules, or (empty) everything; `matches` first.
 */
export function importFilterEntries(
  owners: ReturnType<typeof leakOwners>,
  vrf: FrrVrfIntent,
  routeMap: string,
  seq: number,
  matches: readonly MatchClause[] = [],
): void {
  const common = vrf.import;
  if (!Array.isArray(common)) {
    const called = frrObjectNames.importFilterRouteMap(vrf.name);
    owners.importFilter.filter(called, common);
    owners.leakRouteMap.entry(routeMap, 'permit', seq, { matches, call: called });
  } else if (common.length > 0) {
    const list = frrObjectNames.importPrefixList(vrf.name);
    owners.leakRouteMap.matchPrefixRules(routeMap, list, common, seq, matches, owners.importFilter);
  } else {
    owners.leakRouteMap.entry(routeMap, 'permit', seq, { matches });
  }
}
