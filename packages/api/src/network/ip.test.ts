import { describe, expect, it } from 'vitest';
import {
  ipFamily,
  ipToBigInt,
  maxPrefixLength,
  networkContains,
  nonUnicastKind,
  prefixLength,
} from './ip.js';

describe('address arithmetic', () => {
  it('numbers IPv4 and IPv6 addresses, compressed or with an embedded IPv4 part', () => {
    expect(ipToBigInt('10.0.0.1')).toBe(0x0a000001n);
    expect(ipToBigInt('255.255.255.255')).toBe(0xffffffffn);
    expect(ipToBigInt('::')).toBe(0n);
    expect(ipToBigInt('::1')).toBe(1n);
    expect(ipToBigInt('fd00::1:2')).toBe((0xfd00n << 112n) | 0x10002n);
    expect(ipToBigInt('1:2:3:4:5:6:7:8')).toBe(0x00010002000300040005000600070008n);
    expect(ipToBigInt('::ffff:10.0.0.1')).toBe(0xffff0a000001n);
    expect(ipToBigInt('1:2:3:4:5:6:10.0.0.1')).toBe(0x000100020003000400050006_0a000001n);
  });
  it('orders the addresses of a range numerically, not as text', () => {
    expect(ipToBigInt('10.0.0.9') < ipToBigInt('10.0.0.10')).toBe(true);
    expect(ipToBigInt('fd00::9') < ipToBigInt('fd00::10')).toBe(true);
  });
  it('tells family, prefix length and containment', () => {
    expect([ipFamily('10.0.0.1'), ipFamily('fd00::1')]).toEqual([4, 6]);
    expect([maxPrefixLength('10.0.0.1'), maxPrefixLength('fd00::1')]).toEqual([32, 128]);
    expect(prefixLength('10.0.0.0/24')).toBe(24);
    expect(networkContains('10.1.0.1', 24, '10.1.0.255')).toBe(true);
    expect(networkContains('10.1.0.1', 24, '10.1.1.0')).toBe(false);
    expect(networkContains('10.1.0.1', 0, '192.168.0.1')).toBe(true);
    expect(networkContains('fd00:1::1', 64, 'fd00:1::ffff:1')).toBe(true);
    expect(networkContains('fd00:1::1', 64, 'fd00:2::1')).toBe(false);
    expect(networkContains('10.1.0.1', 24, 'fd00::1')).toBe(false);
  });
});

describe('nonUnicastKind', () => {
  it.each([
    ['10.0.0.5', undefined],
    ['10.0.0.5/24', undefined],
    ['10.0.0.0/24', undefined],
    ['10.0.0.3/31', undefined],
    ['10.0.0.255/32', undefined],
    ['2001:db8::1/64', undefined],
    ['fe80::1', undefined],
    ['224.0.0.1/4', 'multicast'],
    ['239.1.2.3/24', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255/32', 'reserved'],
    ['240.0.0.1/24', 'reserved'],
    ['10.0.0.255/24', 'broadcast'],
    ['10.0.0.3/30', 'broadcast'],
    ['0.0.0.0/0', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1/8', 'loopback'],
    ['::1/128', 'loopback'],
  ])('%s: %s', (address, kind) => {
    expect(nonUnicastKind(address)).toBe(kind);
  });
});
