import type { IpPoolSpec } from '@fabrik/api';
import { bitsOf, networkBounds, parseAddress, type IpFamily } from './address.js';

// The addresses a pool can hand out: its ranges in the order the spec lists them, without the
// subnet's network and broadcast address, the gateway, and the network and broadcast address of
// each `cidr` range (the CRD documents a cidr range as "without its network and broadcast
// address"). IPv6 has no broadcast, but the last address of a prefix is left out too: the top of
// a subnet holds reserved anycast addresses (RFC 2526), and a pool that leaves both ends out is the
// same rule for both families. Point-to-point prefixes (/31 and /32, /127 and /128) have no
// network or broadcast address to leave out (RFC 3021).

/** Inclusive interval of addresses. */
export interface AddressInterval {
  readonly first: bigint;
  readonly last: bigint;
}

export interface PoolSpace {
  readonly family: IpFamily;
  /** Allocatable addresses, range by range in spec order (IpPoolSpec refuses overlapping ranges). */
  readonly intervals: readonly AddressInterval[];
  /** How many addresses the intervals hold. */
  readonly size: bigint;
  /** Addresses that are never allocated: the gateway and the network/broadcast addresses. */
  readonly reserved: ReadonlySet<bigint>;
}

/** The network and broadcast address of a prefix that has them. */
function ends(family: IpFamily, value: bigint, prefixLength: number): bigint[] {
  if (prefixLength >= bitsOf(family) - 1) return [];
  const { first, last } = networkBounds(family, value, prefixLength);
  return [first, last];
}

/** The allocatable addresses of a pool spec (already validated by @fabrik/api's IpPoolSpec). */
export function poolSpace(spec: IpPoolSpec): PoolSpace {
  const gateway = parseAddress(spec.subnetInfo.gateway);
  const family = gateway.family;
  const reserved = new Set<bigint>([
    gateway.value,
    ...ends(family, gateway.value, spec.subnetInfo.prefixLength),
  ]);
  const ranges: AddressInterval[] = spec.ipRanges.map((range) => {
    if (range.cidr !== undefined) {
      const [base = '', length = ''] = range.cidr.split('/');
      const network = parseAddress(base);
      for (const end of ends(family, network.value, Number(length))) reserved.add(end);
      return networkBounds(family, network.value, Number(length));
    }
    return { first: parseAddress(range.start ?? '').value, last: parseAddress(range.end ?? '').value };
  });
  const sortedReserved = [...reserved].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const intervals = ranges.flatMap((r) => withoutPoints(r, sortedReserved));
  return { family, intervals, size: intervals.reduce((n, i) => n + i.last - i.first + 1n, 0n), reserved };
}

/** The interval split around the points (sorted ascending) that fall inside it. */
function withoutPoints(interval: AddressInterval, points: readonly bigint[]): AddressInterval[] {
  const pieces: AddressInterval[] = [];
  let first = interval.first;
  for (const p of points) {
    if (p < first || p > interval.last) continue;
    if (p > first) pieces.push({ first, last: p - 1n });
    first = p + 1n;
  }
  if (first <= interval.last) pieces.push({ first, last: interval.last });
  return pieces;
}

/** True when the pool can allocate `value` (inside a range and not reserved). */
export function spaceContains(space: PoolSpace, value: bigint): boolean {
  return space.intervals.some((i) => value >= i.first && value <= i.last);
}

/**
 * The first address of the space, in range order, that is not in `used`. Walks at most
 * `used.size` taken addresses per interval, so the cost does not depend on the size of the ranges.
 */
export function firstFree(space: PoolSpace, used: ReadonlySet<bigint>): bigint | undefined {
  for (const { first, last } of space.intervals) {
    for (let candidate = first; candidate <= last; candidate++) {
      if (!used.has(candidate)) return candidate;
    }
  }
  return undefined;
}
