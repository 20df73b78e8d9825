import { AddressSyntaxError } from './errors.js';

// IP addresses as unsigned integers (IPv4 in 32 bits, IPv6 in 128), and back to text. Pools are
// compared and searched as numbers; addresses are written in their canonical text (dotted decimal,
// RFC 5952 for IPv6), and addresses read from a pool's status in any valid spelling compare equal.

export type IpFamily = 4 | 6;

/** An address as a number of its family. */
export interface NumericAddress {
  readonly family: IpFamily;
  readonly value: bigint;
}

/** How many bits an address of the family has. */
export const bitsOf = (family: IpFamily): 32 | 128 => (family === 4 ? 32 : 128);

const V4_OCTET = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$/;
const V6_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function parseV4(text: string): bigint | undefined {
  const octets = text.split('.');
  if (octets.length !== 4 || !octets.every((o) => V4_OCTET.test(o))) return undefined;
  return octets.reduce((n, o) => (n << 8n) | BigInt(Number(o)), 0n);
}

function parseV6(text: string): bigint | undefined {
  // An embedded IPv4 tail (::ffff:192.0.2.1) stands for the last two groups.
  let groupsText = text;
  let tail: bigint | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail = parseV4(text.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    groupsText = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = groupsText.split('::');
  if (halves.length > 2) return undefined;
  const split = (s: string): string[] | undefined => {
    if (s === '') return [];
    const g = s.split(':');
    return g.every((x) => V6_GROUP.test(x)) ? g : undefined;
  };
  const head = split(halves[0] ?? '');
  const rest = halves.length === 2 ? split(halves[1] ?? '') : [];
  if (!head || !rest) return undefined;
  let groups: string[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    if (head.length !== 8) return undefined;
    groups = head;
  }
  const value = groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
  return tail === undefined ? value : (value & ~0xffffffffn) | tail;
}

/** The address as a number; throws {@link AddressSyntaxError} when `text` is not an address. */
export function parseAddress(text: string): NumericAddress {
  const value = text.includes(':') ? parseV6(text) : parseV4(text);
  if (value === undefined) throw new AddressSyntaxError(text);
  return { family: text.includes(':') ? 6 : 4, value };
}

/** The canonical text of an address: dotted decimal, or RFC 5952 (lower case, longest zero run as `::`). */
export function formatAddress(family: IpFamily, value: bigint): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  // The longest run of two or more zero groups (the first of equal runs) becomes '::'.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

/** The canonical spelling of an address text (throws {@link AddressSyntaxError}). */
export function canonicalAddress(text: string): string {
  const { family, value } = parseAddress(text);
  return formatAddress(family, value);
}

/** The first and last address of the network `value/prefixLength`. */
export function networkBounds(
  family: IpFamily,
  value: bigint,
  prefixLength: number,
): { first: bigint; last: bigint } {
  const hostBits = BigInt(bitsOf(family) - prefixLength);
  const first = (value >> hostBits) << hostBits;
  return { first, last: first + (1n << hostBits) - 1n };
}
