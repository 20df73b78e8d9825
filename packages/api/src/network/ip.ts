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
