import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempNetns, type TempNetns } from '@fabrik/testkit';
import { createNetlink, vlanLinkName, type DesiredLink, type DesiredState, type Netlink } from './index.js';

// The HBR layout on the lab kernel (vrf, 8021q, dummy): VRFs with tables, an L3 bridge + vxlan
// in a VRF, an L2 network (bridge + vxlan + tr.<vid> on the trunk) in a VRF. Assertions read
// the kernel with raw `ip -j`. One namespace for the whole file: every syscall is slow in UML.

type Json = Record<string, unknown>;

function hbr(opts: { l2Vrf: string; mtu: number; redTable: number }): DesiredState {
  const l2: DesiredLink[] = [
    {
      kind: 'bridge',
      name: 'br100',
      mtu: opts.mtu,
      master: opts.l2Vrf,
      up: true,
      addresses: [{ address: '10.100.0.1/24' }],
      sysctls: { arpAccept: 1, addrGenMode: 'none' },
    },
    {
      kind: 'vxlan',
      name: 'vx100',
      vni: 100,
      local: '192.0.2.1',
      dstport: 4789,
      learning: false,
      mtu: opts.mtu,
      master: 'br100',
      up: true,
      port: { learning: false, neighSuppress: true },
    },
    {
      kind: 'vlan',
      name: vlanLinkName('tr', 100),
      parent: 'tr',
      id: 100,
      mtu: opts.mtu,
      master: 'br100',
      up: true,
    },
  ];
  return {
    owner: 'hbr',
    links: [
      { kind: 'dummy', name: 'tr', up: true },
      { kind: 'dummy', name: 'vtep', up: true, addresses: [{ address: '192.0.2.1/32' }] },
      { kind: 'vrf', name: 'red', table: opts.redTable, up: true },
      { kind: 'vrf', name: 'blue', table: 1002, up: true },
      { kind: 'bridge', name: 'br-l3-red', master: 'red', up: true, sysctls: { addrGenMode: 'none' } },
      {
        kind: 'vxlan',
        name: 'vx-l3-red',
        vni: 5001,
        local: '192.0.2.1',
        dstport: 4789,
        learning: false,
        master: 'br-l3-red',
        up: true,
        port: { learning: false },
      },
      ...l2,
    ],
    routes: [{ dst: 'default', type: 'unreachable', table: 1002, metric: 4278198272 }],
  };
}

