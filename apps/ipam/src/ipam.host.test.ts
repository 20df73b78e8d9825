// fabrik-ipam through libcni (cnitool) and executed directly, against the test API server: what a
// runtime sees (results, error codes, idempotence) and what the IPPools hold afterwards. The
// network configs here use fabrik-ipam as their only plugin (libcni runs an IPAM plugin like any
// other): fabrik-ipam never enters CNI_NETNS, so the namespaces are just paths that name the
// attachments (cnitool derives the container id from it).
import { parseAddress, poolSpace } from '@fabrik/ippool';
import { isCommandError } from '@fabrik/netcore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cnitoolIpam,
  createIpamSandbox,
  createPool,
  execIpam,
  ipamConf,
  podArgs,
  writeConflist,
  type IpamSandbox,
} from '../test/harness.js';

let sb: IpamSandbox;
beforeAll(async () => {
  sb = await createIpamSandbox();
});
afterAll(() => sb?.remove());

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
// Each ADD and DEL through libcni is two Node processes (VERSION, then the verb): the tests with
// dozens of them at once get minutes on a loaded 2-core machine.
const netnsPath = (net: string, i: number) => `/run/netns/${net}-${i}`;

/** The pool as stored, checked: each address once, usage equal to the entries. */
async function stored(name: string) {
  const pool = await sb.pools.get(name);
  const entries = pool.status?.ipAddresses ?? [];
  expect(new Set(entries.map((e) => parseAddress(e.ipAddress).value)).size).toBe(entries.length);
  if (pool.status)
    expect(pool.status.usage).toEqual({ total: Number(poolSpace(pool.spec).size), used: entries.length });
  return entries;
}

/** An IPAM-only conflist for `pools`. */
async function network(name: string, ipam: Record<string, unknown>): Promise<void> {
  await writeConflist(sb, name, [{ type: 'fabrik-ipam', ipam: { type: 'fabrik-ipam', ...ipam } }]);
}

/** The stderr of a failed cnitool call (libcni prints the plugin's error message). */
async function cnitoolError(promise: Promise<string>): Promise<string> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isCommandError(e)) throw new Error(`cnitool succeeded or failed oddly: ${String(e)}`);
  return e.stderr;
}

