import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, formatAddress, networkBounds, parseAddress } from './address.js';
import { isAddressSyntaxError } from './errors.js';

describe('parseAddress / formatAddress', () => {
  it.each([
    ['10.0.0.1', 4, 0x0a000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['2001:db8::', 6, 0x20010db8n << 96n],
    ['2001:DB8:0:0:0:0:0:1', 6, (0x20010db8n << 96n) | 1n],
    ['::ffff:192.0.2.1', 6, (0xffffn << 32n) | 0xc0000201n],
    ['64:ff9b::10.0.0.1', 6, (0x64ff9bn << 96n) | 0x0a000001n],
  ])('%s is IPv%i %s', (text, family, value) => {
    expect(parseAddress(text)).toEqual({ family, value });
  });

  it.each([
    '',
    '10.0.0',
    '10.0.0.256',
    '10.0.0.01',
    '10.0.0.1.2',
    ':::',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7::8',
    '12345::',
    'g::',
    '::1.2.3',
    '10.0.0.1/24',
  ])('refuses %j', (text) => {
    let error: unknown;
    try {
      parseAddress(text);
    } catch (e) {
      error = e;
    }
    expect(isAddressSyntaxError(error)).toBe(true);
  });

  it.each([
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:1:1:0:0:1', '1::1:1:0:0:1'],
    ['fe80:0:0:0:0:0:0:0', 'fe80::'],
    ['::ffff:192.0.2.1', '::ffff:c000:201'],
  ])('writes %s as %s (RFC 5952)', (text, canonical) => {
    expect(canonicalAddress(text)).toBe(canonical);
  });

  it('round-trips every IPv4 and IPv6 number through its text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }).map((value) => ({ family: 4 as const, value })),
          fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((value) => ({ family: 6 as const, value })),
          // Many zero groups: the '::' rules get exercised.
          fc
            .array(fc.constantFrom(0, 0, 0, 1, 0xffff), { minLength: 8, maxLength: 8 })
            .map((gs) => ({ family: 6 as const, value: gs.reduce((n, g) => (n << 16n) | BigInt(g), 0n) })),
        ),
        ({ family, value }) => {
          const text = formatAddress(family, value);
          expect(parseAddress(text)).toEqual({ family, value });
          expect(text).toBe(text.toLowerCase());
          expect(text.split('::').length).toBeLessThanOrEqual(2);
        },
      ),
      { seed: 14, numRuns: 500 },
    );
  });
});

describe('networkBounds', () => {
  it('gives the first and last address of a prefix', () => {
    expect(networkBounds(4, parseAddress('10.1.2.3').value, 24)).toEqual({
      first: parseAddress('10.1.2.0').value,
      last: parseAddress('10.1.2.255').value,
    });
    expect(networkBounds(6, parseAddress('2001:db8::7').value, 126)).toEqual({
      first: parseAddress('2001:db8::4').value,
      last: parseAddress('2001:db8::7').value,
    });
    expect(networkBounds(4, 5n, 32)).toEqual({ first: 5n, last: 5n });
  });
});
