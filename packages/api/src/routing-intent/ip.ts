// Addresses and networks of the intent as values: family, canonical text (what FRR prints, so
// a reload finds no difference), and a numeric order. Inputs are already validated.

export type IpFamily = 'ipv4' | 'ipv6';

/** The family of an address or network. */
export function ipFamily(addressOrCidr: string): IpFamily {
  return addressOrCidr.includes(':') ? 'ipv6' : 'ipv4';
}

/** The eight 16-bit groups of an IPv6 address in hex groups. */
function ipv6Groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const h = parse(head);
  if (tail === undefined) return h;
  const t = parse(tail);
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** RFC 5952 text of an IPv6 address (lower case, longest run of zero groups as `::`). */
function canonicalIpv6(address: string): string {
  const groups = ipv6Groups(address);
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
  const text = ipFamily(address) === 'ipv6' ? canonicalIpv6(address) : address;
  return length === undefined ? text : `${text}/${length}`;
}

/** A key under which two spellings of one address are equal. */
export function ipKey(address: string): string {
  return canonicalIp(address);
}

/** The address as a number (IPv4: 32 bits, IPv6: 128 bits). */
function ipValue(address: string): bigint {
  if (ipFamily(address) === 'ipv4') return address.split('.').reduce((acc, o) => acc * 256n + BigInt(o), 0n);
  return ipv6Groups(address).reduce((acc, g) => acc * 65536n + BigInt(g), 0n);
}

/** Orders addresses and networks: IPv4 before IPv6, then numerically, then by prefix length. */
export function compareIp(a: string, b: string): number {
  const [aa = '', al = '0'] = a.split('/');
  const [ba = '', bl = '0'] = b.split('/');
  const af = ipFamily(aa);
  const bf = ipFamily(ba);
  if (af !== bf) return af === 'ipv4' ? -1 : 1;
  const av = ipValue(aa);
  const bv = ipValue(ba);
  if (av !== bv) return av < bv ? -1 : 1;
  return Number(al) - Number(bl);
}

/** Whether two networks share an address (one contains the other). */
export function networksOverlap(a: string, b: string): boolean {
  const [aa = '', al = '0'] = a.split('/');
  const [ba = '', bl = '0'] = b.split('/');
  if (ipFamily(aa) !== ipFamily(ba)) return false;
  const bits = ipFamily(aa) === 'ipv4' ? 32n : 128n;
  const shorter = BigInt(Math.min(Number(al), Number(bl)));
  const shift = bits - shorter;
  return ipValue(aa) >> shift === ipValue(ba) >> shift;
}
