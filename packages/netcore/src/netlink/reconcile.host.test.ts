import { describe, expect, it } from 'vitest';
import type { TempNetns } from '@fabrik/testkit';
import { createTestNetns } from '@fabrik/testkit/vitest';
import {
  createNetlink,
  isInvalidDesiredStateError,
  isKernelFeatureMissingError,
  isKernelRejectedError,
  isOwnershipConflictError,
  plan,
  type CreationJournal,
  type DesiredState,
  type KernelFeatureMissingError,
  type KernelRejectedError,
} from './index.js';

// observe -> plan -> apply against the host kernel in throwaway namespaces. Assertions read the
// kernel with raw `ip -j` / `bridge -j`, not with the code under test.

const tempNs = (): Promise<TempNetns> => createTestNetns('fabrik-nl-');
type Json = Record<string, unknown>;
/** The parts of a link that a change would touch (timers in info_data move on their own). */
const stable = (l: Json | undefined): unknown =>
  l && {
    ifindex: l['ifindex'],
    ifalias: l['ifalias'],
    mtu: l['mtu'],
    master: l['master'],
    flags: l['flags'],
    address: l['address'],
    kind: (l['linkinfo'] as Json | undefined)?.['info_kind'],
  };
async function links(ns: TempNetns): Promise<Map<string, Json>> {
  const all = JSON.parse(await ns.ip('-j', '-d', 'link', 'show')) as Json[];
  return new Map(all.map((l) => [l['ifname'] as string, l]));
}

function l2State(peerNetns: string): DesiredState {
  return {
    owner: 'test',
    links: [
      {
        kind: 'bridge',
        name: 'br100',
        mtu: 1450,
        up: true,
        addresses: [{ address: '10.100.0.1/24' }, { address: 'fd00:100::1/64', nodad: true }],
        sysctls: { arpAccept: 1, addrGenMode: 'none' },
      },
      {
        kind: 'vxlan',
        name: 'vx100',
        vni: 100,
        local: '192.0.2.1',
        dstport: 4789,
        learning: false,
        mtu: 1450,
        master: 'br100',
        up: true,
        port: { learning: false, neighSuppress: true },
      },
      {
        kind: 'veth',
        name: 'pod0',
        peer: { name: 'eth1', netns: peerNetns },
        master: 'br100',
        up: true,
        port: { hairpin: true },
      },
      { kind: 'macvlan', name: 'mv100', parent: 'br100', mode: 'bridge', up: true },
    ],
    routes: [
      { dst: '10.200.0.0/24', via: '10.100.0.254', table: 100 },
      { dst: '10.201.0.0/24', type: 'blackhole', table: 100 },
    ],
    neighbours: [{ dev: 'br100', address: '10.100.0.7', lladdr: '02:00:00:00:01:07' }],
    fdb: [{ dev: 'vx100', mac: '00:00:00:00:00:00', dst: '192.0.2.2' }],
  };
}

