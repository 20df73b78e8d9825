// Typed errors of @fabrik/ippool: a `code` to branch on and an `isX()` guard per class. Errors of
// the API server itself (unreachable, forbidden, ...) are @fabrik/kube's and pass through as they are.
import { FabrikError } from '@fabrik/api';

/** Base class of every error this package throws (codes `IPPOOL_...`). */
export abstract class IpPoolError<
  Code extends `IPPOOL_${string}` = `IPPOOL_${string}`,
> extends FabrikError<Code> {}

/** An address text that is not an IPv4 or IPv6 address. */
export class AddressSyntaxError extends IpPoolError<'IPPOOL_ADDRESS_SYNTAX'> {
  override readonly name = 'AddressSyntaxError';
  constructor(readonly text: string) {
    super('IPPOOL_ADDRESS_SYNTAX', `${JSON.stringify(text.slice(0, 64))} is not an IP address`);
  }
}

/** The IPPool does not exist. */
export class PoolNotFoundError extends IpPoolError<'IPPOOL_NOT_FOUND'> {
  override readonly name = 'PoolNotFoundError';
  constructor(
    readonly pool: string,
    options?: { cause?: unknown },
  ) {
    super('IPPOOL_NOT_FOUND', `IPPool ${pool} does not exist`, options);
  }
}

/** Every address of the pool is allocated or reserved; nothing was allocated. */
export class PoolExhaustedError extends IpPoolError<'IPPOOL_EXHAUSTED'> {
  override readonly name = 'PoolExhaustedError';
  constructor(
    readonly pool: string,
    readonly total: number,
  ) {
    super('IPPOOL_EXHAUSTED', `IPPool ${pool} is exhausted: all ${total} of its addresses are in use`);
  }
}

/** A requested address (runtimeConfig.ips, CNI_ARGS IP) cannot be given. */
export class AddressUnavailableError extends IpPoolError<'IPPOOL_ADDRESS_UNAVAILABLE'> {
  override readonly name = 'AddressUnavailableError';
  constructor(
    readonly address: string,
    /** The pool asked, or undefined when no pool of the request has the address's family. */
    readonly pool: string | undefined,
    readonly reason: string,
  ) {
    super(
      'IPPOOL_ADDRESS_UNAVAILABLE',
      `address ${address} is unavailable${pool ? ` from IPPool ${pool}` : ''}: ${reason}`,
    );
  }
}

/**
 * The pools of one request do not fit together: two of one address family, or different VLANs.
 * `index` is the position of the offending pool in the request.
 */
export class PoolSetError extends IpPoolError<'IPPOOL_INVALID_SET'> {
  override readonly name = 'PoolSetError';
  constructor(
    readonly index: number,
    readonly reason: string,
  ) {
    super('IPPOOL_INVALID_SET', reason);
  }
}

/** Concurrent writers kept winning until the deadline: try again later. */
export class PoolContendedError extends IpPoolError<'IPPOOL_CONTENDED'> {
  override readonly name = 'PoolContendedError';
  constructor(
    readonly pool: string,
    readonly attempts: number,
    options?: { cause?: unknown },
  ) {
    super(
      'IPPOOL_CONTENDED',
      `IPPool ${pool}: ${attempts} status writes lost to concurrent writers; try again later`,
      options,
    );
  }
}

const codeOf = (e: unknown): unknown => (e instanceof Error ? (e as { code?: unknown }).code : undefined);
const hasCode = (e: unknown, code: string): boolean => codeOf(e) === code;

export const isIpPoolError = (e: unknown): e is IpPoolError => {
  const code = codeOf(e);
  return typeof code === 'string' && code.startsWith('IPPOOL_');
};

export const isAddressSyntaxError = (e: unknown): e is AddressSyntaxError =>
  hasCode(e, 'IPPOOL_ADDRESS_SYNTAX');
export const isPoolNotFoundError = (e: unknown): e is PoolNotFoundError => hasCode(e, 'IPPOOL_NOT_FOUND');
export const isPoolExhaustedError = (e: unknown): e is PoolExhaustedError => hasCode(e, 'IPPOOL_EXHAUSTED');
export const isAddressUnavailableError = (e: unknown): e is AddressUnavailableError =>
  hasCode(e, 'IPPOOL_ADDRESS_UNAVAILABLE');
export const isPoolSetError = (e: unknown): e is PoolSetError => hasCode(e, 'IPPOOL_INVALID_SET');
export const isPoolContendedError = (e: unknown): e is PoolContendedError => hasCode(e, 'IPPOOL_CONTENDED');
