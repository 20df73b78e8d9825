import { describe, expect, it } from 'vitest';
import { RouteTableId, parseFrrIntent } from '@fabrik/api';
import { parseDesiredState } from '@fabrik/netcore/netlink';
import { HBR_TABLE, hbrDesiredState, vrfTable } from './hbr-state.js';

const intent = parseFrrIntent({
  asn: 65000,
  routerId: '192.0.2.1',
  vtepIp: '192.0.2.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'internal' }] },
  vrfs: [{ name: 'red', vni: 1001 }],
  layer2s: [
    { vni: 2200, vlan: 200 },
    { vni: 2100, vlan: 100, vrf: 'red' },
  ],
});

describe('hbrDesiredState', () => {
  it('puts each L2 VNI on its VRF (or hbr) with tr.<vid> on the trunk, valid for netlink', () => {
    const state = parseDesiredState(hbrDesiredState(intent));
    const byName = new Map(state.links.map((l) => [l.name, l]));
    expect(byName.get('red')).toMatchObject({ kind: 'vrf', table: vrfTable(1001), up: true });
    expect(byName.get('hbr')).toMatchObject({ kind: 'vrf', table: HBR_TABLE });
    expect(byName.get('br1001')).toMatchObject({ kind: 'bridge', master: 'red' });
    expect(byName.get('vx1001')).toMatchObject({
      kind: 'vxlan',
      vni: 1001,
      local: '192.0.2.1',
      learning: false,
      master: 'br1001',
    });
    expect(byName.get('br2100')).toMatchObject({ master: 'red' });
    expect(byName.get('br2200')).toMatchObject({ master: 'hbr' });
    expect(byName.get('tr.100')).toMatchObject({ kind: 'vlan', parent: 'tr', id: 100, master: 'br2100' });
    expect(byName.get('tr.200')).toMatchObject({ kind: 'vlan', parent: 'tr', id: 200, master: 'br2200' });
    expect(byName.has('tr')).toBe(false); // the trunk belongs to the host agent
  });

  it('phase l3-down holds only VRFs and L3 VNI devices and brings nothing up or down', () => {
    const state = hbrDesiredState(intent, { phase: 'l3-down' });
    expect(state.links.map((l) => l.name).sort()).toEqual(['br1001', 'hbr', 'red', 'vx1001']);
    expect(state.links.every((l) => l.up === undefined)).toBe(true);
  });

  it('gives every VRF a table the kernel accepts for a VRF, distinct per VNI and from the hbr table', () => {
    // The VNIs around the reserved tables and the ends of the VNI range, and the hbr VRF's own.
    const vnis = [1, 252, 253, 254, 255, 256, 16_777_215];
    const tables = [...vnis.map(vrfTable), vrfTable(undefined)];
    for (const t of tables) expect(RouteTableId.safeParse(t).success, `table ${t}`).toBe(true);
    expect(new Set(tables).size).toBe(tables.length);
  });

  it('a trunk name too long for tr.<vid> is rejected by validation, not truncated', () => {
    expect(() => parseDesiredState(hbrDesiredState(intent, { trunk: 'trunk-to-host' }))).toThrow(/15/);
  });
});
