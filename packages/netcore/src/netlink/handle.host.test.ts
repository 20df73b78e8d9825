import { spawn, type ChildProcess } from 'node:child_process';
import { readlink } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { TempNetns } from '@fabrik/testkit';
import { createTestNetns } from '@fabrik/testkit/vitest';
import { runCommand } from '../exec/run.js';
import {
  createNetlink,
  isInvalidDesiredStateError,
  isKernelFeatureMissingError,
  isKernelRejectedError,
  isLinkNotFoundError,
  isObjectExistsError,
  type KernelFeatureMissingError,
} from './index.js';

// The imperative verbs against the host kernel, each in throwaway namespaces. Assertions read the
// kernel with raw `ip -j`, not with the code under test.

const tempNs = (): Promise<TempNetns> => createTestNetns('fabrik-nl-');
const REPO = new URL('../../../../', import.meta.url).pathname;
async function ipJson(ns: TempNetns, ...args: string[]): Promise<Array<Record<string, unknown>>> {
  return JSON.parse((await ns.ip('-j', ...args)) || '[]') as Array<Record<string, unknown>>;
}

describe('createNetlink verbs (host kernel)', () => {
  it('adds, reads, modifies and deletes a bridge', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    await nl.linkAdd({ kind: 'bridge', name: 'br-t', mtu: 1400, up: true, alias: 'fabrik:test' });
    const [raw] = await ipJson(ns, '-d', 'link', 'show', 'br-t');
    expect(raw).toMatchObject({
      ifname: 'br-t',
      mtu: 1400,
      ifalias: 'fabrik:test',
      linkinfo: { info_kind: 'bridge' },
    });
    expect(raw?.['flags']).toContain('UP');

    const got = await nl.linkGet('br-t');
    expect(got.spec).toMatchObject({ kind: 'bridge', name: 'br-t', mtu: 1400, up: true, master: null });

    await nl.linkSetMtu('br-t', 1300);
    await nl.linkSetMac('br-t', '02:00:00:00:00:aa');
    await nl.linkSetDown('br-t');
    await nl.linkRename('br-t', 'br-u');
    const [renamed] = await ipJson(ns, 'link', 'show', 'br-u');
    expect(renamed).toMatchObject({ mtu: 1300, address: '02:00:00:00:00:aa' });
    expect(renamed?.['flags']).not.toContain('UP');

    await nl.linkDel('br-u');
    expect(await ipJson(ns, 'link', 'show', 'type', 'bridge')).toEqual([]);
  });

  it('reports a missing link and an existing name with typed errors', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    await expect(nl.linkDel('nope0')).rejects.toSatisfy(isLinkNotFoundError);
    await expect(nl.linkGet('nope0')).rejects.toSatisfy(isLinkNotFoundError);
    await nl.linkAdd({ kind: 'bridge', name: 'br-x' });
    await expect(nl.linkAdd({ kind: 'bridge', name: 'br-x' })).rejects.toSatisfy(isObjectExistsError);
    // With alias and up (one `ip -batch`): the add's error, and the existing link left as it was.
    await expect(
      nl.linkAdd({ kind: 'bridge', name: 'br-x', alias: 'fabrik:other', up: true }),
    ).rejects.toSatisfy(isObjectExistsError);
    const [existing] = await ipJson(ns, 'link', 'show', 'br-x');
    expect(existing).toMatchObject({ ifname: 'br-x' });
    expect(existing?.['ifalias']).toBeUndefined();
    expect(existing?.['flags']).not.toContain('UP');
    // All or nothing: a master that does not exist leaves no half-made link behind.
    await expect(nl.linkAdd({ kind: 'bridge', name: 'br-y', master: 'vrf-gone' })).rejects.toSatisfy(
      isLinkNotFoundError,
    );
    expect((await ipJson(ns, 'link', 'show')).map((l) => l['ifname'])).toEqual(['lo', 'br-x']);
  });

  it('rejects invalid names before running anything, without truncating', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const err = await nl
      .linkAdd({ kind: 'bridge', name: 'a-name-that-is-too-long' })
      .catch((e: unknown) => e);
    expect(isInvalidDesiredStateError(err)).toBe(true);
    expect(String(err)).toMatch(/spec\.name/);
    await expect(nl.linkAdd({ kind: 'vxlan', name: 'vx0', vni: 0 })).rejects.toThrow(/spec\.vni/);
    expect((await ipJson(ns, 'link', 'show')).map((l) => l['ifname'])).toEqual(['lo']);
  });

  it("refuses sysctls of 'all', 'default' and 'lo', which would set the namespace-wide knob or the loopback's", async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    const read = async (dev: string) =>
      (await ns.exec('sysctl', ['-n', `net.ipv4.conf.${dev}.arp_notify`])).stdout.trim();
    const before = await Promise.all(['all', 'default', 'lo'].map(read));
    for (const dev of ['all', 'default', 'lo']) {
      const err = await nl.sysctlSet(dev, { arpNotify: 1 }).catch((e: unknown) => e);
      expect(isInvalidDesiredStateError(err)).toBe(true);
      expect(err).toMatchObject({ path: 'dev' });
    }
    expect(await Promise.all(['all', 'default', 'lo'].map(read))).toEqual(before);
    expect(before).toEqual(['0', '0', '0']);
  });

  it('writes a sysctl in a namespace given by path also where its own /proc/sys is read-only, as in a container', async () => {
    const ns = await tempNs();
    await ns.ip('link', 'add', 'va', 'type', 'veth', 'peer', 'name', 'vb');
    const holder = await processInNetns(ns.name);
    const path = `/proc/${holder.pid}/ns/net`;
    // A process in a mount namespace of its own whose /proc/sys is a read-only bind mount (what a
    // container runtime gives an unprivileged container): a plain `sysctl -w` there must fail, and
    // sysctlSet must still set the value (through a private proc mount).
    const script = [
      "import { runCommand } from '@fabrik/netcore';",
      "import { createNetlink } from '@fabrik/netcore/netlink';",
      "await runCommand('mount', ['--bind', '/proc/sys', '/proc/sys']);",
      "await runCommand('mount', ['-o', 'remount,bind,ro', '/proc/sys']);",
      `const plain = await runCommand('nsenter', ['--net=${path}', 'sysctl', '-q', '-w', 'net.ipv4.conf.va.arp_accept=1']).then(() => 'written', () => 'refused');`,
      `await createNetlink({ netns: '${path}' }).sysctlSet('va', { arpNotify: 1 });`,
      'process.stdout.write(plain);',
    ].join('\n');
    const { stdout } = await runCommand(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        process.execPath,
        '--conditions=@fabrik/source',
        '--import',
        'tsx',
      ],
      { input: script, cwd: REPO },
    );
    expect(stdout).toBe('refused');
    const read = async (key: string) =>
      (await ns.exec('sysctl', ['-n', `net.ipv4.conf.va.${key}`])).stdout.trim();
    expect(await read('arp_notify')).toBe('1');
    expect(await read('arp_accept')).toBe('0');
  });

  it('says which module is missing for vrf (absent from the host kernel)', async () => {
    const ns = await tempNs();
    const err = await createNetlink({ netns: ns.name })
      .linkAdd({ kind: 'vrf', name: 'red', table: 1001 })
      .catch((e: unknown) => e);
    expect(isKernelFeatureMissingError(err)).toBe(true);
    expect((err as KernelFeatureMissingError).module).toBe('vrf');
  });

  it('creates a veth whose peer lands in another namespace, given by name and by path', async () => {
    const a = await tempNs();
    const b = await tempNs();
    const nl = createNetlink({ netns: a.name });
    await nl.linkAdd({ kind: 'veth', name: 'va', peer: { name: 'vb', netns: b.name }, up: true });
    expect((await ipJson(b, 'link', 'show', 'vb'))[0]).toMatchObject({ ifname: 'vb' });

    // A CNI runtime hands over a path such as /proc/PID/ns/net: hold one with a process.
    const holder = await processInNetns(b.name);
    const path = `/proc/${holder.pid}/ns/net`;
    await nl.linkAdd({ kind: 'veth', name: 'vc', peer: { name: 'vd', netns: path } });
    expect((await ipJson(b, 'link', 'show', 'vd'))[0]).toMatchObject({ ifname: 'vd' });

    // A handle on a netns path (nsenter) sees and changes that namespace.
    const inB = createNetlink({ netns: path });
    expect((await inB.linkList()).map((l) => l.spec.name).sort()).toEqual(['lo', 'vb', 'vd']);
    await inB.linkSetUp('vd');
    await inB.addrAdd('vd', { address: '192.0.2.2/24' });
    expect(await inB.addrList('vd')).toEqual([
      expect.objectContaining({ address: '192.0.2.2/24', dev: 'vd' }),
    ]);
    await inB.sysctlSet('vd', { arpAccept: 1 });
    expect((await b.exec('sysctl', ['-n', 'net.ipv4.conf.vd.arp_accept'])).stdout.trim()).toBe('1');

    // And moves a link back out, by name.
    await inB.linkSetNetns('vd', a.name);
    expect((await ipJson(a, 'link', 'show', 'vd'))[0]).toMatchObject({ ifname: 'vd' });
  });

  it('enslaves, sets port flags, and manages addresses, routes, neighbours and FDB entries', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    await nl.linkAdd({ kind: 'bridge', name: 'br0', up: true });
    await nl.linkAdd({
      kind: 'vxlan',
      name: 'vx0',
      vni: 42,
      local: '198.51.100.1',
      dstport: 4789,
      learning: false,
    });
    await nl.linkSetMaster('vx0', 'br0');
    await nl.linkSetPortFlags('vx0', { learning: false, neighSuppress: true });
    await nl.linkSetUp('vx0');
    const [vx] = await ipJson(ns, '-d', 'link', 'show', 'vx0');
    expect(vx).toMatchObject({
      master: 'br0',
      linkinfo: {
        info_data: { id: 42, learning: false },
        info_slave_data: { learning: false, neigh_suppress: true },
      },
    });

    await nl.addrAdd('br0', { address: '10.10.0.1/24' });
    await nl.addrReplace('br0', { address: 'fd10::1/64', nodad: true });
    await expect(nl.addrAdd('br0', { address: '10.10.0.1/24' })).rejects.toSatisfy(isObjectExistsError);
    const addrs = (await ipJson(ns, 'addr', 'show', 'br0'))[0]?.['addr_info'] as Array<
      Record<string, unknown>
    >;
    expect(addrs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ local: '10.10.0.1' }),
        expect.objectContaining({ local: 'fd10::1', nodad: true }),
      ]),
    );
    await nl.addrDel('br0', { address: '10.10.0.1/24' });
    expect((await nl.addrList('br0')).map((a) => a.address)).not.toContain('10.10.0.1/24');

    await nl.addrAdd('br0', { address: '10.10.0.1/24' });
    await nl.routeAdd({ dst: '10.20.0.0/24', via: '10.10.0.2', table: 100 });
    await nl.routeReplace({ dst: '10.30.0.0/24', type: 'blackhole', table: 100 });
    await nl.routeReplace({ dst: 'default', type: 'blackhole', table: 100, family: 'inet6' });
    const table100 = await ipJson(ns, 'route', 'show', 'table', '100');
    expect(table100).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dst: '10.20.0.0/24', gateway: '10.10.0.2' }),
        expect.objectContaining({ dst: '10.30.0.0/24', type: 'blackhole' }),
      ]),
    );
    expect(await nl.routeList({ table: 100 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dst: 'default', family: 'inet6', type: 'blackhole' }),
      ]),
    );
    await nl.routeDel({ dst: '10.20.0.0/24', via: '10.10.0.2', table: 100 });
    expect((await ipJson(ns, 'route', 'show', 'table', '100')).map((r) => r['dst'])).toEqual([
      '10.30.0.0/24',
    ]);

    await nl.neighReplace({ dev: 'br0', address: '10.10.0.9', lladdr: '02:00:00:00:00:09' });
    expect(await ipJson(ns, 'neigh', 'show', 'dev', 'br0')).toEqual([
      expect.objectContaining({ dst: '10.10.0.9', lladdr: '02:00:00:00:00:09', state: ['PERMANENT'] }),
    ]);

    await nl.fdbAdd({ dev: 'vx0', mac: '00:00:00:00:00:00', dst: '198.51.100.2' });
    await nl.fdbAdd({ dev: 'vx0', mac: '00:00:00:00:00:00', dst: '198.51.100.3' });
    const fdb = JSON.parse((await ns.exec('bridge', ['-j', 'fdb', 'show', 'dev', 'vx0'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(
      fdb
        .filter((f) => f['mac'] === '00:00:00:00:00:00')
        .map((f) => f['dst'])
        .sort(),
    ).toEqual(['198.51.100.2', '198.51.100.3']);
    await nl.fdbDel({ dev: 'vx0', mac: '00:00:00:00:00:00', dst: '198.51.100.2' });
    expect(
      (await nl.fdbList()).filter((f) => f.dev === 'vx0' && f.dst !== undefined).map((f) => f.dst),
    ).toEqual(['198.51.100.3']);
  });

  it('runs typed operations as one ip -batch in a namespace given by path, and sets arp_notify there', async () => {
    const ns = await tempNs();
    await ns.ip('link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'peer1');
    // CNI style: /run/netns/NAME (what CNI_NETNS usually is) and /proc/PID/ns/net.
    const byRunPath = createNetlink({ netns: ns.path });
    await byRunPath.sysctlSet('eth1', { arpNotify: 1 });
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.eth1.arp_notify'])).stdout.trim()).toBe('1');
    const holder = await processInNetns(ns.name);
    const byProcPath = createNetlink({ netns: `/proc/${holder.pid}/ns/net` });
    await byProcPath.sysctlSet('eth1', { arpNotify: 0 });
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.eth1.arp_notify'])).stdout.trim()).toBe('0');

    await byProcPath.batch([
      { op: 'addrAdd', dev: 'eth1', address: { address: '10.50.0.5/24' } },
      { op: 'addrAdd', dev: 'eth1', address: { address: 'fd50::5/64', nodad: true } },
      { op: 'linkSetUp', name: 'eth1' },
      {
        op: 'routeAdd',
        route: { dst: '10.60.0.0/16', via: '10.50.0.1', dev: 'eth1', mtu: 1400, advmss: 1360, metric: 7 },
      },
      { op: 'routeAdd', route: { dst: '10.70.0.0/24', dev: 'eth1', scope: 'link', table: 100 } },
      { op: 'routeAdd', route: { dst: 'default', family: 'inet6', via: 'fd50::1', dev: 'eth1' } },
    ]);
    const [link] = await ipJson(ns, 'addr', 'show', 'eth1');
    expect(link?.['flags']).toContain('UP');
    expect(link?.['addr_info']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ local: '10.50.0.5', prefixlen: 24 }),
        expect.objectContaining({ local: 'fd50::5', prefixlen: 64, nodad: true }),
      ]),
    );
    expect(await ipJson(ns, '-4', 'route', 'show', '10.60.0.0/16')).toEqual([
      expect.objectContaining({
        gateway: '10.50.0.1',
        dev: 'eth1',
        metric: 7,
        metrics: [{ mtu: 1400, advmss: 1360 }],
      }),
    ]);
    expect(await ipJson(ns, '-4', 'route', 'show', 'table', '100')).toEqual([
      expect.objectContaining({ dst: '10.70.0.0/24', dev: 'eth1', scope: 'link' }),
    ]);
    expect(await ipJson(ns, '-6', 'route', 'show', 'default')).toEqual([
      expect.objectContaining({ gateway: 'fd50::1', dev: 'eth1' }),
    ]);
    // What routeList decodes of the new attributes.
    expect(await byRunPath.routeList({ table: 254 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ dst: '10.60.0.0/16', mtu: 1400, advmss: 1360, scope: 0 }),
      ]),
    );

    // A failing line: earlier lines stay applied, the error names the line and carries its op.
    const failing = {
      op: 'routeAdd',
      route: { dst: '10.80.0.0/24', via: '10.99.0.1', dev: 'eth1' },
    } as const;
    const err = await byRunPath
      .batch([{ op: 'addrAdd', dev: 'eth1', address: { address: '10.50.1.5/24' } }, failing])
      .catch((e: unknown) => e);
    expect(isKernelRejectedError(err)).toBe(true);
    expect(err).toMatchObject({ operation: 'ip route add 10.80.0.0/24 via 10.99.0.1 dev eth1', op: failing });
    expect((await ipJson(ns, '-4', 'addr', 'show', 'eth1'))[0]?.['addr_info']).toEqual(
      expect.arrayContaining([expect.objectContaining({ local: '10.50.1.5' })]),
    );
    await expect(
      byRunPath.batch([{ op: 'addrAdd', dev: 'eth1', address: { address: '10.50.0.5/24' } }]),
    ).rejects.toSatisfy(isObjectExistsError);
    await expect(byRunPath.batch([{ op: 'linkSetUp', name: 'nope0' }])).rejects.toSatisfy(
      isLinkNotFoundError,
    );
    // Invalid input: nothing runs.
    await expect(
      byRunPath.batch([
        { op: 'addrAdd', dev: 'eth1', address: { address: '10.50.2.5/24' } },
        { op: 'linkSetUp', name: 'bad name' },
      ]),
    ).rejects.toThrow(/ops\[1\]\.name/);
    expect(JSON.stringify(await ipJson(ns, 'addr', 'show', 'eth1'))).not.toContain('10.50.2.5');
  });

  it('creates a macvlan on a parent', async () => {
    const ns = await tempNs();
    const nl = createNetlink({ netns: ns.name });
    await nl.linkAdd({ kind: 'veth', name: 'p0', peer: { name: 'p1' } });
    await nl.linkAdd({ kind: 'macvlan', name: 'mv0', parent: 'p0', mode: 'bridge' });
    expect((await nl.linkGet('mv0')).spec).toMatchObject({ kind: 'macvlan', parent: 'p0', mode: 'bridge' });
    const [raw] = await ipJson(ns, '-d', 'link', 'show', 'mv0');
    expect(raw).toMatchObject({
      link: 'p0',
      linkinfo: { info_kind: 'macvlan', info_data: { mode: 'bridge' } },
    });
  });
});

/** A process that lives in `netns` until the test ends, so that /proc/PID/ns/net stays valid. */
async function processInNetns(netns: string): Promise<ChildProcess & { pid: number }> {
  const child = spawn('ip', ['netns', 'exec', netns, 'sleep', '600'], { stdio: 'ignore' });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const own = await readlink('/proc/self/ns/net');
  for (let i = 0; i < 200; i++) {
    // `ip netns exec` switches namespace, then execs sleep in the same process.
    const theirs = child.pid ? await readlink(`/proc/${child.pid}/ns/net`).catch(() => own) : own;
    if (theirs !== own) return child as ChildProcess & { pid: number };
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the netns holder process did not enter the namespace');
}
