import { describe, expect, it } from 'vitest';
import { decodeMonitorLine } from './monitor.js';

// Lines as iproute2 6.1 prints them for `ip -ts monitor link address route`.
describe('decodeMonitorLine', () => {
  it.each([
    [
      '3: d0@d1: <BROADCAST,MULTICAST,M-DOWN> mtu 1500 qdisc noop state DOWN group default ',
      { object: 'link', deleted: false, name: 'd0', up: false },
    ],
    [
      'Deleted 3: d0@NONE: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN group default ',
      { object: 'link', deleted: true, name: 'd0', up: false },
    ],
    [
      '7: tr.100@tr: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue master br2100 state UP',
      { object: 'link', deleted: false, name: 'tr.100', up: true, master: 'br2100' },
    ],
    [
      '12: vx1001: <BROADCAST,MULTICAST> mtu 1500 qdisc noop master br1001 state DOWN',
      { object: 'link', deleted: false, name: 'vx1001', up: false, master: 'br1001' },
    ],
    [
      '3: d0    inet 10.9.0.1/24 scope global d0',
      { object: 'address', deleted: false, dev: 'd0', address: '10.9.0.1/24' },
    ],
    [
      'Deleted 3: br2100    inet6 fe80::1/64 scope link ',
      { object: 'address', deleted: true, dev: 'br2100', address: 'fe80::1/64' },
    ],
    [
      '10.9.0.0/24 dev d0 proto kernel scope link src 10.9.0.1 linkdown ',
      { object: 'route', deleted: false, dst: '10.9.0.0/24', dev: 'd0', protocol: 'kernel' },
    ],
    [
      'Deleted local 10.9.0.1 dev d0 table local proto kernel scope host src 10.9.0.1 ',
      { object: 'route', deleted: true, dst: '10.9.0.1', dev: 'd0', table: 'local', protocol: 'kernel' },
    ],
    [
      'unreachable default table 1001001 proto 249 metric 4278198272 ',
      { object: 'route', deleted: false, dst: 'default', table: '1001001', protocol: '249' },
    ],
    [
      '2001:db8::/64 dev br2100 proto kernel metric 256 pref medium',
      { object: 'route', deleted: false, dst: '2001:db8::/64', dev: 'br2100', protocol: 'kernel' },
    ],
  ])('%s', (line, event) => expect(decodeMonitorLine(line)).toEqual(event));

  it('reads the -ts timestamp (local time, microseconds) in front of any event', () => {
    expect(
      decodeMonitorLine('[2026-11-30T05:39:52.258064] Deleted 2: d0: <BROADCAST,MULTICAST,UP> mtu 1500'),
    ).toEqual({
      object: 'link',
      deleted: true,
      name: 'd0',
      up: true,
      at: new Date(2026, 10, 30, 5, 39, 52, 258),
    });
  });

  it.each([
    ['a continuation line', '    link/ether d2:ea:f5:8b:22:27 brd ff:ff:ff:ff:ff:ff'],
    ['an empty line', ''],
    ['something else', 'nsid 0 (iproute2 netns name: x)'],
  ])('ignores %s', (_what, line) => expect(decodeMonitorLine(line)).toBeUndefined());
});
