import { GROUP, IpPool, VERSION, type IpAddressState, type IpPoolStatus, type PodOwner } from '@fabrik/api';
import {
  backoffDelay,
  customObjects,
  isConflictError,
  isNotFoundError,
  isServerError,
  sleep,
  type BackoffPolicy,
  type GroupVersionResource,
} from '@fabrik/kube';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAddress, type IpFamily } from './address.js';
import {
  AddressUnavailableError,
  isIpPoolError,
  PoolContendedError,
  PoolExhaustedError,
  PoolNotFoundError,
  PoolSetError,
} from './errors.js';
import { isAllocatedTo, planAllocation, planRelease, type AttachmentRef } from './plan.js';

// The allocator: plans (plan.ts) applied to IPPool objects through the API server. Every change
// is a PUT of the status subresource carrying the resourceVersion that was read, so two writers
// never both succeed from the same state: the loser gets 409 Conflict, reads the pool again and
// plans again, after a short jittered backoff. The API server is thus the only lock, shared by
// every node's plugin processes and any in-process caller (agent-host's fast path).

/** The IPPool resource. */
export const IPPOOLS: GroupVersionResource = { group: GROUP, version: VERSION, plural: 'ippools' };

/** What the allocator needs of the API: @fabrik/kube's customObjects over IPPools has it. */
export interface IpPoolClient {
  /** The pool; @fabrik/kube's NotFoundError when there is none. */
  get(name: string): Promise<IpPool>;
  /** PUT of the status subresource, `metadata.resourceVersion` a precondition (ConflictError). */
  replaceStatus(pool: IpPool): Promise<IpPool>;
}

/**
 * An IPPool client over a KubeConfig, on one keep-alive connection (a read and a write per attempt,
 * without a TLS handshake each); `timeoutMs` bounds each request (then UnreachableError).
 */
export function ipPoolClient(kc: KubeConfig, options: { timeoutMs?: number } = {}): IpPoolClient {
  return customObjects(kc, IPPOOLS, IpPool, { ...options, fieldManager: 'fabrik-ipam', keepAlive: true });
}

/**
 * Retries of lost writes: full jitter (any delay from 0 to the cap) spreads many contending
 * writers best, and the cap stays short because the winner is done after one round trip.
 */
export const POOL_CONFLICT_BACKOFF: BackoffPolicy = { initialMs: 4, maxMs: 150, factor: 2, jitter: 1 };

export interface WriteOptions {
  /** Stop retrying lost writes (409) and overloaded servers (429, 5xx) after this long. Default 30 s. */
  readonly deadlineMs?: number;
  readonly backoff?: BackoffPolicy;
  readonly signal?: AbortSignal;
  /** Random numbers in [0, 1) for the jitter. */
  readonly random?: () => number;
}

const DEFAULT_DEADLINE_MS = 30_000;

export interface AllocateRequest {
  /** Pools to allocate from, at most one per address family (one address from each). */
  readonly pools: readonly string[];
  /** Who the addresses are for; containerID and ifName identify the attachment. */
  readonly owner: PodOwner;
  /** Specific addresses (runtimeConfig.ips, CNI_ARGS IP), each taken from the pool of its family. */
  readonly requested?: readonly string[];
}

export interface PoolAllocation {
  readonly pool: string;
  readonly family: IpFamily;
  /** The address (canonical text, no prefix length). */
  readonly address: string;
  /** The prefix length of the pool's subnet. */
  readonly prefixLength: number;
  readonly gateway: string;
  /** The pool's `subnetInfo.vlan`. */
  readonly vlan: number | undefined;
  /** False when the attachment had the address already (a repeated ADD). */
  readonly created: boolean;
}

/**
 * Allocates one address from each pool for the attachment of `request.owner` and records it in
 * the pool's status. A repeated call for the same containerID and ifName returns the addresses it
 * has. When any pool fails (missing, exhausted, unreachable), the addresses this call took from
 * the others are released again before the error is thrown, so a failed call leaves nothing
 * behind unless the API server went away in the middle (then DEL or GC releases them).
 *
 * Throws PoolNotFoundError, PoolSetError (two pools of one family, different VLANs),
 * PoolExhaustedError, AddressUnavailableError, PoolContendedError, and @fabrik/kube's errors
 * (UnreachableError, ForbiddenError, ...).
 */
