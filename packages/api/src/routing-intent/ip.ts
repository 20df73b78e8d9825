import { ipFamily, ipToBigInt } from '../network/ip.js';

// Addresses and networks of the routing intent as values: family by name (the intent's
// addressFamilies), canonical text (what FRR prints, so a reload finds no difference), order and
// overlap. Inputs are already validated; the arithmetic is network/ip.ts's.

export type IpFamily = 'ipv4' | 'ipv6';

/** The family of an address or network, as the intent names it. */
export function familyOf(addressOrCidr: string): IpFamily {
  return ipFamily(addressOrCidr) === 4 ? 'ipv4' : 'ipv6';
}

/** RFC 5952 text of an IPv6 address (lower case, the longest run of zero groups as `::`). */
function canonicalIpv6(address: string): string {
  const value = ipToBigInt(address);
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(16 * (7 - i))) & 0xffffn));
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** The address or network as FRR prints it (`2001:DB8:0::/32` -> `2001:db8::/32`). */
export function canonicalIp(addressOrCidr: string): string {
  const [address = '', length] = addressOrCidr.split('/');
  const text = familyOf(address) === 'ipv6' ? canonicalIpv6(address) : address;
  return length === undefined ? text : `${text}/${length}`;
}

/** Orders addresses and networks: IPv4 before IPv6, then numerically, then by prefix length. */
export function compareIp(a: string, b: string): number {
  const [aa = '', al = '0'] = a.split('/');
  const [ba = '', bl = '0'] = b.split('/');
  const af = familyOf(aa);
  const bf = familyOf(ba);
  if (af !== bf) return af === 'ipv4' ? -1 : 1;
  const av = ipToBigInt(aa);
  const bv = ipToBigInt(ba);
  if (av !== bv) return av < bv ? -1 : 1;
  return Number(al) - Number(bl);
}

/** Whether two networks share an address (one contains the other). */
export function networksOverlap(a: string, b: string): boolean {
  const [aa = '', al = '0'] = a.split('/');
  const [ba = '', bl = '0'] = b.split('/');
  if (familyOf(aa) !== familyOf(ba)) return false;
  const shift = BigInt((familyOf(aa) === 'ipv4' ? 32 : 128) - Math.min(Number(al), Number(bl)));
  return ipToBigInt(aa) >> shift === ipToBigInt(ba) >> shift;
}
