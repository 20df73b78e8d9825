import { canonicalIp } from './ip-text.js';
import type { DesiredState } from './desired.js';
import type { ObservedState } from './observe.js';
import type { PlanOp } from './plan-ops.js';

// Neighbours and FDB entries are ensured, never deleted (the kernel, zebra and EVPN install
// their own). Entries on links in `newLinks` (created, or flushed by an mtu/mac/master change)
// are written again.

export function planNeighbours(
  desired: DesiredState,
  observed: ObservedState,
  newLinks: Set<string>,
): PlanOp[] {
  const want = desired.neighbours ?? [];
  if (want.length === 0) return [];
  const have = new Map((observed.neighbours ?? []).map((n) => [`${n.dev}|${n.address}`, n]));
  return want
    .filter((n) => {
      const h = have.get(`${n.dev}|${canonicalIp(n.address)}`);
      return (
        newLinks.has(n.dev) ||
        !h ||
        h.lladdr?.toLowerCase() !== n.lladdr.toLowerCase() ||
        !h.state.includes(n.state ?? 'permanent')
      );
    })
    .map((neigh) => ({ op: 'neigh-replace', neigh }));
}

export function planFdb(desired: DesiredState, observed: ObservedState, newLinks: Set<string>): PlanOp[] {
  const want = desired.fdb ?? [];
  if (want.length === 0) return [];
  const have = new Set(
    (observed.fdb ?? []).map((f) => `${f.dev}|${f.mac}|${f.dst ?? ''}|${f.self ? 'self' : 'master'}`),
  );
  return want
    .filter((f) => {
      const self = f.self ?? f.dst !== undefined;
      return (
        newLinks.has(f.dev) ||
        !have.has(
          `${f.dev}|${f.mac.toLowerCase()}|${f.dst === undefined ? '' : canonicalIp(f.dst)}|${self ? 'self' : 'master'}`,
        )
      );
    })
    .map((entry) => ({ op: 'fdb-add', entry }));
}