describe('ADD and DEL through libcni', () => {
  it('50 concurrent ADDs: 50 distinct addresses, status and usage consistent; 50 DELs empty the pool', async () => {
    await createPool(sb, 'concurrent-v4', {
      ipRanges: [{ cidr: '10.60.0.0/24' }],
      subnetInfo: { gateway: '10.60.0.1', prefixLength: 24, vlan: 160 },
    });
    await network('concurrent', { ippools: ['concurrent-v4'] });
    const results = await Promise.all(
      range(50).map(
        async (i) =>
          JSON.parse(
            await cnitoolIpam(sb, 'add', 'concurrent', netnsPath('concurrent', i), { args: podArgs(i) }),
          ) as { ips: Array<{ address: string; gateway: string }>; fabrik?: unknown },
      ),
    );
    const addresses = results.map((r) => r.ips[0]?.address);
    expect(new Set(addresses).size).toBe(50);
    expect(results.every((r) => r.ips.length === 1 && r.ips[0]?.gateway === '10.60.0.1')).toBe(true);
    expect([...addresses].sort()).toEqual(
      range(50)
        .map((i) => `10.60.0.${i + 2}/24`)
        .sort(),
    );
    const entries = await stored('concurrent-v4');
    expect(entries).toHaveLength(50);
    // Every entry names its Pod and network; its address is the one that Pod's ADD returned.
    const byPod = new Map(entries.map((e) => [e.owner.pod?.name, `${e.ipAddress}/24`]));
    expect(byPod).toEqual(new Map(range(50).map((i) => [`pod-${i}`, addresses[i]])));
    expect(entries.every((e) => e.owner.pod?.network === 'concurrent' && e.owner.pod.ifName === 'net1')).toBe(
      true,
    );

    await Promise.all(
      range(50).map((i) =>
        cnitoolIpam(sb, 'del', 'concurrent', netnsPath('concurrent', i), { args: podArgs(i) }),
      ),
    );
    expect(await stored('concurrent-v4')).toEqual([]);
    expect((await sb.pools.get('concurrent-v4')).status?.usage).toEqual({ total: 253, used: 0 });
  }, 300_000);

  it('a repeated ADD returns the same address and writes nothing; DEL twice is success', async () => {
    await createPool(sb, 'repeat-v4', {
      ipRanges: [{ start: '10.61.0.10', end: '10.61.0.20' }],
      subnetInfo: { gateway: '10.61.0.1', prefixLength: 24 },
    });
    await createPool(sb, 'repeat-v6', {
      ipRanges: [{ cidr: '2001:db8:61::/120' }],
      subnetInfo: { gateway: '2001:db8:61::1', prefixLength: 64 },
    });
    await network('repeat', { ippools: ['repeat-v4', 'repeat-v6'], routes: [{ dst: '10.0.0.0/8' }] });
    const first = JSON.parse(
      await cnitoolIpam(sb, 'add', 'repeat', netnsPath('repeat', 1), { args: podArgs(1) }),
    );
    expect(first).toMatchObject({
      cniVersion: '1.0.0',
      ips: [
        { address: '10.61.0.10/24', gateway: '10.61.0.1' },
        { address: '2001:db8:61::2/64', gateway: '2001:db8:61::1' },
      ],
      routes: [{ dst: '10.0.0.0/8' }],
    });
    const versions = [
      (await sb.pools.get('repeat-v4')).metadata.resourceVersion,
      (await sb.pools.get('repeat-v6')).metadata.resourceVersion,
    ];
    // libcni's ADD for an attachment it has a result for: the plugin runs again and must agree.
    const again = JSON.parse(
      await cnitoolIpam(sb, 'add', 'repeat', netnsPath('repeat', 1), { args: podArgs(1) }),
    );
    expect(again).toEqual(first);
    expect([
      (await sb.pools.get('repeat-v4')).metadata.resourceVersion,
      (await sb.pools.get('repeat-v6')).metadata.resourceVersion,
    ]).toEqual(versions);

    await cnitoolIpam(sb, 'check', 'repeat', netnsPath('repeat', 1), { args: podArgs(1) });
    await cnitoolIpam(sb, 'del', 'repeat', netnsPath('repeat', 1), { args: podArgs(1) });
    await cnitoolIpam(sb, 'del', 'repeat', netnsPath('repeat', 1), { args: podArgs(1) });
    expect(await stored('repeat-v4')).toEqual([]);
    expect(await stored('repeat-v6')).toEqual([]);
  });

  it('an exhausted pool fails ADD with a message naming it, and nothing is allocated', async () => {
    await createPool(sb, 'small-v4', {
      ipRanges: [{ start: '10.62.0.10', end: '10.62.0.12' }],
      subnetInfo: { gateway: '10.62.0.1', prefixLength: 24 },
    });
    await createPool(sb, 'small-v6', {
      ipRanges: [{ cidr: '2001:db8:62::/120' }],
      subnetInfo: { gateway: '2001:db8:62::1', prefixLength: 64 },
    });
    await network('small', { ippools: ['small-v6', 'small-v4'] });
    for (const i of [1, 2, 3])
      await cnitoolIpam(sb, 'add', 'small', netnsPath('small', i), { args: podArgs(i) });
    const stderr = await cnitoolError(
      cnitoolIpam(sb, 'add', 'small', netnsPath('small', 4), { args: podArgs(4) }),
    );
    expect(stderr).toContain('IPPool small-v4 is exhausted: all 3 of its addresses are in use');
    const direct = await execIpam(sb, 'ADD', ipamConf('small', { ippools: ['small-v6', 'small-v4'] }), {
      containerId: 'c5',
      netns: netnsPath('small', 5),
      ifname: 'net1',
      args: podArgs(5),
    });
    expect(direct).toMatchObject({ code: 1, out: { code: 100 } });
    // Neither pool holds anything for Pods 4 and 5: the IPv6 address taken first was released.
    for (const pool of ['small-v4', 'small-v6'])
      expect((await stored(pool)).map((e) => e.owner.pod?.name).sort()).toEqual(['pod-1', 'pod-2', 'pod-3']);
  });
});

