import { beforeAll, describe, expect, it } from 'vitest';
import { writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { uniqueName, type OvsInstance, type TempNetns } from '@fabrik/testkit';
import { runCommand } from '@fabrik/netcore';
import { SPEC_VERSIONS, specHas } from '@fabrik/cni-skel';
import { hostVethName } from '@fabrik/ovs-attachment';
import {
  cnitool,
  execPlugin,
  hostVeths,
  leasedIps,
  nodeState,
  sandboxSettings,
  writeConflist,
  writeNodeSettings,
  type ExecResult,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// libcni 1.1 (cnitool) speaks up to 1.0.0; 1.1.0 is exercised by executing the plugin directly.
const LIBCNI_VERSIONS = SPEC_VERSIONS.filter((v) => v !== '1.1.0');

const bed = usePluginTestBed({ bridgePrefix: 'brc', netnsPrefix: 'fcni-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));

function netConf(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    type: 'fabrik-ovs',
    bridge,
    vlan: 100,
    mtu: 1400,
    ipam: {
      type: 'host-local',
      subnet: '10.99.0.0/24',
      gateway: '10.99.0.1',
      routes: [{ dst: '10.98.0.0/16' }],
    },
    ...extra,
  };
}

async function portRow(name: string): Promise<Record<string, string> | undefined> {
  const out = await ovs.vsctl(
    '--format=json',
    '--columns=name,tag,trunks,vlan_mode,external_ids',
    'find',
    'Port',
    `name=${name}`,
  );
  const rows = (JSON.parse(out) as { data: unknown[][] }).data;
  const row = rows[0];
  if (!row) return undefined;
  const map = (cell: unknown) =>
    Object.fromEntries(((cell as [string, Array<[string, string]>])[1] ?? []).map(([k, v]) => [k, v]));
  const tag = row[1];
  return {
    name: String(row[0]),
    tag: typeof tag === 'number' ? String(tag) : '',
    vlan_mode: JSON.stringify(row[3]),
    trunks: JSON.stringify(row[2]),
    ...map(row[4]),
  };
}

async function podAddrs(
  ns: TempNetns,
  ifname: string,
): Promise<{ mac: string; mtu: number; addrs: string[] }> {
  const [l] = JSON.parse(await ns.ip('-j', 'addr', 'show', 'dev', ifname)) as Array<{
    address: string;
    mtu: number;
    addr_info: Array<{ local: string; prefixlen: number }>;
  }>;
  return {
    mac: l?.address ?? '',
    mtu: l?.mtu ?? 0,
    addrs: (l?.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`),
  };
}

async function cacheFiles(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) await walk(join(dir, e.name));
      else out.push(join(dir, e.name));
    }
  };
  await walk(sb.cacheDir);
  return out;
}

/** The runtime of a spec version: libcni's cnitool up to 1.0.0, direct execution for 1.1.0. */
function runtimeFor(version: string, net: string, conf: Record<string, unknown>, nsPath: string) {
  if ((LIBCNI_VERSIONS as readonly string[]).includes(version)) {
    return {
      add: async () => JSON.parse(await cnitool(sb, 'add', net, nsPath)) as unknown,
      check: () => cnitool(sb, 'check', net, nsPath),
      del: () => cnitool(sb, 'del', net, nsPath),
    };
  }
  const opts = { containerId: uniqueName('c'), netns: nsPath, ifname: 'net1' };
  const full = { cniVersion: version, ...conf };
  const must = (r: ExecResult) => {
    if (r.code !== 0) throw new Error(JSON.stringify(r.out));
    return r.out;
  };
  let prevResult: unknown;
  return {
    add: async () => (prevResult = must(await execPlugin(sb, 'ADD', full, opts))),
    check: async () => must(await execPlugin(sb, 'CHECK', { ...full, prevResult }, opts)),
    del: async () => must(await execPlugin(sb, 'DEL', full, opts)),
  };
}

describe.each(SPEC_VERSIONS)('spec %s', (version) => {
  it(`[${version}] ADD, ${specHas(version, 'check') ? 'CHECK, ' : ''}DEL through ${version === '1.1.0' ? 'direct execution' : 'libcni (cnitool)'}`, async () => {
    const net = uniqueName('lc');
    const conf = netConf(net);
    await writeConflist(sb, net, version, conf);
    const ns = await netns();
    const runtime = runtimeFor(version, net, conf, ns.path);
    const result = (await runtime.add()) as {
      cniVersion: string;
      interfaces: Array<{ name: string; mac: string; mtu?: number; sandbox?: string }>;
      ips: Array<{ address: string; interface: number; version?: string }>;
    };
    expect(result.cniVersion).toBe(version);
    const podIndex = result.interfaces.findIndex((i) => i.sandbox === ns.path);
    expect(result.interfaces[podIndex]?.name).toBe('net1');
    expect(result.ips[0]?.interface).toBe(podIndex);
    expect(result.ips[0]?.version).toBe(version.startsWith('0.') ? '4' : undefined);
    const hostIf = result.interfaces.find((i) => !i.sandbox)?.name ?? '';
    expect(hostIf).toMatch(/^fovs[0-9a-f]{11}$/);
    // Every interface of a 1.1.0 result carries its MTU (older versions have no such field).
    for (const i of result.interfaces) expect(i.mtu).toBe(version === '1.1.0' ? 1400 : undefined);

    const row = await portRow(hostIf);
    expect(row).toMatchObject({
      tag: '100',
      'fabrik-owner': 'cni-ovs',
      'fabrik-cni-network': net,
      'fabrik-cni-ifname': 'net1',
      'fabrik-cni-netns': ns.path,
    });
    const pod = await podAddrs(ns, 'net1');
    expect(pod.addrs).toContain(result.ips[0]?.address);
    expect(pod.mtu).toBe(1400);
    expect(pod.mac).toBe(result.interfaces[podIndex]?.mac);
    expect(await ns.ip('route', 'show', '10.98.0.0/16')).toContain('via 10.99.0.1 dev net1');
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.net1.arp_notify'])).stdout.trim()).toBe('1');
    expect(await leasedIps(sb, net)).toHaveLength(1);

    if (specHas(version, 'check')) {
      await runtime.check();
      // CHECK notices each difference, with code 101 and a message naming it.
      const tampered = async (
        change: () => Promise<unknown>,
        restore: () => Promise<unknown>,
        msg: RegExp,
      ) => {
        await change();
        const failure = await runtime.check().then(
          () => 'CHECK passed',
          (e: Error) => e.message,
        );
        expect(failure).toMatch(msg);
        if (version === '1.1.0') expect(failure).toContain('"code":101');
        await restore();
        await runtime.check();
      };
      await tampered(
        () => ovs.vsctl('set', 'Port', hostIf, 'tag=101'),
        () => ovs.vsctl('set', 'Port', hostIf, 'tag=100'),
        /tag=101/,
      );
      await tampered(
        () => ns.ip('route', 'del', '10.98.0.0/16'),
        () => ns.ip('route', 'add', '10.98.0.0/16', 'via', '10.99.0.1', 'dev', 'net1'),
        /net1 lacks route 10\.98\.0\.0\/16 via 10\.99\.0\.1 \(prevResult routes\[0\]\)/,
      );
      await tampered(
        () => ns.ip('route', 'change', '10.98.0.0/16', 'via', '10.99.0.7', 'dev', 'net1'),
        () => ns.ip('route', 'change', '10.98.0.0/16', 'via', '10.99.0.1', 'dev', 'net1'),
        /net1 lacks route 10\.98\.0\.0\/16 via 10\.99\.0\.1/,
      );
      await tampered(
        () => ns.ip('link', 'set', 'dev', 'net1', 'mtu', '1300'),
        () => ns.ip('link', 'set', 'dev', 'net1', 'mtu', '1400'),
        /net1 has MTU 1300, want 1400/,
      );
      await tampered(
        () => runCommand('ip', ['link', 'set', 'dev', hostIf, 'mtu', '1300']),
        () => runCommand('ip', ['link', 'set', 'dev', hostIf, 'mtu', '1400']),
        new RegExp(`host veth ${hostIf} has MTU 1300, want 1400`),
      );
    }

    await runtime.del();
    expect(await portRow(hostIf)).toBeUndefined();
    expect(await hostVeths()).not.toContain(hostIf);
    expect(await leasedIps(sb, net)).toEqual([]);
    expect((await cacheFiles()).filter((f) => f.includes(`/${net}/`))).toEqual([]);
    // DEL is idempotent.
    await runtime.del();
  });
});

describe('port settings, overrides, default bridge', () => {
  it('a trunk port gets trunks and vlan_mode=trunk; CHECK notices a lost address', async () => {
    const net = uniqueName('d');
    const conf = {
      cniVersion: '1.1.0',
      ...netConf(net, { vlan: 0, trunk: [{ id: 10 }, { minID: 20, maxID: 21 }] }),
    };
    const ns = await netns();
    const opts = { containerId: uniqueName('c'), netns: ns.path, ifname: 'net1' };
    const add = await execPlugin(sb, 'ADD', conf, opts);
    expect(add.code, JSON.stringify(add.out)).toBe(0);
    expect(add.out).toMatchObject({
      cniVersion: '1.1.0',
      interfaces: [{ mtu: 1400 }, { name: 'net1', mtu: 1400, sandbox: ns.path }],
      ips: [{ interface: 1, gateway: '10.99.0.1' }],
    });
    const hostIf = hostVethName(opts.containerId, 'net1');
    expect(await portRow(hostIf)).toMatchObject({
      tag: '',
      trunks: JSON.stringify(['set', [10, 20, 21]]),
      vlan_mode: '"trunk"',
    });
    const check = await execPlugin(sb, 'CHECK', { ...conf, prevResult: add.out }, opts);
    expect(check.code, JSON.stringify(check.out)).toBe(0);
    // CHECK fails when the Pod lost its address.
    const ip = (add.out?.['ips'] as Array<{ address: string }>)[0]?.address ?? '';
    await ns.ip('addr', 'del', ip, 'dev', 'net1');
    expect((await execPlugin(sb, 'CHECK', { ...conf, prevResult: add.out }, opts)).out).toMatchObject({
      code: 101,
    });
    expect((await execPlugin(sb, 'DEL', conf, opts)).code).toBe(0);
    expect(await portRow(hostIf)).toBeUndefined();
    expect(await leasedIps(sb, net)).toEqual([]);
  });

  it('honours CNI_ARGS MAC/IP and runtimeConfig (runtimeConfig wins) with static IPAM', async () => {
    const net = uniqueName('s');
    const conf = { cniVersion: '1.0.0', ...netConf(net, { ipam: { type: 'static' } }) };
    const ns = await netns();
    const opts = {
      containerId: uniqueName('c'),
      netns: ns.path,
      ifname: 'net2',
      args: 'IgnoreUnknown=1;FOO=bar;MAC=02:aa:00:00:00:01;IP=10.77.0.5/24;K8S_POD_NAME=web;K8S_POD_NAMESPACE=prod',
    };
    const add = await execPlugin(sb, 'ADD', conf, opts);
    expect(add.code, JSON.stringify(add.out)).toBe(0);
    expect(await podAddrs(ns, 'net2')).toMatchObject({
      mac: '02:aa:00:00:00:01',
      addrs: expect.arrayContaining(['10.77.0.5/24']),
    });
    expect(await portRow(hostVethName(opts.containerId, 'net2'))).toMatchObject({
      'k8s-pod-name': 'web',
      'k8s-pod-namespace': 'prod',
    });
    expect((await execPlugin(sb, 'DEL', conf, opts)).code).toBe(0);

    const ns2 = await netns();
    const opts2 = { ...opts, containerId: uniqueName('c'), netns: ns2.path };
    const withRuntime = { ...conf, runtimeConfig: { mac: '02:bb:00:00:00:02', ips: ['10.77.0.9/24'] } };
    expect((await execPlugin(sb, 'ADD', withRuntime, opts2)).code).toBe(0);
    const second = await podAddrs(ns2, 'net2');
    expect(second).toMatchObject({
      mac: '02:bb:00:00:00:02',
      addrs: expect.arrayContaining(['10.77.0.9/24']),
    });
    expect(second.addrs).not.toContain('10.77.0.5/24');
    expect((await execPlugin(sb, 'DEL', withRuntime, opts2)).code).toBe(0);
  });

  it('CHECK at 1.1.0 through an IPAM that stops at 1.0.0 (static) gets its prevResult as 1.0.0', async () => {
    const conf = {
      cniVersion: '1.1.0',
      ...netConf(uniqueName('s11'), {
        ipam: { type: 'static', addresses: [{ address: '10.76.0.5/24', gateway: '10.76.0.1' }] },
      }),
    };
    const opts = { containerId: uniqueName('c'), netns: (await netns()).path, ifname: 'net1' };
    const add = await execPlugin(sb, 'ADD', conf, opts);
    expect(add.code, JSON.stringify(add.out)).toBe(0);
    const check = await execPlugin(sb, 'CHECK', { ...conf, prevResult: add.out }, opts);
    expect(check.code, JSON.stringify(check.out)).toBe(0);
    expect((await execPlugin(sb, 'DEL', conf, opts)).code).toBe(0);
  });

  it('takes the bridge from the host agent config when the net conf has none', async () => {
    const net = uniqueName('h');
    const agentConfig = join(sb.dir, 'agent-host.yaml');
    await writeFile(
      agentConfig,
      `secondaryNetwork:\n  ovsBridges:\n    - bridgeName: ${bridge}\n      physicalInterfaces: []\n    - bridgeName: br-other\n`,
    );
    const { bridge: _b, ...noBridge } = netConf(net);
    const conf = { cniVersion: '1.0.0', ...noBridge };
    const ns = await netns();
    const settings = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), agentHostConfig: agentConfig },
      join(sb.dir, 'with-agent-config.yaml'),
    );
    const opts = {
      containerId: uniqueName('c'),
      netns: ns.path,
      ifname: 'net1',
      env: { FABRIK_CNI_CONFIG: settings },
    };
    const add = await execPlugin(sb, 'ADD', conf, opts);
    expect(add.code, JSON.stringify(add.out)).toBe(0);
    expect((await ovs.vsctl('port-to-br', hostVethName(opts.containerId, 'net1'))).trim()).toBe(bridge);
    expect((await execPlugin(sb, 'DEL', conf, opts)).code).toBe(0);
    // Without either, ADD names the missing field.
    const noAgentConfig = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), agentHostConfig: join(sb.dir, 'nope.yaml') },
      join(sb.dir, 'without-agent-config.yaml'),
    );
    const missing = await execPlugin(sb, 'ADD', conf, { ...opts, env: { FABRIK_CNI_CONFIG: noAgentConfig } });
    expect(missing.out).toMatchObject({ code: 7 });
    expect(String(missing.out?.['msg'])).toContain('bridge');
  });
});

describe('DEL', () => {
  it('succeeds without netns, without cache, after the netns is gone, and releases the IP', async () => {
    const net = uniqueName('del');
    const conf = { cniVersion: '1.0.0', ...netConf(net) };
    const ns = await netns();
    const opts = { containerId: uniqueName('c'), netns: ns.path, ifname: 'net1' };
    expect((await execPlugin(sb, 'ADD', conf, opts)).code).toBe(0);
    const hostIf = hostVethName(opts.containerId, 'net1');
    await runCommand('rm', ['-rf', join(sb.cacheDir, net)]);
    await ns.destroy();
    const del = await execPlugin(sb, 'DEL', conf, { ...opts, netns: '' });
    expect(del.code, JSON.stringify(del.out)).toBe(0);
    expect(await portRow(hostIf)).toBeUndefined();
    expect(await hostVeths()).not.toContain(hostIf);
    expect(await leasedIps(sb, net)).toEqual([]);
    expect((await execPlugin(sb, 'DEL', conf, { ...opts, netns: '' })).code).toBe(0);
  });
});

describe('DEL while OVSDB is down', () => {
  it('succeeds (no DEL loop), releases veth and IP, and leaves the port to GC', async () => {
    const net = uniqueName('dd');
    const conf = { cniVersion: '1.1.0', ...netConf(net) };
    const ns = await netns();
    const opts = { containerId: uniqueName('c'), netns: ns.path, ifname: 'net1' };
    expect((await execPlugin(sb, 'ADD', conf, opts)).code).toBe(0);
    const hostIf = hostVethName(opts.containerId, 'net1');
    const ovsdbGone = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), ovsdbSocket: `unix:${sb.dir}/gone.sock` },
      join(sb.dir, 'ovsdb-gone.yaml'),
    );
    const del = await execPlugin(sb, 'DEL', conf, { ...opts, env: { FABRIK_CNI_CONFIG: ovsdbGone } });
    expect(del.code, JSON.stringify(del.out)).toBe(0);
    expect(await hostVeths()).not.toContain(hostIf);
    expect(await leasedIps(sb, net)).toEqual([]);
    expect(await portRow(hostIf)).toBeDefined();
    expect((await execPlugin(sb, 'GC', { ...conf, 'cni.dev/valid-attachments': [] })).code).toBe(0);
    expect(await portRow(hostIf)).toBeUndefined();
    expect((await cacheFiles()).filter((f) => f.includes(`/${net}/`))).toEqual([]);
  });
});

describe('GC and STATUS', () => {
  it('GC removes attachments that are not valid and releases their IPs', async () => {
    const net = uniqueName('gc');
    const conf = { cniVersion: '1.1.0', ...netConf(net) };
    const a = { containerId: uniqueName('ca'), netns: (await netns()).path, ifname: 'net1' };
    const b = { containerId: uniqueName('cb'), netns: (await netns()).path, ifname: 'net1' };
    expect((await execPlugin(sb, 'ADD', conf, a)).code).toBe(0);
    expect((await execPlugin(sb, 'ADD', conf, b)).code).toBe(0);
    expect(await leasedIps(sb, net)).toHaveLength(2);
    const gc = await execPlugin(sb, 'GC', {
      ...conf,
      'cni.dev/valid-attachments': [{ containerID: a.containerId, ifname: 'net1' }],
    });
    expect(gc.code, JSON.stringify(gc.out)).toBe(0);
    expect(await portRow(hostVethName(a.containerId, 'net1'))).toBeDefined();
    expect(await portRow(hostVethName(b.containerId, 'net1'))).toBeUndefined();
    expect(await hostVeths()).not.toContain(hostVethName(b.containerId, 'net1'));
    expect(await leasedIps(sb, net)).toHaveLength(1);
    expect((await execPlugin(sb, 'GC', { ...conf, 'cni.dev/valid-attachments': [] })).code).toBe(0);
    expect(await portRow(hostVethName(a.containerId, 'net1'))).toBeUndefined();
    expect(await leasedIps(sb, net)).toEqual([]);
    expect((await cacheFiles()).filter((f) => f.includes(`/${net}/`))).toEqual([]);
  });

  it('GC finds a veth by its ownership mark when the OVS port and the cache record are gone', async () => {
    const net = uniqueName('gv');
    const conf = { cniVersion: '1.1.0', ...netConf(net) };
    const a = { containerId: uniqueName('ca'), netns: (await netns()).path, ifname: 'net1' };
    expect((await execPlugin(sb, 'ADD', conf, a)).code).toBe(0);
    const hostIf = hostVethName(a.containerId, 'net1');
    const [link] = JSON.parse(
      (await runCommand('ip', ['-j', 'link', 'show', 'dev', hostIf])).stdout,
    ) as Array<{ ifalias?: string }>;
    expect(link?.ifalias).toBe(`fabrik:cni-ovs:${net}:${a.containerId}:net1`);
    await ovs.vsctl('del-port', hostIf);
    await runCommand('rm', ['-rf', join(sb.cacheDir, net)]);
    expect((await execPlugin(sb, 'GC', { ...conf, 'cni.dev/valid-attachments': [] })).code).toBe(0);
    expect(await hostVeths()).not.toContain(hostIf);
    expect(await leasedIps(sb, net)).toEqual([]);
  });

  it('STATUS succeeds when OVSDB and the bridge are there, else code 50', async () => {
    const conf = { cniVersion: '1.1.0', ...netConf(uniqueName('st')) };
    expect((await execPlugin(sb, 'STATUS', conf)).code).toBe(0);
    expect((await execPlugin(sb, 'STATUS', { ...conf, bridge: 'br-missing' })).out).toMatchObject({
      code: 50,
    });
    const noOvsdb = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), ovsdbSocket: `unix:${sb.dir}/no.sock` },
      join(sb.dir, 'no-ovsdb.yaml'),
    );
    expect((await execPlugin(sb, 'STATUS', conf, { env: { FABRIK_CNI_CONFIG: noOvsdb } })).out).toMatchObject(
      { code: 50 },
    );
  });
});

describe('refusals and failures', () => {
  // Refused while the input is validated, before anything is created: the code and the field are
  // what can be observed (the node being unchanged is proven where something had been created).
  it.each([
    ['vlan out of range', { vlan: 4095 }, 7, 'vlan'],
    ['trunk range reversed', { trunk: [{ minID: 30, maxID: 20 }] }, 7, 'trunk.0'],
    ['bridge name too long', { bridge: 'bridge-name-way-too-long' }, 7, 'bridge'],
    ['unknown IPAM plugin', { ipam: { type: 'no-such-ipam' } }, 7, 'ipam.type'],
    ['bad MAC', { runtimeConfig: { mac: 'zz' } }, 7, 'runtimeConfig.mac'],
    ['MTU too small', { mtu: 20 }, 7, 'mtu'],
  ])('%s %j: code %i naming %s', async (_what, patch, code, field) => {
    const ns = await netns();
    const r = await execPlugin(
      sb,
      'ADD',
      { cniVersion: '1.0.0', ...netConf(uniqueName('bad')), ...patch },
      { containerId: uniqueName('c'), netns: ns.path, ifname: 'net1' },
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatchObject({ code });
    expect(String(r.out?.['msg'])).toContain(`${field}:`);
  });

  it('an undecodable config is code 6', async () => {
    const ns = await netns();
    const r = await execPlugin(sb, 'ADD', '{"cniVersion": "1.0.0", ', {
      containerId: 'x1',
      netns: ns.path,
      ifname: 'net1',
    });
    expect(r.out).toMatchObject({ code: 6 });
  });

  // Failures after the cache record, the veth, the port or the lease exist: all of it is undone,
  // so the node (as far as this attachment can have touched it) is exactly as before.
  async function addFailsCleanly(
    conf: Record<string, unknown>,
    code: number,
    env: Record<string, string> = {},
  ): Promise<void> {
    const ns = await netns();
    const containerId = uniqueName('c');
    const probe = { attachments: [{ containerId, ifname: 'net1' }], netns: [ns] };
    const before = await nodeState(sb, ovs, probe);
    const r = await execPlugin(sb, 'ADD', conf, { containerId, netns: ns.path, ifname: 'net1', env });
    expect(r.out, r.stderr).toMatchObject({ code });
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  }

  it('a bridge that does not exist fails ADD (code 7 naming bridge) and undoes veth, lease and record', async () => {
    await addFailsCleanly({ cniVersion: '1.0.0', ...netConf(uniqueName('nb')), bridge: 'br-nothere' }, 7);
  });

  it('an IPAM failure (exhausted range) undoes port, veth and record', async () => {
    const net = uniqueName('ex');
    const conf = {
      cniVersion: '1.0.0',
      ...netConf(net, {
        ipam: { type: 'host-local', ranges: [[{ subnet: '10.97.0.0/30' }]] },
      }),
    };
    const first = { containerId: uniqueName('c'), netns: (await netns()).path, ifname: 'net1' };
    expect((await execPlugin(sb, 'ADD', conf, first)).code).toBe(0);
    await addFailsCleanly(conf, 999);
    expect((await execPlugin(sb, 'DEL', conf, first)).code).toBe(0);
    expect(await leasedIps(sb, net)).toEqual([]);
  });

  it('OVSDB down: ADD is code 11 and undoes veth, lease and record', async () => {
    const ovsdbDown = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), ovsdbSocket: `unix:${sb.dir}/down.sock` },
      join(sb.dir, 'ovsdb-down.yaml'),
    );
    await addFailsCleanly({ cniVersion: '1.0.0', ...netConf(uniqueName('down')) }, 11, {
      FABRIK_CNI_CONFIG: ovsdbDown,
    });
  });
});

describe('50 concurrent attachments', () => {
  it('50 parallel ADDs then DELs leave no port, veth or IP', async () => {
    const net = uniqueName('par');
    const conf = {
      cniVersion: '1.0.0',
      ...netConf(net, { ipam: { type: 'host-local', subnet: '10.96.0.0/24' } }),
    };
    const pods = await Promise.all(
      Array.from({ length: 50 }, async () => ({
        containerId: uniqueName('p'),
        netns: (await netns()).path,
        ifname: 'net1',
      })),
    );
    const adds = await Promise.all(pods.map((p) => execPlugin(sb, 'ADD', conf, p)));
    expect(adds.filter((r) => r.code !== 0).map((r) => r.out)).toEqual([]);
    expect(new Set(adds.map((r) => (r.out?.['ips'] as Array<{ address: string }>)[0]?.address)).size).toBe(
      50,
    );
    expect(await leasedIps(sb, net)).toHaveLength(50);
    const dels = await Promise.all(pods.map((p) => execPlugin(sb, 'DEL', conf, p)));
    expect(dels.filter((r) => r.code !== 0).map((r) => r.out)).toEqual([]);
    const veths = await hostVeths();
    expect(pods.filter((p) => veths.includes(hostVethName(p.containerId, 'net1')))).toEqual([]);
    const ports = (
      await ovs.vsctl(
        '--format=json',
        '--columns=name',
        'find',
        'Port',
        `external_ids:fabrik-cni-network=${net}`,
      )
    ).trim();
    expect((JSON.parse(ports) as { data: unknown[] }).data).toEqual([]);
    expect(await leasedIps(sb, net)).toEqual([]);
  }, 180_000);
});