export async function allocate(
  client: IpPoolClient,
  request: AllocateRequest,
  options: WriteOptions = {},
): Promise<PoolAllocation[]> {
  const pools = await Promise.all(request.pools.map((name) => getPool(client, name)));
  const wanted = assignRequested(checkPoolSet(pools), request.requested ?? []);
  const outcomes = await Promise.allSettled(
    pools.map((pool, i) => allocateFrom(client, pool, request.owner, wanted[i], options)),
  );
  const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (!failure) return outcomes.map((o) => (o as PromiseFulfilledResult<PoolAllocation>).value);
  // Undo what this call took: the addresses it created, and whatever a write whose answer never
  // came (API server gone, timeout) may have created. What a previous ADD of the attachment took
  // stays (the runtime's DEL releases it), as does everything when the API server is still away
  // (then DEL or GC releases it).
  const undo = outcomes.flatMap((o, i) =>
    o.status === 'fulfilled'
      ? o.value.created
        ? [o.value.pool]
        : []
      : isIpPoolError(o.reason)
        ? []
        : [request.pools[i] ?? ''],
  );
  await release(client, { pools: undo, attachment: request.owner }, options).catch(() => undefined);
  throw failure.reason;
}

/** The allocations the attachment holds, pool by pool (undefined: none in that pool, or no pool). */
export async function findAllocations(
  client: IpPoolClient,
  pools: readonly string[],
  attachment: AttachmentRef,
): Promise<Array<PoolAllocation | undefined>> {
  return Promise.all(
    pools.map(async (name) => {
      const pool = await getPool(client, name).catch((e: unknown) => {
        if (e instanceof PoolNotFoundError) return undefined;
        throw e;
      });
      const entry = pool?.status?.ipAddresses?.find((e) => isAllocatedTo(e, attachment));
      return pool && entry ? allocationOf(pool, entry.ipAddress, false) : undefined;
    }),
  );
}

export interface ReleaseRequest {
  readonly pools: readonly string[];
  readonly attachment: AttachmentRef;
}

/** One released address. */
export interface ReleasedAddress {
  readonly pool: string;
  readonly entry: IpAddressState;
}

/**
 * Releases the attachment's addresses from the pools. Idempotent: a missing pool or a pool
 * without an entry for the attachment is success.
 */
export async function release(
  client: IpPoolClient,
  request: ReleaseRequest,
  options: WriteOptions = {},
): Promise<ReleasedAddress[]> {
  return releaseWhere(client, request.pools, (e) => isAllocatedTo(e, request.attachment), options);
}

export interface CollectRequest {
  readonly pools: readonly string[];
  /** The CNI network whose addresses are collected (`owner.pod.network`). */
  readonly network: string;
  /** The attachments of the network that are still in use (CNI GC's `cni.dev/valid-attachments`). */
  readonly valid: readonly AttachmentRef[];
}

/**
 * Garbage collection (CNI GC): releases every address the network holds in the pools for an
 * attachment that is not in `valid`. Addresses of other networks, addresses recorded without a
 * network, and Reserved addresses are never touched.
 */
export async function collectGarbage(
  client: IpPoolClient,
  request: CollectRequest,
  options: WriteOptions = {},
): Promise<ReleasedAddress[]> {
  const valid = new Set(request.valid.map((a) => attachmentKey(a.containerID, a.ifName)));
  return releaseWhere(
    client,
    request.pools,
    (e) =>
      e.phase === 'Allocated' &&
      e.owner.pod?.network === request.network &&
      !valid.has(attachmentKey(e.owner.pod.containerID, e.owner.pod.ifName)),
    options,
  );
}

const attachmentKey = (containerID: string, ifName: string): string => `${containerID}/${ifName}`;

async function releaseWhere(
  client: IpPoolClient,
  pools: readonly string[],
  select: (entry: IpAddressState) => boolean,
  options: WriteOptions,
): Promise<ReleasedAddress[]> {
  const perPool = await Promise.all(
    [...new Set(pools)].map(async (name) => {
      const pool = await getPool(client, name).catch((e: unknown) => {
        if (e instanceof PoolNotFoundError) return undefined;
        throw e;
      });
      if (!pool) return [];
      const released = await writeStatus(client, pool, options, (current) => {
        const plan = planRelease(current, select);
        return { status: plan.status, value: plan.released };
      });
      return released.map((entry) => ({ pool: name, entry }));
    }),
  );
  return perPool.flat();
}

async function getPool(client: IpPoolClient, name: string): Promise<IpPool> {
  try {
    return await client.get(name);
  } catch (e) {
    if (isNotFoundError(e)) throw new PoolNotFoundError(name, { cause: e });
    throw e;
  }
}

