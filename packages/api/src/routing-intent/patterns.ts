import toRegexRange from 'to-regex-range';

// Regular expressions that say exactly what the routing intent accepts for addresses, networks,
// route-targets and communities. zod validates with them and the JSON Schema carries them as
// `pattern`, so the published schema and the validator cannot disagree on a single field.

const HEX = '[0-9a-fA-F]';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const GROUP = `${HEX}{1,4}`;

/** Decimal numbers from min to max without leading zeros. */
export function decimalRange(min: number, max: number): string {
  return `(?:${toRegexRange(min, max)})`;
}

export const UINT16 = decimalRange(0, 0xffff);
export const UINT32 = decimalRange(0, 0xffffffff);

export const IPV4_ADDRESS = `${OCTET}(?:\\.${OCTET}){3}`;

/** IPv6 in hex groups with at most one `::` (no embedded IPv4: an IPv4 peer is written as IPv4). */
export const IPV6_ADDRESS = [
  `(?:${GROUP}:){7}${GROUP}`,
  `(?:${GROUP}:){1,7}:`,
  ...[1, 2, 3, 4, 5, 6].map((tail) => `(?:${GROUP}:){1,${7 - tail}}(?::${GROUP}){1,${tail}}`),
  `:(?::${GROUP}){1,7}`,
  '::',
]
  .map((a) => `(?:${a})`)
  .join('|');

/**
 * A lookahead that the text ends in `/len`: an alternative for another length fails after a short
 * scan instead of trying its address pattern (70 µs per test without it, a few with it).
 */
const lengthIs = (len: number) => `(?=[^/]*/${len}$)`;

/** One octet whose low `zeroBits` bits are 0 (the boundary octet of an IPv4 network). */
function octetWithZeroBits(zeroBits: number): string {
  const step = 2 ** zeroBits;
  const values: string[] = [];
  for (let v = 0; v < 256; v += step) values.push(String(v));
  return `(?:${values.join('|')})`;
}

/** IPv4 networks `A.B.C.D/len` whose address has no bits set beyond len. */
function ipv4NetworkOfLength(len: number): string {
  const octets: string[] = [];
  for (let i = 0; i < 4; i++) {
    const networkBits = Math.min(8, Math.max(0, len - 8 * i));
    octets.push(networkBits === 8 ? OCTET : networkBits === 0 ? '0' : octetWithZeroBits(8 - networkBits));
  }
  return `${octets.join('\\.')}/${len}`;
}

/** IPv4 networks `A.B.C.D/L` whose address has no bits set beyond L, for L in the given range. */
export function ipv4Network(minLength = 0, maxLength = 32): string {
  return byLength(minLength, maxLength, ipv4NetworkOfLength);
}

/** One alternative per prefix length, each behind {@link lengthIs}. */
function byLength(minLength: number, maxLength: number, ofLength: (len: number) => string): string {
  const alternatives: string[] = [];
  for (let len = minLength; len <= maxLength; len++) alternatives.push(`${lengthIs(len)}${ofLength(len)}`);
  return `(?:${alternatives.join('|')})`;
}

/** One hex group (1-4 digits, leading zeros allowed) whose low `zeroBits` bits are 0. */
function groupWithZeroBits(zeroBits: number): string {
  if (zeroBits === 0) return GROUP;
  const zeroDigits = Math.floor(zeroBits / 4);
  const partial = zeroBits % 4;
  const digit = ['[0-9a-fA-F]', '[02468aceACE]', '[048cC]', '[08]'][partial] ?? HEX;
  const lastDigits = partial === 0 ? `0{${zeroDigits}}` : `${digit}0{${zeroDigits}}`;
  const free = 4 - zeroDigits - (partial === 0 ? 0 : 1);
  return `(?:0{1,4}|${HEX}{0,${free}}${lastDigits})`;
}

/**
 * IPv6 networks without host bits, written as the network's leading groups followed by `::`
 * (`2001:db8::/32`, `fd00:0:0:1::/64`), all eight groups, `::/L`, or any address with /128. Forms that compress zeros in the middle of the network
 * part (`2001:db8::1:0:0:0/80`) are refused: they are hard to read and FRR prints them otherwise.
 */
export function ipv6Network(minLength = 0, maxLength = 128): string {
  return byLength(minLength, maxLength, ipv6NetworkOfLength);
}