describe('reconcile (host kernel)', () => {
  it('builds bridge, vxlan, veth across namespaces, macvlan, addresses, routes, neighbours and FDB; re-applying is a no-op', async () => {
    const ns = await tempNs();
    const pod = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const desired = l2State(pod.name);
    const first = await nl.reconcile(desired);
    expect(first.plan.ops.length).toBeGreaterThan(0);

    const l = await links(ns);
    expect(l.get('br100')).toMatchObject({
      mtu: 1450,
      ifalias: 'fabrik:test',
      linkinfo: { info_kind: 'bridge' },
    });
    expect(l.get('vx100')).toMatchObject({
      master: 'br100',
      mtu: 1450,
      linkinfo: {
        info_kind: 'vxlan',
        info_data: { id: 100, local: '192.0.2.1', port: 4789, learning: false },
        info_slave_data: { learning: false, neigh_suppress: true },
      },
    });
    expect(l.get('pod0')).toMatchObject({
      master: 'br100',
      linkinfo: { info_slave_data: { hairpin: true } },
    });
    expect(l.get('mv100')).toMatchObject({
      link: 'br100',
      linkinfo: { info_kind: 'macvlan', info_data: { mode: 'bridge' } },
    });
    for (const name of ['br100', 'vx100', 'pod0', 'mv100']) expect(l.get(name)?.['flags']).toContain('UP');
    expect((await links(pod)).get('eth1')).toBeDefined();

    const [br] = JSON.parse(await ns.ip('-j', 'addr', 'show', 'br100')) as Json[];
    const addrs = (br?.['addr_info'] as Json[]).map((a) => `${a['local']}/${a['prefixlen']}`);
    expect(addrs.sort()).toEqual(['10.100.0.1/24', 'fd00:100::1/64']); // addr_gen_mode none: no link-local
    const routes = JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '100')) as Json[];
    expect(routes).toEqual([
      expect.objectContaining({ dst: '10.200.0.0/24', gateway: '10.100.0.254', protocol: '249' }),
      expect.objectContaining({ dst: '10.201.0.0/24', type: 'blackhole', protocol: '249' }),
    ]);
    expect(JSON.parse(await ns.ip('-j', 'neigh', 'show', 'dev', 'br100'))).toEqual([
      expect.objectContaining({ dst: '10.100.0.7', lladdr: '02:00:00:00:01:07' }),
    ]);
    const fdb = JSON.parse((await ns.exec('bridge', ['-j', 'fdb', 'show', 'dev', 'vx100'])).stdout) as Json[];
    expect(fdb).toEqual(
      expect.arrayContaining([expect.objectContaining({ mac: '00:00:00:00:00:00', dst: '192.0.2.2' })]),
    );
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.br100.arp_accept'])).stdout.trim()).toBe('1');

    const again = await nl.reconcile(desired);
    expect(again.plan.ops).toEqual([]);
    expect(again.result.applied).toBe(0);
  });

  it('changes mtu and master in place, and deletes what the owner no longer wants', async () => {
    const ns = await tempNs();
    const pod = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const desired = l2State(pod.name);
    await nl.reconcile(desired);
    const before = await links(ns);

    const changed: DesiredState = {
      ...desired,
      links: [
        ...desired.links.map((link) =>
          link.name === 'br100'
            ? { ...link, mtu: 1400 }
            : link.name === 'vx100'
              ? { ...link, mtu: 1400, master: 'br200' }
              : link,
        ),
        { kind: 'bridge' as const, name: 'br200', mtu: 1400, up: true },
      ].filter((link) => link.name !== 'mv100'),
      routes: [{ dst: '10.201.0.0/24', type: 'blackhole', table: 100 }],
    };
    const r = await nl.reconcile(changed);
    expect(r.plan.ops.flatMap((o) => (o.op === 'link-add' ? [o.spec.name] : []))).toEqual(['br200']);
    expect(r.plan.ops.filter((o) => o.op === 'link-del')).toEqual([{ op: 'link-del', name: 'mv100' }]);

    const after = await links(ns);
    expect(after.get('br100')).toMatchObject({ mtu: 1400, ifindex: before.get('br100')?.['ifindex'] });
    expect(after.get('vx100')).toMatchObject({
      mtu: 1400,
      master: 'br200',
      ifindex: before.get('vx100')?.['ifindex'],
    });
    // Re-enslaving resets port flags: the planner sets them again.
    expect(after.get('vx100')).toMatchObject({
      linkinfo: { info_slave_data: { learning: false, neigh_suppress: true } },
    });
    expect(after.has('mv100')).toBe(false);
    expect(
      (JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '100')) as Json[]).map((x) => x['dst']),
    ).toEqual(['10.201.0.0/24']);
    expect((await nl.reconcile(changed)).plan.ops).toEqual([]);
  });

  it('leaves foreign links alone, even of the same kind with a similar name, and refuses to take over a foreign name', async () => {
    const ns = await tempNs();
    const pod = await tempNs();
    await ns.ip('link', 'add', 'br1000', 'mtu', '1300', 'type', 'bridge');
    await ns.ip('link', 'add', 'vx1000', 'type', 'vxlan', 'id', '1000', 'dstport', '4789');
    await ns.ip('link', 'set', 'vx1000', 'master', 'br1000');
    await ns.ip('route', 'add', 'blackhole', '10.99.0.0/24', 'table', '100');
    // Another fabrik owner's link is foreign too.
    await ns.ip('link', 'add', 'br101', 'type', 'bridge');
    await ns.ip('link', 'set', 'br101', 'alias', 'fabrik:other');
    const foreignBefore = await links(ns);

    const nl = createNetlink({ netns: ns.name });
    await nl.reconcile(l2State(pod.name));
    await nl.reconcile({ owner: 'test', links: [], routes: [] });

    const after = await links(ns);
    for (const name of ['br1000', 'vx1000', 'br101'])
      expect(stable(after.get(name))).toEqual(stable(foreignBefore.get(name)));
    expect([...after.keys()].sort()).toEqual(['br1000', 'br101', 'lo', 'vx1000']);
    expect(JSON.parse(await ns.ip('-j', 'route', 'show', 'table', '100'))).toEqual([
      expect.objectContaining({ dst: '10.99.0.0/24' }),
    ]);

    const err = await nl
      .reconcile({ owner: 'test', links: [{ kind: 'bridge', name: 'br1000', mtu: 1500 }] })
      .catch((e: unknown) => e);
    expect(isOwnershipConflictError(err)).toBe(true);
    expect(stable((await links(ns)).get('br1000'))).toEqual(stable(foreignBefore.get('br1000')));
  });

  it("keeps a bridge's mtu when a port with a larger mtu joins", async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const desired: DesiredState = {
      owner: 'test',
      links: [
        { kind: 'bridge', name: 'br0', mtu: 1400, up: true },
        { kind: 'veth', name: 'v0', peer: { name: 'v0p' }, master: 'br0', up: true },
      ],
    };
    await nl.reconcile(desired);
    const l = await links(ns);
    expect(l.get('br0')).toMatchObject({ mtu: 1400 });
    expect(l.get('v0')).toMatchObject({ mtu: 1500, master: 'br0' });
  });

  it('rejects an invalid desired state naming the field, and changes nothing', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const bad = {
      owner: 'test',
      links: [
        { kind: 'bridge', name: 'br0' },
        { kind: 'vxlan', name: 'vx0', vni: 1 << 24, master: 'br0' },
      ],
    } as unknown as DesiredState;
    const err = await nl.reconcile(bad).catch((e: unknown) => e);
    expect(isInvalidDesiredStateError(err)).toBe(true);
    expect(err).toMatchObject({ path: 'links[1].vni' });
    const dangling = await nl
      .reconcile({ owner: 'test', links: [{ kind: 'bridge', name: 'br0', master: 'vrf-missing' }] })
      .catch((e: unknown) => e);
    expect(dangling).toMatchObject({ path: 'links[0].master' });
    expect([...(await links(ns)).keys()]).toEqual(['lo']);
  });

  it('maps a failing batch line back to its operation', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const desired: DesiredState = {
      owner: 'test',
      links: [{ kind: 'bridge', name: 'br0', up: true, addresses: [{ address: '10.1.0.1/24' }] }],
      routes: [{ dst: '10.2.0.0/24', via: '10.9.9.9', table: 100 }], // gateway not on any link
    };
    const err = await nl.reconcile(desired).catch((e: unknown) => e);
    expect(isKernelRejectedError(err)).toBe(true);
    const rejected = err as KernelRejectedError;
    expect(rejected.op).toMatchObject({ op: 'route-replace', route: { dst: '10.2.0.0/24' } });
    expect(rejected.operation).toBe('ip route replace 10.2.0.0/24 via 10.9.9.9 table 100 proto 249');
    expect(rejected.kernelMessage).toMatch(/gateway|unreachable/i);
  });

  it('names the missing module when the kernel lacks vrf', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const observed = await nl.observe();
    const p = plan({ owner: 'test', links: [{ kind: 'vrf', name: 'red', table: 1001, up: true }] }, observed);
    const err = await nl.apply(p).catch((e: unknown) => e);
    expect(isKernelFeatureMissingError(err)).toBe(true);
    expect(err as KernelFeatureMissingError).toMatchObject({ module: 'vrf', linkKind: 'vrf' });
  });

  it('converges with two routes to one destination that differ only in metric, and removes a stale one of a third metric', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const desired: DesiredState = {
      owner: 'test',
      links: [{ kind: 'bridge', name: 'br0', up: true, addresses: [{ address: '10.9.0.1/24' }] }],
      routes: [
        { dst: '10.8.0.0/24', via: '10.9.0.2', metric: 100 },
        { dst: '10.8.0.0/24', via: '10.9.0.3', metric: 200 },
      ],
    };
    await nl.reconcile(desired);
    // An owned route of another metric, as a previous desired state could have left behind.
    await ns.ip('route', 'add', '10.8.0.0/24', 'via', '10.9.0.4', 'metric', '300', 'proto', '249');
    const second = await nl.reconcile(desired);
    expect(second.plan.ops).toEqual([
      { op: 'route-del', route: expect.objectContaining({ dst: '10.8.0.0/24', metric: 300 }) },
    ]);
    const routes = JSON.parse(await ns.ip('-j', 'route', 'show', '10.8.0.0/24')) as Json[];
    expect(routes.map((r) => [r['metric'], r['gateway']])).toEqual([
      [100, '10.9.0.2'],
      [200, '10.9.0.3'],
    ]);
    expect((await nl.reconcile(desired)).plan.ops).toEqual([]);
  });

  it('marks each link in the line after its creation: a batch that fails on a later add leaves it marked, and a reconcile converges', async () => {
    const ns = await tempNs();
    // A foreign vxlan holds VNI 100 on port 4789: the kernel refuses a second one.
    await ns.ip('link', 'add', 'vxf', 'type', 'vxlan', 'id', '100', 'dstport', '4789');
    const nl = createNetlink({ netns: ns.name });
    const desired: DesiredState = {
      owner: 'test',
      links: [
        { kind: 'bridge', name: 'br100', up: true },
        { kind: 'vxlan', name: 'vx100', vni: 100, dstport: 4789, master: 'br100', up: true },
      ],
    };
    const err = await nl.reconcile(desired).catch((e: unknown) => e);
    expect(err).toMatchObject({ operation: expect.stringContaining('link add name vx100') });
    const afterFailure = await links(ns);
    expect(afterFailure.get('br100')).toMatchObject({ ifalias: 'fabrik:test' });
    expect(afterFailure.has('vx100')).toBe(false);

    await ns.ip('link', 'del', 'vxf');
    const retry = await nl.reconcile(desired);
    expect(
      retry.plan.ops.filter((o) => o.op === 'link-add').map((o) => o.op === 'link-add' && o.spec.name),
    ).toEqual(['vx100']);
    expect((await links(ns)).get('vx100')).toMatchObject({ master: 'br100', ifalias: 'fabrik:test' });
    expect((await nl.reconcile(desired)).plan.ops).toEqual([]);
  });

  it('journals the links an apply creates; after a kill between creation and mark, only journaled unmarked links are adopted', async () => {
    const ns = await tempNs();
    const held = new Set<string>();
    const existingAtRecord: string[][] = [];
    const journal: CreationJournal = {
      load: () => Promise.resolve(new Set(held)),
      async record(names) {
        for (const n of names) held.add(n);
        existingAtRecord.push([...(await links(ns)).keys()].filter((n) => names.includes(n)));
      },
      clear: () => Promise.resolve(held.clear()),
    };
    const desired: DesiredState = {
      owner: 'test',
      links: [
        { kind: 'bridge', name: 'br100', up: true },
        { kind: 'veth', name: 've0', peer: { name: 've1' }, up: true },
      ],
    };
    const nl = createNetlink({ netns: ns.name, journal });
    await nl.reconcile(desired);
    // Recorded before the batch ran (none of the names existed yet), cleared after it.
    expect(existingAtRecord.at(-1)).toEqual([]);
    expect(held.size).toBe(0);

    // What a kill -9 right after `link add` leaves: the link, without its mark, and the journal.
    await ns.ip('link', 'del', 'br100');
    await ns.ip('link', 'add', 'br100', 'type', 'bridge');
    await ns.ip('link', 'add', 'br200', 'type', 'bridge');
    const unjournaled = await createNetlink({ netns: ns.name })
      .reconcile(desired)
      .catch((e: unknown) => e);
    expect(isOwnershipConflictError(unjournaled)).toBe(true);
    held.add('br100');
    held.add('br200');
    // The restarted owner's handle adopts them: br100 is marked, br200 (no longer desired)
    // deleted; the journal is cleared.
    const restarted = () => createNetlink({ netns: ns.name, journal });
    await restarted().reconcile(desired);
    const after = await links(ns);
    expect(after.get('br100')).toMatchObject({ ifalias: 'fabrik:test' });
    expect(after.has('br200')).toBe(false);
    expect(held.size).toBe(0);

    // A name in the journal whose link carries someone else's alias stays foreign.
    await ns.ip('link', 'set', 'dev', 'br100', 'alias', 'theirs');
    held.add('br100');
    const err = await restarted()
      .reconcile(desired)
      .catch((e: unknown) => e);
    expect(isOwnershipConflictError(err)).toBe(true);
    expect((await links(ns)).get('br100')).toMatchObject({ ifalias: 'theirs' });
  });
});
