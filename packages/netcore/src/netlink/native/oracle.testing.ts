import type { TempNetns } from '@fabrik/testkit';
import { createRunner } from '../exec.js';
import { decodeDumps, dumpNamespace, type ObservedState } from '../observe.js';
import { observeScopeOf } from '../plan.js';
import type { DesiredState } from '../desired.js';

// Test helper of the differential tests (host and lab): a namespace as the iproute2 oracle reads it.

/** The namespace as iproute2 reads it, without what differs between two namespaces by nature (indexes). */
export async function oracleView(ns: TempNetns, desired: DesiredState) {
  const scope = { ...observeScopeOf(desired), routes: true, neighbours: true, fdb: true };
  const s: ObservedState = decodeDumps(await dumpNamespace(createRunner(ns.name), scope), scope);
  const sorted = <T>(xs: readonly T[] | undefined, key: (x: T) => string) =>
    [...(xs ?? [])].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    links: sorted(s.links, (l) => l.spec.name).map(({ ifindex: _i, linkNetnsId: _n, ...l }) => ({
      ...l,
      // Without the kernel's IPv6 link-local addresses: they come when DAD lets them, at any time.
      addresses: sorted(
        l.addresses?.filter((a) => !a.address.startsWith('fe80:')),
        (a) => a.address,
      ),
    })),
    routes: sorted(s.routes, (r) => JSON.stringify(r)),
    neighbours: sorted(
      s.neighbours?.filter((n) => n.state.includes('permanent')),
      (n) => n.address,
    ),
    fdb: sorted(
      // Learnt entries and the multicast ones the kernel adds as addresses come (33:33:...) differ by timing.
      s.fdb?.filter((f) => f.state !== '' && (parseInt(f.mac.slice(0, 2), 16) & 1) === 0),
      (f) => JSON.stringify(f),
    ),
    sysctls: Object.fromEntries(s.sysctls ?? []),
  };
}