describe('the API server down', () => {
  it('ADD fails with code 11 and takes nothing; STATUS is 50; after the restart both work', async () => {
    await createPool(sb, 'down-v4', {
      ipRanges: [{ cidr: '10.63.0.0/24' }],
      subnetInfo: { gateway: '10.63.0.1', prefixLength: 24 },
    });
    const conf = ipamConf('down', { ippools: ['down-v4'] });
    const attachment = {
      containerId: 'down-1',
      netns: netnsPath('down', 1),
      ifname: 'net1',
      args: podArgs(1),
    };
    await sb.server.stop();
    try {
      const add = await execIpam(sb, 'ADD', conf, attachment);
      expect(add).toMatchObject({ code: 1, out: { code: 11 } });
      expect(String(add.out?.['msg'])).toContain('API server unreachable');
      expect(await execIpam(sb, 'STATUS', conf)).toMatchObject({ code: 1, out: { code: 50 } });
      // DEL cannot release while the server is away: code 11, and the runtime tries again.
      expect(await execIpam(sb, 'DEL', conf, attachment)).toMatchObject({ code: 1, out: { code: 11 } });
    } finally {
      await sb.server.start();
    }
    expect(await stored('down-v4')).toEqual([]);
    expect(await execIpam(sb, 'STATUS', conf)).toMatchObject({ code: 0 });
    expect(await execIpam(sb, 'ADD', conf, attachment)).toMatchObject({
      code: 0,
      out: { ips: [{ address: '10.63.0.2/24' }] },
    });
  });

  it('stopped in the middle of 20 concurrent ADDs: once it is back and the runtime has sent DEL for the failed ones, the pool holds exactly the successful ones', async () => {
    await createPool(sb, 'cut-v4', {
      ipRanges: [{ cidr: '10.64.0.0/24' }],
      subnetInfo: { gateway: '10.64.0.1', prefixLength: 24 },
    });
    await network('cut', { ippools: ['cut-v4'] });
    let stopped: Promise<void> | undefined;
    const outcomes = await Promise.all(
      range(20).map((i) =>
        cnitoolIpam(sb, 'add', 'cut', netnsPath('cut', i), { args: podArgs(i) }).then(
          (out) => {
            // The first success stops the server: the others are in flight or not started yet.
            stopped ??= sb.server.stop();
            return { i, address: (JSON.parse(out) as { ips: Array<{ address: string }> }).ips[0]?.address };
          },
          (e: unknown) => ({ i, error: isCommandError(e) ? e.stderr : String(e) }),
        ),
      ),
    );
    await stopped;
    await sb.server.start();
    const failed = outcomes.filter((o) => 'error' in o);
    const succeeded = outcomes.filter((o): o is { i: number; address: string } => 'address' in o);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((f) => 'error' in f && /unreachable|try again/i.test(f.error))).toBe(true);
    // A failed ADD whose write reached the server before it went away may hold an address: the
    // runtime's DEL after the failed ADD releases it.
    for (const f of failed)
      await cnitoolIpam(sb, 'del', 'cut', netnsPath('cut', f.i), { args: podArgs(f.i) });
    const entries = await stored('cut-v4');
    expect(new Map(entries.map((e) => [e.owner.pod?.name, `${e.ipAddress}/24`]))).toEqual(
      new Map(succeeded.map((s) => [`pod-${s.i}`, s.address])),
    );
  }, 300_000);
});

