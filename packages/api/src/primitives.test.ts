import { describe, expect, it } from 'vitest';
import {
  Cidr,
  InterfaceName,
  MacAddress,
  NetnsName,
  RouteTableId,
  SysctlSafeInterfaceName,
  VlanId,
  Vni,
  hasHostBits,
} from './primitives.js';

describe('primitives', () => {
  it('accepts interface names up to 15 characters and rejects longer ones', () => {
    expect(InterfaceName.safeParse('tr.4094').success).toBe(true);
    expect(InterfaceName.safeParse('a'.repeat(15)).success).toBe(true);
    expect(InterfaceName.safeParse('a'.repeat(16)).success).toBe(false);
    expect(InterfaceName.safeParse('eth 0').success).toBe(false);
    expect(InterfaceName.safeParse('a/b').success).toBe(false);
    expect(InterfaceName.safeParse('..').success).toBe(false);
  });
  it('bounds VLAN ids and VNIs', () => {
    expect(VlanId.safeParse(0).success).toBe(false);
    expect(VlanId.safeParse(4094).success).toBe(true);
    expect(VlanId.safeParse(4095).success).toBe(false);
    expect(Vni.safeParse(16_777_215).success).toBe(true);
    expect(Vni.safeParse(16_777_216).success).toBe(false);
  });
  it('rejects reserved route tables', () => {
    expect(RouteTableId.safeParse(254).success).toBe(false);
    expect(RouteTableId.safeParse(1001).success).toBe(true);
  });
  it('rejects CIDRs with host bits, v4 and v6', () => {
    expect(hasHostBits('10.0.0.1/8')).toBe(true);
    expect(hasHostBits('10.0.0.0/8')).toBe(false);
    expect(Cidr.safeParse('10.20.0.0/16').success).toBe(true);
    expect(Cidr.safeParse('10.20.1.0/16').success).toBe(false);
    expect(Cidr.safeParse('fd00::/64').success).toBe(true);
    expect(Cidr.safeParse('fd00::1/64').success).toBe(false);
    expect(Cidr.safeParse('2001:db8::/32').success).toBe(true);
  });
});

describe('SysctlSafeInterfaceName', () => {
  it.each(['all', 'default', 'lo'])(
    'refuses %j, which names a namespace-wide sysctl or the loopback',
    (n) => {
      expect(InterfaceName.safeParse(n).success).toBe(true);
      expect(SysctlSafeInterfaceName.safeParse(n).success).toBe(false);
    },
  );
  it.each(['tr.100', 'eth0', 'all0', 'lo1', 'default-br'])('accepts %j', (n) => {
    expect(SysctlSafeInterfaceName.parse(n)).toBe(n);
  });
  it('keeps the InterfaceName rule', () => {
    expect(SysctlSafeInterfaceName.safeParse('a'.repeat(16)).success).toBe(false);
    expect(SysctlSafeInterfaceName.safeParse('..').success).toBe(false);
  });
});

describe('MacAddress', () => {
  it('normalises to lower case', () => {
    expect(MacAddress.parse('02:AB:cd:00:00:01')).toBe('02:ab:cd:00:00:01');
  });
  it.each([
    ['01:00:5e:00:00:01', 'unicast'],
    ['ff:ff:ff:ff:ff:ff', 'unicast'],
    ['00:00:00:00:00:00', 'all-zero'],
    ['02:00:00:00:00', 'MAC address like'],
    ['02-00-00-00-00-01', 'MAC address like'],
    ['zz:00:00:00:00:01', 'MAC address like'],
  ])('refuses %j (%s)', (mac, why) => {
    const r = MacAddress.safeParse(mac);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain(why);
  });
});

describe('NetnsName', () => {
  it.each(['hbr', 'cni-1234', 'a', 'ns_1.x', 'x'.repeat(64)])('accepts %j', (n) => {
    expect(NetnsName.parse(n)).toBe(n);
  });
  it.each(['', '.', '..', '../etc', '-x', 'a b', 'a/b', 'x'.repeat(65)])('refuses %j', (n) => {
    expect(NetnsName.safeParse(n).success).toBe(false);
  });
});
