import { describe, expect, it } from 'vitest';
import type { NetlinkEvent } from '@fabrik/netcore/netlink';
import { driftReason, type DriftExpectation } from './drift.js';

const expected: DriftExpectation = {
  links: new Map([
    ['hbr', {}],
    ['red', { up: true, master: undefined }],
    ['br2100', { up: true, master: 'red' }],
    ['vx2100', { up: true, master: 'br2100' }],
    ['tr.100', { up: true, master: 'br2100' }],
  ]),
  routeTables: new Set(['1001001']),
};
const later = new Date(Date.UTC(2026, 0, 1, 13));

describe('driftReason', () => {
  it.each<[NetlinkEvent, string]>([
    [
      { object: 'link', deleted: true, name: 'tr.100', up: true, master: 'br2100', at: later },
      'link tr.100 deleted',
    ],
    [{ object: 'link', deleted: true, name: 'hbr', up: true }, 'link hbr deleted'],
    [
      { object: 'link', deleted: false, name: 'vx2100', up: false, master: 'br2100', at: later },
      'link vx2100 set down',
    ],
    [{ object: 'link', deleted: false, name: 'tr.100', up: true, at: later }, 'link tr.100 master removed'],
    [
      { object: 'address', deleted: true, dev: 'br2100', address: '10.100.0.1/24', at: later },
      'address 10.100.0.1/24 on br2100 deleted',
    ],
    [
      { object: 'address', deleted: false, dev: 'br2100', address: '10.9.9.9/24', at: later },
      'address 10.9.9.9/24 on br2100 added',
    ],
    [
      { object: 'route', deleted: true, dst: 'default', table: '1001001', protocol: '249', at: later },
      'route default table 1001001 deleted',
    ],
  ])('%j -> %s', (event, reason) => expect(driftReason(event, expected)).toBe(reason));

  it.each<[string, NetlinkEvent]>([
    ['a foreign link', { object: 'link', deleted: true, name: 'eth0', up: false, at: later }],
    [
      'a carrier change of a watched link, as applied',
      { object: 'link', deleted: false, name: 'tr.100', up: true, master: 'br2100', at: later },
    ],
    [
      'a change of a given link the agent does not manage (hbr set down)',
      { object: 'link', deleted: false, name: 'hbr', up: false, at: later },
    ],
    [
      "the kernel's link-local address",
      { object: 'address', deleted: false, dev: 'br2100', address: 'fe80::1/64', at: later },
    ],
    [
      'an address of a foreign link',
      { object: 'address', deleted: false, dev: 'hbn', address: '10.0.0.1/30', at: later },
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
        at: later,
      },
    ],
    [
      'a fabrik route added',
      { object: 'route', deleted: false, dst: 'default', table: '1001001', protocol: '249', at: later },
    ],
    [
      'a fabrik route deleted in a table the agent no longer keeps (its VRF went away)',
      { object: 'route', deleted: true, dst: 'default', table: '1000000', protocol: '249', at: later },
    ],
  ])('ignores %s', (_what, event) => expect(driftReason(event, expected)).toBeUndefined());

  it('counts a fabrik route deleted in any table before the first apply (no tables known yet)', () => {
    const event: NetlinkEvent = {
      object: 'route',
      deleted: true,
      dst: 'default',
      table: '1000000',
      protocol: '249',
    };
    expect(driftReason(event, { links: expected.links })).toBe('route default table 1000000 deleted');
  });
});