describe('CHECK, GC and refusals', () => {
  it('CHECK fails with code 101 when the pool lost the address or prevResult lacks it', async () => {
    await createPool(sb, 'check-v4', {
      ipRanges: [{ cidr: '10.65.0.0/24' }],
      subnetInfo: { gateway: '10.65.0.1', prefixLength: 24 },
    });
    const conf = ipamConf('check', { ippools: ['check-v4'] });
    const attachment = {
      containerId: 'check-1',
      netns: netnsPath('check', 1),
      ifname: 'net1',
      args: podArgs(1),
    };
    const add = await execIpam(sb, 'ADD', conf, attachment);
    expect(await execIpam(sb, 'CHECK', { ...conf, prevResult: add.out }, attachment)).toMatchObject({
      code: 0,
    });
    const other = { ...add.out, ips: [{ address: '10.65.0.99/24', gateway: '10.65.0.1' }] };
    const wrong = await execIpam(sb, 'CHECK', { ...conf, prevResult: other }, attachment);
    expect(wrong).toMatchObject({ code: 1, out: { code: 101 } });
    expect(String(wrong.out?.['msg'])).toContain(
      'prevResult does not list 10.65.0.2/24 from IPPool check-v4',
    );
    await execIpam(sb, 'DEL', conf, attachment);
    const lost = await execIpam(sb, 'CHECK', { ...conf, prevResult: add.out }, attachment);
    expect(lost).toMatchObject({ code: 1, out: { code: 101 } });
    expect(String(lost.out?.['msg'])).toContain(
      'ipam.ippools.0: IPPool check-v4 holds no address for this attachment',
    );
    expect((await execIpam(sb, 'CHECK', conf, attachment)).out).toMatchObject({ code: 7 });
  });

  it("GC releases the network's addresses whose attachments are not valid; another network's stay", async () => {
    await createPool(sb, 'gc-v4', {
      ipRanges: [{ cidr: '10.66.0.0/24' }],
      subnetInfo: { gateway: '10.66.0.1', prefixLength: 24 },
    });
    await network('gc-a', { ippools: ['gc-v4'] });
    await network('gc-b', { ippools: ['gc-v4'] });
    for (const i of [1, 2, 3]) await cnitoolIpam(sb, 'add', 'gc-a', netnsPath('gc', i), { args: podArgs(i) });
    await cnitoolIpam(sb, 'add', 'gc-b', netnsPath('gc', 4), { args: podArgs(4) });
    const entries = await stored('gc-v4');
    const containerOf = (pod: string) =>
      entries.find((e) => e.owner.pod?.name === pod)?.owner.pod?.containerID;
    const gc = await execIpam(
      sb,
      'GC',
      ipamConf(
        'gc-a',
        { ippools: ['gc-v4'] },
        { 'cni.dev/valid-attachments': [{ containerID: containerOf('pod-2'), ifname: 'net1' }] },
      ),
    );
    expect(gc).toEqual({ code: 0, out: undefined, stderr: '' });
    expect((await stored('gc-v4')).map((e) => e.owner.pod?.name).sort()).toEqual(['pod-2', 'pod-4']);
    expect((await execIpam(sb, 'GC', ipamConf('gc-a', { ippools: ['gc-v4'] }))).out).toMatchObject({
      code: 7,
    });
  });

  it.each([
    [{ ippools: ['refused-v4'], kubeconfig: '/etc/kubernetes/admin.conf' }, 7, 'ipam.kubeconfig'],
    [{ ippools: ['refused-v4'], timeoutMs: 500 }, 7, 'ipam.timeoutMs'],
    [{ ippool: 'refused-v4', ippools: ['refused-v4'] }, 7, 'ipam.ippools'],
    [{ ippools: ['refused-v4', 'no-such-pool'] }, 7, 'ipam.ippools.1: IPPool no-such-pool does not exist'],
    [
      { ippools: ['refused-v4', 'refused-other-v4'] },
      7,
      'ipam.ippools.1: IPPools refused-v4 and refused-other-v4 are both IPv4',
    ],
  ])('refuses ipam %j with code %i naming %s, and writes nothing', async (ipam, code, text) => {
    for (const [name, net] of [
      ['refused-v4', '10.67.0'],
      ['refused-other-v4', '10.68.0'],
    ] as const) {
      await createPool(sb, name, {
        ipRanges: [{ cidr: `${net}.0/24` }],
        subnetInfo: { gateway: `${net}.1`, prefixLength: 24 },
      }).catch(() => undefined);
    }
    const r = await execIpam(sb, 'ADD', ipamConf('refused', ipam), {
      containerId: 'refused-1',
      netns: netnsPath('refused', 1),
      ifname: 'net1',
      args: podArgs(1),
    });
    expect(r).toMatchObject({ code: 1, out: { code } });
    expect(String(r.out?.['msg'])).toContain(text);
    expect((await sb.pools.get('refused-v4')).status).toBeUndefined();
    expect((await sb.pools.get('refused-other-v4')).status).toBeUndefined();
  });

  it('refuses an ADD without the Pod in CNI_ARGS with code 4', async () => {
    const r = await execIpam(sb, 'ADD', ipamConf('nopod', { ippools: ['refused-v4'] }), {
      containerId: 'nopod-1',
      netns: netnsPath('nopod', 1),
      ifname: 'net1',
    });
    expect(r).toMatchObject({ code: 1, out: { code: 4 } });
    expect(String(r.out?.['msg'])).toContain('K8S_POD_NAME and K8S_POD_NAMESPACE are required');
  });
});
