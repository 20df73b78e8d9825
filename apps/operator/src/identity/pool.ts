// The values a pool hands out, as integers in ascending order: IPv4 addresses of a CIDR (as
// unsigned 32-bit numbers) or AS numbers of a range. Pure; inputs are validated by the config.

/** A set of values to allocate from, lowest first. */
export interface ValuePool {
  /** `10.0.0.0/24`, `65001-65099`: how messages name the pool. */
  readonly description: string;
  readonly first: number;
  readonly last: number;
  contains(value: number): boolean;
}

/** `10.1.2.3` -> its unsigned 32-bit value; undefined when it is not an IPv4 address. */
export function ipv4ToNumber(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

export function numberToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/**
 * The addresses of an IPv4 CIDR that a node may get: without the network and broadcast addresses
 * when the prefix has them (up to /30), every address of a /31 or /32.
 */
export function ipv4Pool(cidr: string): ValuePool {
  const [address = '', lengthText = ''] = cidr.split('/');
  const base = ipv4ToNumber(address);
  const length = Number(lengthText);
  if (base === undefined || !Number.isInteger(length) || length < 0 || length > 32)
    throw new RangeError(`${cidr} is not an IPv4 CIDR`);
  const size = 2 ** (32 - length);
  const network = base - (base % size);
  const edges = length <= 30 ? 1 : 0;
  const first = network + edges;
  const last = network + size - 1 - edges;
  return { description: cidr, first, last, contains: (v) => v >= first && v <= last };
}

/** AS numbers BGP reserves inside the usable range (AS_TRANS, RFC 6793; 65535, RFC 7300). */
const RESERVED_ASNS: readonly number[] = [23456, 65535];

/** AS numbers `from`..`to` (inclusive), without the reserved ones. */
export function asnPool(from: number, to: number): ValuePool {
  return {
    description: `${from}-${to}`,
    first: from,
    last: to,
    contains: (v) => v >= from && v <= to && !RESERVED_ASNS.includes(v),
  };
}
