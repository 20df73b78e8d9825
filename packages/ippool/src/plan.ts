import type { IpAddressState, IpPool, IpPoolStatus, PodOwner } from '@fabrik/api';
import { formatAddress, parseAddress } from './address.js';
import { firstFree, poolSpace, spaceContains, type PoolSpace } from './pool-space.js';

// Pure planning over one IPPool as read from the API server: which address an attachment gets,
// which entries a release removes, and the status to write back. The allocator writes the planned
// status with the resourceVersion it read; these functions never see the network.

/** An attachment: what CNI calls a container's interface (CNI_CONTAINERID, CNI_IFNAME). */
export interface AttachmentRef {
  readonly containerID: string;
  readonly ifName: string;
}

export type AllocationPlan =
  /** The attachment has this address already (a repeated ADD): nothing to write. */
  | { readonly kind: 'existing'; readonly address: string }
  /** Write `status` (the new entry included) to take `address`. */
  | { readonly kind: 'allocate'; readonly address: string; readonly status: IpPoolStatus }
  /** Every address of the pool is taken. */
  | { readonly kind: 'exhausted'; readonly usage: Usage }
  /** The requested address cannot be given (outside the pool, reserved, or another owner's). */
  | { readonly kind: 'unavailable'; readonly address: string; readonly reason: string };

export interface ReleasePlan {
  /** The entries the release removes. */
  readonly released: readonly IpAddressState[];
  /** The status to write; undefined when nothing changes. */
  readonly status: IpPoolStatus | undefined;
}

export interface Usage {
  /** Addresses the pool can allocate (capped at Number.MAX_SAFE_INTEGER for large IPv6 ranges). */
  readonly total: number;
  /** Addresses allocated or reserved. */
  readonly used: number;
}

/** True when the entry is the address allocated to the attachment. */
export function isAllocatedTo(entry: IpAddressState, ref: AttachmentRef): boolean {
  const pod = entry.owner.pod;
  return entry.phase === 'Allocated' && pod?.containerID === ref.containerID && pod.ifName === ref.ifName;
}

/** `status.usage` for a pool whose status lists `entries`. */
export function poolUsage(space: PoolSpace, entries: readonly IpAddressState[]): Usage {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return { total: Number(space.size < max ? space.size : max), used: entries.length };
}

/**
 * The address the attachment of `owner` gets from `pool`: the address it already has, else
 * `requested` when given, else the first free address of the pool's ranges (never the network,
 * broadcast or gateway address).
 */
export function planAllocation(pool: IpPool, owner: PodOwner, requested?: string): AllocationPlan {
  const entries = pool.status?.ipAddresses ?? [];
  const existing = entries.find((e) => isAllocatedTo(e, owner));
  const space = poolSpace(pool.spec);
  if (existing) {
    if (requested === undefined || sameAddress(existing.ipAddress, requested))
      return { kind: 'existing', address: existing.ipAddress };
    return {
      kind: 'unavailable',
      address: requested,
      reason: `the attachment already has ${existing.ipAddress} from this pool`,
    };
  }
  const used = new Set(entries.map((e) => parseAddress(e.ipAddress).value));
  let value: bigint;
  if (requested !== undefined) {
    const wanted = parseAddress(requested);
    const problem =
      wanted.family !== space.family
        ? `the pool is IPv${space.family}`
        : space.reserved.has(wanted.value)
          ? 'it is the gateway, network or broadcast address'
          : !spaceContains(space, wanted.value)
            ? 'it is outside the pool ranges'
            : used.has(wanted.value)
              ? 'it is allocated to another attachment'
              : undefined;
    if (problem) return { kind: 'unavailable', address: requested, reason: problem };
    value = wanted.value;
  } else {
    const free = firstFree(space, used);
    if (free === undefined) return { kind: 'exhausted', usage: poolUsage(space, entries) };
    value = free;
  }
  const address = formatAddress(space.family, value);
  const entry: IpAddressState = { ipAddress: address, phase: 'Allocated', owner: { pod: { ...owner } } };
  const ipAddresses = sortByAddress([...entries, entry]);
  return { kind: 'allocate', address, status: { ipAddresses, usage: poolUsage(space, ipAddresses) } };
}

/** Removes the entries `release` selects; a pool without any is left as it is. */
export function planRelease(pool: IpPool, release: (entry: IpAddressState) => boolean): ReleasePlan {
  const entries = pool.status?.ipAddresses ?? [];
  const released = entries.filter(release);
  if (released.length === 0) return { released, status: undefined };
  const ipAddresses = entries.filter((e) => !release(e));
  return { released, status: { ipAddresses, usage: poolUsage(poolSpace(pool.spec), ipAddresses) } };
}

function sameAddress(a: string, b: string): boolean {
  const x = parseAddress(a);
  const y = parseAddress(b);
  return x.family === y.family && x.value === y.value;
}

function sortByAddress(entries: IpAddressState[]): IpAddressState[] {
  const keyed = entries.map((e) => ({ e, v: parseAddress(e.ipAddress) }));
  keyed.sort((a, b) =>
    a.v.family !== b.v.family
      ? a.v.family - b.v.family
      : a.v.value < b.v.value
        ? -1
        : a.v.value > b.v.value
          ? 1
          : 0,
  );
  return keyed.map((k) => k.e);
}