/** IPv6 networks `.../len` without host bits (the forms {@link ipv6Network} lists). */
function ipv6NetworkOfLength(len: number): string {
  const groupsWithNetworkBits = Math.ceil(len / 16);
  const boundary = groupWithZeroBits(16 * groupsWithNetworkBits - len);
  const forms: string[] = ['::'];
  // m leading groups then `::` (m < 8): m below the number of groups with network bits are
  // full groups; at that number the last one is the boundary group.
  const k = Math.min(groupsWithNetworkBits, 7);
  if (k > 1) forms.push(`(?:${GROUP}:){0,${k - 2}}${GROUP}::`);
  if (k >= 1) {
    const last = k === groupsWithNetworkBits ? boundary : GROUP;
    forms.push(`${k > 1 ? `(?:${GROUP}:){${k - 1}}` : ''}${last}::`);
  }
  // All eight groups: full ones, the boundary group, zero groups.
  const fullGroups = Math.max(groupsWithNetworkBits - 1, 0);
  const zeroGroups = 8 - Math.max(groupsWithNetworkBits, 1);
  const head =
    groupsWithNetworkBits === 0
      ? '0{1,4}'
      : `${fullGroups > 0 ? `(?:${GROUP}:){${fullGroups}}` : ''}${boundary}`;
  forms.push(`${head}${zeroGroups > 0 ? `(?::0{1,4}){${zeroGroups}}` : ''}`);
  // A /128 has no host bits: every address form is a network.
  if (len === 128) forms.push(IPV6_ADDRESS);
  return `(?:${forms.join('|')})/${len}`;
}

/**
 * IPv4 networks with prefix lengths `v4` and IPv6 networks with prefix lengths `v6` (inclusive
 * ranges), anchored, for zod's `.regex()`: its `source` is the whole pattern (what the JSON Schema
 * and the CRDs carry), but `test` runs only the part for the prefix length the text ends in,
 * compiled the first time that length is seen. The whole pattern is over 30 KB: V8 took 200-400
 * ms to compile it at the first validation and 3-35 µs per value after that (`npm run bench:frr`,
 * docs/benchmarks.md). The language is the same: each alternative of the whole pattern ends in
 * `/len` for its own len, so a text ending in `/24` can only match the alternatives of /24
 * (patterns.test.ts checks both against each other on generated texts).
 */
export function networkRegExp(v4: readonly [number, number], v6: readonly [number, number]): RegExp {
  return new NetworkRegExp(v4, v6);
}

class NetworkRegExp extends RegExp {
  readonly #v4: readonly [number, number];
  readonly #v6: readonly [number, number];
  readonly #byLength = new Map<string, RegExp | null>();

  constructor(v4: readonly [number, number], v6: readonly [number, number]) {
    super(whole(`${ipv4Network(...v4)}|${ipv6Network(...v6)}`).source);
    this.#v4 = v4;
    this.#v6 = v6;
  }

  override test(text: string): boolean {
    const suffix = text.slice(text.lastIndexOf('/') + 1);
    let pattern = this.#byLength.get(suffix);
    if (pattern === undefined) {
      pattern = this.#ofLength(suffix);
      // Only the lengths that exist are kept: at most 33 + 129 entries, whatever the input.
      if (pattern !== null) this.#byLength.set(suffix, pattern);
    }
    return pattern !== null && pattern.test(text);
  }

  /** The pattern of the networks with prefix length `suffix` (decimal, as the alternatives write it). */
  #ofLength(suffix: string): RegExp | null {
    const len = Number(suffix);
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(suffix)) return null;
    const within = ([min, max]: readonly [number, number]) => len >= min && len <= max;
    const forms = [
      ...(within(this.#v4) ? [ipv4NetworkOfLength(len)] : []),
      ...(within(this.#v6) ? [ipv6NetworkOfLength(len)] : []),
    ];
    return forms.length === 0 ? null : whole(forms.join('|'));
  }
}

/**
 * A BGP route-target: `ASN:NN` with a 2-byte ASN and a 4-byte value, a 4-byte ASN and a 2-byte
 * value, or `A.B.C.D:NN` with a 2-byte value.
 */
export const ROUTE_TARGET = `(?:${decimalRange(1, 0xffff)}:${UINT32}|${decimalRange(0x10000, 0xffffffff)}:${UINT16}|${IPV4_ADDRESS}:${UINT16})`;

/** Well-known communities FRR takes by name in `set community` and community-lists. */
export const WELL_KNOWN_COMMUNITIES = [
  'internet',
  'local-AS',
  'no-advertise',
  'no-export',
  'no-peer',
  'blackhole',
  'graceful-shutdown',
  'accept-own',
] as const;

/**
 * A standard BGP community: `AA:NN` (two 16-bit numbers) or a well-known name. `0:0` and
 * `65535:NN` are RFC 1997's reserved well-known range: FRR prints the values it has a name for
 * by that name (`0:0` as `internet`, `65535:65281` as `no-export`, `65535:6` as `llgr-stale`), so a
 * number there would differ from the running configuration after every reload, and `65535:65535`
 * (0xFFFFFFFF) has no community-list sequence number after it. They are refused: write the name.
 */
export const COMMUNITY = `(?:0:${decimalRange(1, 0xffff)}|${decimalRange(1, 0xfffe)}:${UINT16}|${WELL_KNOWN_COMMUNITIES.join('|')})`;

/** A large BGP community (RFC 8092): `GLOBAL:LOCAL1:LOCAL2`, three 32-bit numbers. */
export const LARGE_COMMUNITY = `${UINT32}:${UINT32}:${UINT32}`;

/** Anchors a pattern for zod's `.regex()` and JSON Schema's `pattern`. */
export const whole = (pattern: string): RegExp => new RegExp(`^(?:${pattern})$`);
