import { describe, expect, it } from 'vitest';
import { RouteTableId, parseFrrIntent } from '@fabrik/api';
import { parseDesiredState, type DesiredLink } from '@fabrik/netcore/netlink';
import { HBR_TABLE, UNREACHABLE_METRIC, hbrDesiredState, vrfTable } from './hbr-state.js';

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

const byName = (links: readonly DesiredLink[]) => new Map(links.map((l) => [l.name, l]));

describe('hbrDesiredState', () => {
  it('puts each L2 VNI on its VRF (or hbr) with tr.<vid> on the trunk, valid for netlink', () => {
    const state = parseDesiredState(hbrDesiredState(intent));
    const l = byName(state.links);
    expect(l.get('red')).toMatchObject({ kind: 'vrf', table: vrfTable(1001), up: true, alias: 'vrf' });
    expect(l.get('hbr')).toMatchObject({ kind: 'vrf', table: HBR_TABLE });
    expect(l.get('br1001')).toMatchObject({ kind: 'bridge', master: 'red', alias: 'l3vni1001' });
    expect(l.get('br1001')).not.toHaveProperty('addresses'); // the L3 VNI bridge's addresses are left alone
    expect(l.get('vx1001')).toMatchObject({
      kind: 'vxlan',
      vni: 1001,
      local: '192.0.2.1',
      learning: false,
      master: 'br1001',
      port: { learning: false, neighSuppress: true },
    });
    expect(l.get('br2100')).toMatchObject({ master: 'red', alias: 'l2vni2100', addresses: [] });
    expect(l.get('br2200')).toMatchObject({ master: 'hbr' });
    expect(l.get('tr.100')).toMatchObject({ kind: 'vlan', parent: 'tr', id: 100, master: 'br2100' });
    expect(l.get('tr.200')).toMatchObject({ kind: 'vlan', parent: 'tr', id: 200, master: 'br2200' });
    expect(l.has('tr')).toBe(false); // the trunk belongs to the host agent
  });

  it('declares an unreachable default (IPv4 and IPv6) in every VRF table it creates', () => {
    const state = hbrDesiredState(intent);
    expect(state.routes).toEqual(
      [vrfTable(undefined), vrfTable(1001)].flatMap((table) =>
        ['inet', 'inet6'].map((family) => ({
          dst: 'default',
          family,
          type: 'unreachable',
          table,
          metric: UNREACHABLE_METRIC,
        })),
      ),
    );
  });

  it('uses a pre-existing hbr VRF as found: not declared, so never changed or deleted', () => {
    const state = parseDesiredState(hbrDesiredState(intent, { hbrVrfGiven: true }));
    const l = byName(state.links);
    expect(l.has('hbr')).toBe(false);
    expect(l.get('br2200')).toMatchObject({ master: 'hbr' });
    expect(state.routes?.map((r) => r.table)).not.toContain(HBR_TABLE);
  });

  it('creates hbr when a VRF leaks from it, and not at all when nothing uses it', () => {
    const leaking = parseFrrIntent({
      ...intent,
      layer2s: [],
      vrfs: [{ name: 'red', vni: 1001, importVrfs: ['hbr'] }],
    });
    expect(byName(hbrDesiredState(leaking).links).has('hbr')).toBe(true);
    const unused = parseFrrIntent({ ...intent, layer2s: [] });
    expect(byName(hbrDesiredState(unused).links).has('hbr')).toBe(false);
  });

  it('gives an L2 network its MTU, anycast gateways and MAC (symmetric IRB) and its neighbour suppression', () => {
    const layer2 = new Map([
      [
        2100,
        { mtu: 9000, anycastGateways: ['10.100.0.1/24', 'fd00:100::1/64'], anycastMac: '02:00:00:00:21:00' },
      ],
      [2200, { neighSuppression: false }],
    ]);
    const l = byName(parseDesiredState(hbrDesiredState(intent, { layer2, mtu: 1500 })).links);
    expect(l.get('br2100')).toMatchObject({
      mtu: 9000,
      mac: '02:00:00:00:21:00',
      addresses: [{ address: '10.100.0.1/24' }, { address: 'fd00:100::1/64', nodad: true }],
    });
    expect(l.get('vx2100')).toMatchObject({ mtu: 9000 });
    expect(l.get('tr.100')).toMatchObject({ mtu: 9000 });
    expect(l.get('br1001')).toMatchObject({ mtu: 1500 });
    expect(l.get('vx2200')).toMatchObject({ mtu: 1500, port: { learning: false, neighSuppress: false } });
  });

  it('mode vrf-ibgp adds a veth pair per VRF: one end in the VRF, the other in the default VRF', () => {
    const ibgp = parseFrrIntent({ ...intent, mode: 'vrf-ibgp' });
    const l = byName(parseDesiredState(hbrDesiredState(ibgp)).links);
    expect(l.get('ibv1001')).toMatchObject({
      kind: 'veth',
      peer: { name: 'ibd1001' },
      master: 'red',
      up: true,
    });
    expect(l.get('ibd1001')).toMatchObject({ kind: 'veth', peer: { name: 'ibv1001' }, up: true });
    expect(l.get('ibd1001')).not.toHaveProperty('master');
    expect(byName(hbrDesiredState(intent).links).has('ibv1001')).toBe(false);
  });

  it('phase l3-down holds only VRFs and L3 devices and brings nothing up or down', () => {
    const state = hbrDesiredState(intent, { phase: 'l3-down' });
    expect(state.links.map((l) => l.name).sort()).toEqual(['br1001', 'hbr', 'red', 'vx1001']);
    expect(state.links.every((l) => l.up === undefined)).toBe(true);
    expect(state.routes).toBeUndefined();
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
