import { describe, expect, it } from 'vitest';
import { Cidr, InterfaceName, RouteTableId, VlanId, Vni, hasHostBits } from './primitives.js';

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
