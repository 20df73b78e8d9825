import { describe, expect, it } from 'vitest';
import { ipFamily, ipToBigInt, maxPrefixLength, networkContains, prefixLength } from './ip.js';

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