describe('netlink on the lab kernel', () => {
  let ns: TempNetns;
  let nl: Netlink;
  const links = async (): Promise<Map<string, Json>> => {
    const all = JSON.parse(await ns.ip('-j', '-d', 'link', 'show')) as Json[];
    return new Map(all.map((l) => [l['ifname'] as string, l]));
  };
  beforeAll(async () => {
    ns = await createTempNetns('fabrik-nl-');
    nl = createNetlink({ netns: ns.name });
  });
  afterAll(() => ns.destroy());

  it('builds VRFs, an L3 bridge + vxlan in a VRF and tr.<vid> on the trunk in an L2 bridge; re-applying is a no-op', async () => {
    const desired = hbr({ l2Vrf: 'red', mtu: 1450, redTable: 1001 });
    await nl.reconcile(desired);
    const l = await links();
    expect(l.get('red')).toMatchObject({
      ifalias: 'fabrik:hbr',
      linkinfo: { info_kind: 'vrf', info_data: { table: 1001 } },
    });
    expect(l.get('blue')).toMatchObject({ linkinfo: { info_kind: 'vrf', info_data: { table: 1002 } } });
    expect(l.get('br-l3-red')).toMatchObject({ master: 'red', linkinfo: { info_kind: 'bridge' } });
    expect(l.get('vx-l3-red')).toMatchObject({
      master: 'br-l3-red',
      linkinfo: { info_kind: 'vxlan', info_data: { id: 5001, learning: false } },
    });
    expect(l.get('br100')).toMatchObject({ master: 'red', mtu: 1450 });
    expect(l.get('vx100')).toMatchObject({
      master: 'br100',
      linkinfo: { info_slave_data: { learning: false, neigh_suppress: true } },
    });
    expect(l.get('tr.100')).toMatchObject({
      link: 'tr',
      master: 'br100',
      mtu: 1450,
      linkinfo: { info_kind: 'vlan', info_data: { id: 100 } },
    });
    expect(l.get('tr')).toMatchObject({ linkinfo: { info_kind: 'dummy' } });
    for (const name of ['red', 'blue', 'br-l3-red', 'vx-l3-red', 'br100', 'vx100', 'tr.100'])
      expect(l.get(name)?.['flags']).toContain('UP');
    // The bridge address is in the VRF's table.
    expect(JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '1001'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ dst: '10.100.0.0/24', dev: 'br100' })]),
    );
    expect(JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '1002'))).toEqual([
      expect.objectContaining({ dst: 'default', type: 'unreachable' }),
    ]);
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.br100.arp_accept'])).stdout.trim()).toBe('1');

    expect((await nl.reconcile(desired)).plan.ops).toEqual([]);
  });

  it('moves an L2 network to another VRF and changes its MTU in place', async () => {
    const before = await links();
    const moved = hbr({ l2Vrf: 'blue', mtu: 1400, redTable: 1001 });
    const { plan } = await nl.reconcile(moved);
    expect(plan.ops.filter((o) => o.op === 'link-add' || o.op === 'link-del')).toEqual([]);
    const after = await links();
    for (const name of ['br100', 'vx100', 'tr.100']) {
      expect(after.get(name)).toMatchObject({ ifindex: before.get(name)?.['ifindex'], mtu: 1400 });
    }
    expect(after.get('br100')).toMatchObject({ master: 'blue' });
    expect(JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '1002'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ dst: '10.100.0.0/24', dev: 'br100' })]),
    );
    expect((await nl.reconcile(moved)).plan.ops).toEqual([]);
  });

  it('recreates a VRF whose table changes and enslaves its bridge again', async () => {
    const retabled = hbr({ l2Vrf: 'blue', mtu: 1400, redTable: 1003 });
    const { plan } = await nl.reconcile(retabled);
    expect(plan.ops.filter((o) => o.op === 'link-del')).toEqual([{ op: 'link-del', name: 'red' }]);
    const l = await links();
    expect(l.get('red')).toMatchObject({ linkinfo: { info_data: { table: 1003 } } });
    expect(l.get('br-l3-red')).toMatchObject({ master: 'red' });
    expect((await nl.reconcile(retabled)).plan.ops).toEqual([]);
  });

  it("flips a bridge's vlan_filtering in place: same ifindex, ports stay enslaved", async () => {
    const state = (vlanFiltering: boolean): DesiredState => ({
      owner: 'vf',
      links: [
        { kind: 'bridge', name: 'brvf', vlanFiltering, up: true },
        { kind: 'dummy', name: 'vfport', master: 'brvf', up: true },
      ],
    });
    await nl.reconcile(state(false));
    const before = (await links()).get('brvf');
    expect(before).toMatchObject({ linkinfo: { info_data: { vlan_filtering: 0 } } });
    const { plan } = await nl.reconcile(state(true));
    expect(plan.ops).toEqual([{ op: 'bridge-set', name: 'brvf', options: { vlanFiltering: true } }]);
    const after = await links();
    expect(after.get('brvf')).toMatchObject({
      ifindex: before?.['ifindex'],
      linkinfo: { info_data: { vlan_filtering: 1 } },
    });
    expect(after.get('vfport')).toMatchObject({ master: 'brvf' });
    expect((await nl.reconcile(state(true))).plan.ops).toEqual([]);
    await nl.reconcile({ owner: 'vf', links: [] });
  });
});
