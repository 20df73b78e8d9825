import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { networkRegExp } from './patterns.js';

// networkRegExp's `test` runs only the part of the pattern for the text's prefix length; its
// `source` is the whole pattern that JSON Schema and the CRDs carry. Both must accept exactly the
// same texts: checked here on generated near-misses as well as on networks.

const hexGroup = fc
  .integer({ min: 0, max: 0xffff })
  .chain((g) =>
    fc.constantFrom(g.toString(16), g.toString(16).toUpperCase(), g.toString(16).padStart(4, '0')),
  );
const lengthText = fc.oneof(
  fc.integer({ min: 0, max: 130 }).map(String),
  fc.constantFrom('', '024', '00', '-1', '1e1', '32 ', '+8', '0x10', '999'),
);
const ipv4 = fc
  .tuple(fc.array(fc.integer({ min: 0, max: 256 }), { minLength: 4, maxLength: 4 }), lengthText)
  .map(([octets, len]) => `${octets.join('.')}/${len}`);
/** Eight groups with a random run compressed to `::`, or all written out. */
const ipv6 = fc
  .tuple(
    fc.array(hexGroup, { minLength: 8, maxLength: 8 }),
    fc.integer({ min: 0, max: 8 }),
    fc.integer({ min: 0, max: 8 }),
    lengthText,
  )
  .map(([groups, from, count, len]) => {
    const end = Math.min(8, from + count);
    const text =
      count === 0 ? groups.join(':') : `${groups.slice(0, from).join(':')}::${groups.slice(end).join(':')}`;
    return `${text}/${len}`;
  });
/** Networks without host bits: IPv4 and IPv6 masked to a random prefix length. */
const masked = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
    fc.integer({ min: 0, max: 128 }),
  )
  .chain(([groups, len]) => {
    const bits = groups.map((g, i) =>
      len >= 16 * (i + 1) ? g : len <= 16 * i ? 0 : g & (0xffff << (16 * (i + 1) - len)),
    );
    const v4len = len % 33;
    const v4 =
      ((((groups[0] ?? 0) << 16) | (groups[1] ?? 0)) & (v4len === 0 ? 0 : 0xffffffff << (32 - v4len))) >>> 0;
    return fc.constantFrom(
      `${[24, 16, 8, 0].map((s) => (v4 >>> s) & 0xff).join('.')}/${v4len}`,
      `${bits.map((g) => (g & 0xffff).toString(16)).join(':')}/${len}`,
      `${bits
        .slice(0, Math.ceil(len / 16))
        .map((g) => (g & 0xffff).toString(16))
        .join(':')}::/${len}`,
    );
  });
const noise = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF.:/ x'.split('')), maxLength: 45 });

describe.each([
  ['Network', [0, 32], [0, 128]],
  ['AggregatePrefix', [0, 31], [0, 127]],
] as const)('networkRegExp as %s uses', (_, v4, v6) => {
  const dispatched = networkRegExp(v4, v6);
  const whole = new RegExp(dispatched.source);

  it('the same language as its whole pattern', () => {
    fc.assert(
      fc.property(fc.oneof(ipv4, ipv6, masked, noise), (text) => {
        expect(dispatched.test(text)).toBe(whole.test(text));
      }),
      { numRuns: 3000, seed: 20261130 },
    );
  });

  it('accepts networks and refuses host bits, other lengths and padding', () => {
    const cases: [string, boolean][] = [
      ['10.0.0.0/8', true],
      ['10.0.0.1/8', false],
      ['0.0.0.0/0', true],
      ['10.0.0.0/08', false],
      ['2001:db8::/32', true],
      ['2001:DB8::/32', true],
      ['2001:db8::1:0:0:0/80', false],
      ['10.0.0.1/32', v4[1] === 32],
      ['2001:db8::1/128', v6[1] === 128],
      ['10.0.0.0/33', false],
      ['10.0.0.0', false],
      ['/8', false],
    ];
    for (const [text, accepted] of cases) {
      expect([text, dispatched.test(text)]).toEqual([text, accepted]);
      expect([text, whole.test(text)]).toEqual([text, accepted]);
    }
  });
});
