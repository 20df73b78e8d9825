import { describe, expect, it } from 'vitest';
import { createTestNetns } from '@fabrik/testkit/vitest';
import { createIprouteNetlink, createNetlink } from '../handle.js';
import { oracleView } from './oracle.testing.js';
import type { DesiredState } from '../desired.js';

// Differential: the same desired state applied through rtnetlink (createNetlink) and through
// iproute2 (createIprouteNetlink, the oracle) leaves the same kernel state, as iproute2 reads it
// back. Host kernel link kinds; vrf, vlan and dummy in the lab (apply.lab.test.ts).

function state(peerNetns: string): DesiredState {
  return {
    owner: 'diff',
    links: [
      {
        kind: 'bridge',
        name: 'br100',
        mtu: 1450,
        mac: '02:00:00:00:10:00',
        up: true,
        alias: 'l2-100',
        addresses: [
          { address: '10.100.0.1/24' },
          { address: 'fd00:100::1/64', nodad: true },
          { address: '10.101.0.1/24', noprefixroute: true },
        ],
        sysctls: { arpAccept: 1, arpNotify: 1, addrGenMode: 'none' },
      },
      {
        kind: 'vxlan',
        name: 'vx100',
        vni: 100,
        local: '192.0.2.1',
        dstport: 4789,
        learning: false,
        mtu: 1450,
        mac: '02:00:00:00:10:01',
        master: 'br100',
        up: true,
        port: { learning: false, neighSuppress: true },
      },
      {
        kind: 'vxlan',
        name: 'vx6',
        vni: 600,
        local: 'fd00::1',
        group: 'ff05::6',
        dev: 'br100',
        dstport: 4790,
        mac: '02:00:00:00:10:06',
      },
      {
        kind: 'veth',
        name: 'pod0',
        mac: '02:00:00:00:10:02',
        peer: { name: 'eth1', netns: peerNetns, mtu: 1400, mac: '02:00:00:00:10:03' },
        master: 'br100',
        up: true,
        port: { hairpin: true },
      },
      {
        kind: 'veth',
        name: 'va',
        mac: '02:00:00:00:10:04',
        peer: { name: 'vb', mac: '02:00:00:00:10:05' },
        mtu: 1500,
        up: true,
      },
      { kind: 'macvlan', name: 'mv100', parent: 'br100', mode: 'bridge', mac: '02:00:00:00:10:07', up: true },
      { kind: 'macvlan', name: 'mv101', parent: 'va', mode: 'private', mac: '02:00:00:00:10:08' },
    ],
    routes: [
      { dst: '10.200.0.0/24', via: '10.100.0.254', table: 100, mtu: 1400, advmss: 1360 },
      { dst: '10.201.0.0/24', type: 'blackhole', table: 100 },
      { dst: 'default', family: 'inet6', type: 'unreachable', table: 1001, metric: 4278198272 },
      { dst: '10.202.0.1/32', via: '203.0.113.1', dev: 'br100', onlink: true, src: '10.100.0.1' },
      { dst: '10.203.0.0/16', dev: 'br100', tos: 16, metric: 20 },
    ],
    neighbours: [{ dev: 'br100', address: '10.100.0.7', lladdr: '02:00:00:00:01:07' }],
    fdb: [
      { dev: 'vx100', mac: '00:00:00:00:00:00', dst: '192.0.2.2' },
      { dev: 'vx100', mac: '00:00:00:00:00:00', dst: '192.0.2.3' },
      { dev: 'pod0', mac: '02:00:00:00:01:08', self: false },
    ],
  };
}

describe('apply through rtnetlink and through iproute2 (host kernel)', () => {
  it('the same desired state leaves the same kernel state, also after changing and pruning it', async () => {
    const [a, b, peerA, peerB] = await Promise.all(
      ['fabrik-nat-', 'fabrik-ipr-', 'fabrik-natp-', 'fabrik-iprp-'].map((p) => createTestNetns(p)),
    );
    const native = createNetlink({ netns: a!.name });
    const oracle = createIprouteNetlink({ netns: b!.name });
    const first = [state(peerA!.name), state(peerB!.name)] as const;
    const [planned] = await Promise.all([native.reconcile(first[0]), oracle.reconcile(first[1])]);
    expect(planned.plan.ops.length).toBeGreaterThan(20);
    const viewA = await oracleView(a!, first[0]);
    expect(viewA.links.map((l) => l.spec.name)).toEqual([
      'br100',
      'lo',
      'mv100',
      'mv101',
      'pod0',
      'va',
      'vb',
      'vx100',
      'vx6',
    ]);
    expect(viewA.fdb.length).toBeGreaterThanOrEqual(3);
    expect(viewA).toEqual(await oracleView(b!, first[1]));
    // The peers in the other namespaces too.
    const peers = await Promise.all([peerA!, peerB!].map((p) => p.ip('-j', '-d', 'link', 'show', 'eth1')));
    const peer = (json: string) => {
      const [l] = JSON.parse(json) as Array<Record<string, unknown>>;
      return {
        mtu: l?.['mtu'],
        address: l?.['address'],
        kind: (l?.['linkinfo'] as Record<string, unknown>)?.['info_kind'],
      };
    };
    expect(peer(peers[0]!)).toEqual({ mtu: 1400, address: '02:00:00:00:10:03', kind: 'veth' });
    expect(peer(peers[0]!)).toEqual(peer(peers[1]!));

    // A change in place, a recreate (vni), and pruning (mv101, a route, an address gone).
    const change = (peerNetns: string): DesiredState => {
      const d = state(peerNetns);
      return {
        ...d,
        links: d.links
          .filter((l) => l.name !== 'mv101')
          .map((l) =>
            l.name === 'br100'
              ? { ...l, mtu: 1400, addresses: [{ address: '10.100.0.1/24' }] }
              : l.kind === 'vxlan' && l.name === 'vx100'
                ? { ...l, vni: 101, mtu: 1400 }
                : l,
          ),
        routes: d.routes?.slice(1),
      };
    };
    const second = [change(peerA!.name), change(peerB!.name)] as const;
    await Promise.all([native.reconcile(second[0]), oracle.reconcile(second[1])]);
    const changedA = await oracleView(a!, second[0]);
    expect(changedA.links.find((l) => l.spec.name === 'vx100')?.spec).toMatchObject({ vni: 101 });
    expect(changedA).toEqual(await oracleView(b!, second[1]));
    expect((await native.reconcile(second[0])).plan.ops).toEqual([]);
  });
});
