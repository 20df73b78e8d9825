import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFrrIntent } from '@fabrik/api';
import { createNetlink, type Netlink } from '@fabrik/netcore/netlink';
import { createTempNetns, type TempNetns } from '@fabrik/testkit';
import { hbrDesiredState, vrfTable } from './hbr-state.js';

const intent = parseFrrIntent({
  asn: 65000,
  routerId: '192.0.2.1',
  vtepIp: '192.0.2.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'internal' }] },
  vrfs: [{ name: 'red', vni: 1001 }],
  layer2s: [
    { vni: 2100, vlan: 100, vrf: 'red' },
    { vni: 2200, vlan: 200 },
  ],
});

describe('HBR state in the lab kernel', () => {
  let ns: TempNetns;
  let hbr: Netlink;
  const links = async () => new Map((await hbr.linkList()).map((l) => [l.spec.name, l.spec]));

  beforeAll(async () => {
    ns = await createTempNetns('fabrik-hbr-');
    hbr = createNetlink({ netns: ns.name });
    await ns.ip('link', 'add', 'tr', 'type', 'dummy'); // stands in for the host agent's trunk veth
    await ns.ip('link', 'set', 'tr', 'up');
  });
  afterAll(() => ns.destroy());

  it('phase l3-down creates the VRF and L3 VNI devices down, and nothing else', async () => {
    await hbr.reconcile(hbrDesiredState(intent, { owner: 'test', phase: 'l3-down' }), { prune: false });
    const l = await links();
    expect(l.get('red')).toMatchObject({ kind: 'vrf', table: vrfTable(1001), up: false });
    expect(l.get('vx1001')).toMatchObject({ kind: 'vxlan', vni: 1001, master: 'br1001', up: false });
    expect(l.has('tr.100')).toBe(false);
  });

  it('the full state brings everything up with tr.<vid> on the trunk in its bridge', async () => {
    await hbr.reconcile(hbrDesiredState(intent, { owner: 'test' }));
    const l = await links();
    expect(l.get('red')).toMatchObject({ up: true });
    expect(l.get('tr.100')).toMatchObject({ kind: 'vlan', id: 100, master: 'br2100', up: true });
    expect(l.get('br2100')).toMatchObject({ master: 'red' });
    expect(l.get('br2200')).toMatchObject({ master: 'hbr' });
  });

  it('an agent restart (l3-down again, then full) changes nothing that works', async () => {
    const first = await hbr.reconcile(hbrDesiredState(intent, { owner: 'test', phase: 'l3-down' }), {
      prune: false,
    });
    expect(first.plan.ops).toEqual([]);
    const l = await links();
    expect(l.get('red')).toMatchObject({ up: true });
    expect(l.get('tr.200')).toMatchObject({ up: true });
    const second = await hbr.reconcile(hbrDesiredState(intent, { owner: 'test' }));
    expect(second.plan.ops).toEqual([]);
  });
});
