import { describe, expect, it } from 'vitest';
import { driftReason } from './drift.js';

const watched = new Set(['br2100', 'vx2100', 'tr.100', 'red']);

describe('driftReason', () => {
  it.each([
    [{ object: 'link', deleted: true, name: 'tr.100' }, 'link tr.100 deleted'],
    [{ object: 'link', deleted: false, name: 'red' }, 'link red changed'],
    [
      { object: 'address', deleted: true, dev: 'br2100', address: '10.100.0.1/24' },
      'address 10.100.0.1/24 on br2100 deleted',
    ],
    [
      { object: 'route', deleted: true, dst: 'default', table: '1001001', protocol: '249' },
      'route default table 1001001 deleted',
    ],
  ] as const)('%j -> %s', (event, reason) => expect(driftReason(event, watched)).toBe(reason));

  it.each([
    ['a foreign link', { object: 'link', deleted: true, name: 'eth0' }],
    [
      'an address of a foreign link',
      { object: 'address', deleted: false, dev: 'hbn', address: '10.0.0.1/30' },
    ],
    [
      'a route zebra installed',
      {
        object: 'route',
        deleted: false,
        dst: '10.100.0.5/32',
        dev: 'br1001',
        table: '1001001',
        protocol: 'bgp',
      },
    ],
    [
      'a kernel route',
      { object: 'route', deleted: true, dst: '10.100.0.0/24', dev: 'br2100', protocol: 'kernel' },
    ],
  ] as const)('ignores %s', (_what, event) => expect(driftReason(event, watched)).toBeUndefined());
});