/** The pools of one request: one per family, one VLAN. Returns each pool's family. */
function checkPoolSet(pools: readonly IpPool[]): IpFamily[] {
  const families = pools.map((p) => parseAddress(p.spec.subnetInfo.gateway).family);
  const vlans = pools.map((p) => p.spec.subnetInfo.vlan);
  for (let i = 0; i < pools.length; i++) {
    const name = pools[i]?.metadata.name;
    const sameFamily = families.findIndex((f) => f === families[i]);
    if (sameFamily < i) {
      throw new PoolSetError(
        i,
        `IPPools ${pools[sameFamily]?.metadata.name} and ${name} are both IPv${families[i]}: give at most one pool per address family`,
      );
    }
    const otherVlan = vlans.findIndex((v) => v !== undefined && vlans[i] !== undefined && v !== vlans[i]);
    if (otherVlan >= 0 && otherVlan < i) {
      throw new PoolSetError(
        i,
        `IPPools ${pools[otherVlan]?.metadata.name} (VLAN ${vlans[otherVlan]}) and ${name} (VLAN ${vlans[i]}) are on different VLANs: one interface has one VLAN`,
      );
    }
  }
  return families;
}

/** Which requested address goes to which pool (by family); each pool gets at most one. */
function assignRequested(
  families: readonly IpFamily[],
  requested: readonly string[],
): Array<string | undefined> {
  const wanted: Array<string | undefined> = families.map(() => undefined);
  for (const address of requested) {
    const family = parseAddress(address).family;
    const i = families.indexOf(family);
    if (i < 0)
      throw new AddressUnavailableError(address, undefined, `no IPPool of the request is IPv${family}`);
    if (wanted[i] !== undefined)
      throw new AddressUnavailableError(address, undefined, `${wanted[i]} is requested from the same pool`);
    wanted[i] = address;
  }
  return wanted;
}

function allocationOf(pool: IpPool, address: string, created: boolean): PoolAllocation {
  const { gateway, prefixLength, vlan } = pool.spec.subnetInfo;
  return {
    pool: pool.metadata.name,
    family: parseAddress(gateway).family,
    address,
    prefixLength,
    gateway,
    vlan,
    created,
  };
}

async function allocateFrom(
  client: IpPoolClient,
  first: IpPool,
  owner: PodOwner,
  requested: string | undefined,
  options: WriteOptions,
): Promise<PoolAllocation> {
  const name = first.metadata.name;
  return writeStatus(client, first, options, (pool) => {
    const plan = planAllocation(pool, owner, requested);
    switch (plan.kind) {
      case 'existing':
        return { status: undefined, value: allocationOf(pool, plan.address, false) };
      case 'allocate':
        return { status: plan.status, value: allocationOf(pool, plan.address, true) };
      case 'exhausted':
        throw new PoolExhaustedError(name, plan.usage.total);
      case 'unavailable':
        throw new AddressUnavailableError(plan.address, name, plan.reason);
    }
  });
}

/**
 * The read-plan-write loop of one pool: `step` plans on the pool as read and returns the status to
 * write (undefined: nothing to write) and the caller's value. A lost write (409) or an overloaded
 * server (429, 5xx) is followed by a jittered backoff, a fresh read and a fresh plan, until the
 * deadline; then PoolContendedError (or the server's error).
 */
async function writeStatus<T>(
  client: IpPoolClient,
  first: IpPool,
  options: WriteOptions,
  step: (pool: IpPool) => { status: IpPoolStatus | undefined; value: T },
): Promise<T> {
  const deadline = performance.now() + (options.deadlineMs ?? DEFAULT_DEADLINE_MS);
  const name = first.metadata.name;
  let pool = first;
  for (let attempt = 0; ; attempt++) {
    const { status, value } = step(pool);
    if (status === undefined) return value;
    try {
      await client.replaceStatus({ ...pool, status });
      return value;
    } catch (e) {
      if (!isConflictError(e) && !isServerError(e)) throw e;
      const delay = backoffDelay(attempt, options.backoff ?? POOL_CONFLICT_BACKOFF, options.random);
      if (performance.now() + delay > deadline || options.signal?.aborted) {
        if (isServerError(e)) throw e;
        throw new PoolContendedError(name, attempt + 1, { cause: e });
      }
      await sleep(delay, options.signal);
      pool = await getPool(client, name);
    }
  }
}
