// Address arithmetic for the rules of the network kinds (zod side; the CRDs say the same in CEL).
// Inputs are already validated addresses and CIDRs.

/** 4 or 6. */
export function ipFamily(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

/** The prefix length of a CIDR (`10.0.0.0/24` -> 24). */
export function prefixLength(cidr: string): number {
  return Number(cidr.split('/')[1]);
}

/** The longest prefix of the address family: 32 or 128. */
export function maxPrefixLength(address: string): 32 | 128 {
  return ipFamily(address) === 6 ? 128 : 32;
}

/** The address as an unsigned integer (IPv4 in 32 bits, IPv6 in 128; `::ffff:1.2.3.4` too). */
export function ipToBigInt(address: string): bigint {
  if (ipFamily(address) === 4) {
    return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
  }
  // An embedded IPv4 part stands for the last two 16-bit groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  const text = v4 === undefined ? address : address.slice(0, -v4.length) + v4Groups(v4);
  const [head = '', tail] = text.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function v4Groups(v4: string): string {
  const n = ipToBigInt(v4);
  return `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
}

/** True when `address` lies in the network `base/length` (host bits of `base` are ignored). */
export function networkContains(base: string, length: number, address: string): boolean {
  if (ipFamily(base) !== ipFamily(address)) return false;
  const bits = BigInt(maxPrefixLength(base));
  const hostBits = bits - BigInt(length);
  return ipToBigInt(base) >> hostBits === ipToBigInt(address) >> hostBits;
}

/** Why an address cannot be a host's own address; see {@link nonUnicastKind}. */
export type NonUnicastKind = 'unspecified' | 'loopback' | 'multicast' | 'broadcast' | 'reserved';

/**
 * Why `address` (or the address of `address/length`) is not a unicast address an interface may
 * own, or undefined when it is: the unspecified address, loopback, multicast (224.0.0.0/4,
 * ff00::/8), 240.0.0.0/4 (reserved, 255.255.255.255 included), and an IPv4 subnet's broadcast
 * address (host bits all ones, for prefixes up to /30). Input is a validated address or CIDR.
 */
export function nonUnicastKind(addressOrCidr: string): NonUnicastKind | undefined {
  const [address = '', length] = addressOrCidr.split('/');
  const value = ipToBigInt(address);
  if (ipFamily(address) === 6) {
    if (value === 0n) return 'unspecified';
    if (value === 1n) return 'loopback';
    if (value >> 120n === 0xffn) return 'multicast';
    return undefined;
  }
  const first = Number(value >> 24n);
  if (first === 0) return 'unspecified';
  if (first === 127) return 'loopback';
  if (first >= 224 && first <= 239) return 'multicast';
  if (first >= 240) return 'reserved';
  const hostBits = 32n - BigInt(length === undefined ? 32 : Number(length));
  const hostMask = (1n << hostBits) - 1n;
  if (hostBits >= 2n && (value & hostMask) === hostMask) return 'broadcast';
  return undefined;
}
