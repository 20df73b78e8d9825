import { describe, expect, it } from 'vitest';
import { OVS_OWNER_KEY } from '@fabrik/netcore/ovsdb';
import { PortIds } from '@fabrik/api';
import { effectiveVlan, vlanSettings } from './ovs.js';

describe('vlanSettings', () => {
  it('maps vlan and trunk to the OVS port columns', () => {
    // Untagged access, never OVS's default of a trunk of every VLAN.
    expect(vlanSettings({ vlan: 0, trunks: [] })).toEqual({ tag: 0, vlanMode: 'access' });
    expect(vlanSettings({ vlan: 100, trunks: [] })).toEqual({ tag: 100, vlanMode: 'access' });
    expect(vlanSettings({ vlan: 0, trunks: [10, 20] })).toEqual({ trunks: [10, 20], vlanMode: 'trunk' });
    expect(vlanSettings({ vlan: 5, trunks: [10] })).toEqual({
      tag: 5,
      trunks: [10],
      vlanMode: 'native-untagged',
    });
  });
});

describe('PortIds', () => {
  it("names netcore's ownership key, so netcore's ownership checks read the owner fabrik-ovs writes", () => {
    expect(PortIds.owner).toBe(OVS_OWNER_KEY);
  });
});

describe('effectiveVlan', () => {
  it.each([
    [{ vlan: 100, networkType: 'vlan' as const }, 120, 100, "the network config's VLAN overrides the pool's"],
    [{ vlan: 0, networkType: 'vlan' as const }, 120, 120, "no VLAN in the config: the pool's"],
    [{ vlan: 0, networkType: 'vlan' as const }, undefined, 0, 'neither: untagged'],
    [{ vlan: 0, networkType: 'bridge' as const }, 120, 0, 'a bridge network stays untagged'],
  ])('%j with IPAM VLAN %s: %i (%s)', (conf, ipamVlan, want, _why) => {
    expect(effectiveVlan(conf, ipamVlan)).toBe(want);
  });
});
