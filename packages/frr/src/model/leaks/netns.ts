import type { FrrIntent, FrrVrfIntent } from '../../intent.js';
import { frrObjectNames } from '../names.js';
import type { PolicyObjects } from '../policy.js';
import { compareText } from '../printing.js';
import {
  importFilterEntries,
  importSources,
  leakOwners,
  type LeakStrategy,
  type VrfLeaks,
} from './leak-strategy.js';

/**
 * Template set netns: `import vrf NAME` in each VRF's unicast families, filtered by `import vrf
 * route-map fabrik-VRF-import` when a source has a filter or `import` is given.
 */
export function netnsLeaks(intent: FrrIntent, policy: PolicyObjects): LeakStrategy {
  return {
    refusals: () => [],
    identity: () => ({ routerId: intent.routerId, rd: null }),
    leaks: (vrf, index): VrfLeaks => ({
      importVrfs: importSources(vrf)
        .map((s) => s.name)
        .sort(compareText),
      importRouteMap: importRouteMap(vrf, index, policy),
      ibgp: null,
    }),
    keepOutOfUnderlay: () => false,
  };
}

/**
 * The route-map of `import vrf route-map`, when any leak is filtered. Sources with a filter of
 * their own are matched first (`match source-vrf`, `call` their filter); the VRF's `import`
 * filters the rest.
 */
function importRouteMap(vrf: FrrVrfIntent, index: number, policy: PolicyObjects): string | null {
  const sources = importSources(vrf);
  if (sources.length === 0) return null;
  const own = sources.filter((s) => s.filter !== null).sort((a, b) => compareText(a.name, b.name));
  const commonFilters = Array.isArray(vrf.import) ? vrf.import.length > 0 : true;
  if (own.length === 0 && !commonFilters) return null;
  const owners = leakOwners(policy, vrf, index);
  const name = frrObjectNames.importRouteMap(vrf.name);
  let seq = 10;
  for (const s of own) {
    const leak = frrObjectNames.leakRouteMap(vrf.name, s.name);
    if (s.filter) owners.source(s).filter(leak, s.filter);
    owners.leakRouteMap.entry(name, 'permit', seq, {
      matches: [{ kind: 'source-vrf', vrf: s.name }],
      call: leak,
    });
    seq += 10;
  }
  if (sources.length > own.length) importFilterEntries(owners, vrf, name, seq);
  return name;
}
