import { beforeAll, describe, expect, it } from 'vitest';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uniqueName, type OvsInstance, type TempNetns } from '@fabrik/testkit';
import { runCommand } from '@fabrik/netcore';
import { CNI_OVS_OWNER, PortIds } from '@fabrik/api';
import { hostVethName } from '@fabrik/ovs-attachment';
import {
  execPlugin,
  hostVeths,
  nodeState,
  sandboxSettings,
  writeNodeSettings,
  type ExecResult,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// Input from other people (network configs written by tenants, environments from any runtime, the
// node's settings file): every refusal has the spec's code and names the culprit, leaves the node
// exactly as it was, and comes in bounded time (each call is killed after CALL_LIMIT_MS, which
// turns a hang into a failure); DEL succeeds whenever there is nothing to delete. Each row here was
// a defect of an adversarial run (issue 19): a hang, a code 999, or a DEL that failed forever.

const CALL_LIMIT_MS = 30_000;

const bed = usePluginTestBed({ bridgePrefix: 'brh', netnsPrefix: 'fhi-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));

const conf = (name = uniqueName('h'), extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  cniVersion: '1.1.0',
  name,
  type: 'fabrik-ovs',
  bridge,
  vlan: 100,
  ipam: { type: 'host-local', subnet: '10.61.0.0/24' },
  ...extra,
});

/** A settings file of this sandbox with `patch` applied. */
const settingsWith = (patch: Record<string, unknown>) =>
  writeNodeSettings(
    sb,
    { ...sandboxSettings(sb, ovs.endpoint), ...patch },
    join(sb.dir, `${uniqueName('s')}.yaml`),
  );

interface Call {
  command?: string;
  config?: unknown;
  containerId?: string;
  ifname?: string;
  netnsPath?: string;
  env?: Record<string, string>;
}

/** Runs the plugin with a valid call changed by `call`, in a fresh Pod netns. */
async function run(
  call: Call,
): Promise<{ r: ExecResult; ns: TempNetns; containerId: string; ifname: string }> {
  const ns = await netns();
  const containerId = call.containerId ?? uniqueName('c');
  const ifname = call.ifname ?? 'net1';
  const r = await execPlugin(sb, call.command ?? 'ADD', call.config ?? conf(), {
    containerId,
    ifname,
    netns: call.netnsPath ?? ns.path,
    timeoutMs: CALL_LIMIT_MS,
    ...(call.env ? { env: call.env } : {}),
  });
  return { r, ns, containerId, ifname };
}

/** `code` and a message matching `msg`, with the node exactly as before. */
async function expectRefusedCleanly(
  call: () => Promise<Call>,
  code: number,
  msg: RegExp,
): Promise<ExecResult> {
  const c = await call();
  const containerId = c.containerId ?? uniqueName('c');
  const ns = await netns();
  const probe = { attachments: [{ containerId, ifname: c.ifname ?? 'net1' }], netns: [ns] };
  const before = await nodeState(sb, ovs, probe);
  const { r } = await run({ ...c, containerId, netnsPath: c.netnsPath ?? ns.path });
  expect(r.out, r.stderr).toMatchObject({ code });
  expect(String(r.out?.['msg'])).toMatch(msg);
  expect(await nodeState(sb, ovs, probe)).toEqual(before);
  return r;
}

describe('ADD refuses hostile input with the spec code, names it, and leaves the node as it was', () => {
  it.each<[string, () => Promise<Call>, number, RegExp]>([
    [
      'CNI_NETNS a regular file',
      async () => {
        await writeFile(join(sb.dir, 'not-a-netns'), 'x');
        return { netnsPath: join(sb.dir, 'not-a-netns') };
      },
      4,
      /CNI_NETNS .* is not a network namespace \(a regular file\)/,
    ],
    [
      'CNI_NETNS a directory',
      async () => ({ netnsPath: sb.dir }),
      4,
      /CNI_NETNS .* is not a network namespace \(a directory\)/,
    ],
    [
      'CNI_NETNS a namespace of another type (mnt)',
      async () => ({ netnsPath: `/proc/${process.pid}/ns/mnt` }),
      4,
      /CNI_NETNS .* is not a network namespace/,
    ],
    [
      'CNI_NETNS missing',
      async () => ({ netnsPath: join(sb.dir, 'gone') }),
      4,
      /CNI_NETNS .* does not exist/,
    ],
    ['CNI_IFNAME of 16 bytes in 8 characters', async () => ({ ifname: 'é'.repeat(8) }), 4, /CNI_IFNAME/],
    ['CNI_IFNAME with %', async () => ({ ifname: 'net%d' }), 4, /CNI_IFNAME/],
    ['CNI_IFNAME with *', async () => ({ ifname: 'net*' }), 4, /CNI_IFNAME/],
    ['CNI_IFNAME with @', async () => ({ ifname: 'net@1' }), 4, /CNI_IFNAME/],
    ['CNI_IFNAME "all"', async () => ({ ifname: 'all' }), 4, /CNI_IFNAME "all"/],
    ['CNI_IFNAME "lo"', async () => ({ ifname: 'lo' }), 4, /CNI_IFNAME "lo"/],
    [
      'a container id of 300 characters',
      async () => ({ containerId: 'c'.repeat(300) }),
      4,
      /CNI_CONTAINERID/,
    ],
    ['a network name too long for a path', async () => ({ config: conf('n'.repeat(300)) }), 7, /name:/],
    [
      'an all-zero MAC',
      async () => ({ config: conf(undefined, { runtimeConfig: { mac: '00:00:00:00:00:00' } }) }),
      7,
      /runtimeConfig\.mac:/,
    ],
    [
      'a multicast MAC',
      async () => ({ config: conf(undefined, { args: { cni: { mac: '01:00:5e:00:00:01' } } }) }),
      7,
      /args\.cni\.mac:/,
    ],
    ['ipam.type "."', async () => ({ config: conf(undefined, { ipam: { type: '.' } }) }), 7, /ipam\.type:/],
    ['ipam.type ".."', async () => ({ config: conf(undefined, { ipam: { type: '..' } }) }), 7, /ipam\.type:/],
    [
      'an IPAM plugin the node does not allow',
      async () => ({ config: conf(undefined, { ipam: { type: 'no-such-ipam' } }) }),
      7,
      /ipam\.type: "no-such-ipam" is not an IPAM plugin this node runs \(ipam\.allowedTypes of .*: fabrik-ipam, host-local, static, dhcp\)/,
    ],
    [
      'an allowed IPAM plugin that does not exist',
      async () => ({
        config: conf(undefined, { ipam: { type: 'no-such-ipam' } }),
        env: {
          FABRIK_CNI_CONFIG: await settingsWith({
            ipam: { hostLocalDataDir: sb.ipamDataDir, allowedTypes: ['no-such-ipam'] },
          }),
        },
      }),
      7,
      /ipam\.type: plugin no-such-ipam not found/,
    ],
    [
      'fabrik-ovs as its own IPAM (a fork chain)',
      async () => ({ config: conf(undefined, { ipam: { type: 'fabrik-ovs' } }) }),
      7,
      /ipam\.type: is not an IPAM plugin/,
    ],
    [
      'host-device as IPAM (a main plugin, handed the whole config)',
      async () => ({ config: conf(undefined, { ipam: { type: 'host-device', device: 'lo' } }) }),
      7,
      /ipam\.type: is not an IPAM plugin/,
    ],
    [
      "host-local's dataDir from the network config",
      async () => ({
        config: conf(undefined, { ipam: { type: 'host-local', subnet: '10.61.0.0/24', dataDir: '/etc' } }),
      }),
      7,
      /ipam\.dataDir: a node setting, not allowed in a network config \(set ipam\.hostLocalDataDir/,
    ],
    [
      'a multicast static address',
      async () => ({
        config: conf(undefined, { ipam: { type: 'static', addresses: [{ address: '224.0.0.1/4' }] } }),
      }),
      7,
      /ipam\.addresses\.0\.address: 224\.0\.0\.1\/4 is a multicast address, not a unicast one/,
    ],
    [
      'a broadcast requested IP',
      async () => ({ config: conf(undefined, { runtimeConfig: { ips: ['10.61.0.255/24'] } }) }),
      7,
      /runtimeConfig\.ips\.0: 10\.61\.0\.255\/24 is a broadcast address/,
    ],
    [
      'a config nested 5000 deep',
      async () => ({
        config: `{"cniVersion":"1.1.0","name":"d","type":"fabrik-ovs","x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      }),
      6,
      /nested 5001 levels deep/,
    ],
    [
      'a node setting in the network config (cacheDir under /proc)',
      async () => ({ config: conf(undefined, { cacheDir: '/proc/self/fabrik' }) }),
      7,
      /cacheDir: a node setting/,
    ],
    [
      'a node setting in the network config (a remote OVSDB)',
      async () => ({ config: conf(undefined, { ovsdbSocket: 'tcp:192.0.2.1:6640' }) }),
      7,
      /ovsdbSocket: a node setting/,
    ],
    [
      'node settings: a tcp port above 65535',
      async () => ({
        env: { FABRIK_CNI_CONFIG: await settingsWith({ ovsdbSocket: 'tcp:127.0.0.1:70000' }) },
      }),
      7,
      /invalid node settings .*\.yaml: ovsdbSocket: the port must be 1-65535/,
    ],
    [
      'node settings: cacheDir under /proc',
      async () => ({ env: { FABRIK_CNI_CONFIG: await settingsWith({ cacheDir: '/proc/self/fabrik' }) } }),
      7,
      /invalid node settings .*: cacheDir: must not be inside \/proc/,
    ],
    [
      'node settings: cacheDir through a symbolic link into /proc',
      async () => {
        const link = join(sb.dir, uniqueName('proc-link'));
        await symlink('/proc/self', link);
        return { env: { FABRIK_CNI_CONFIG: await settingsWith({ cacheDir: join(link, 'fabrik') }) } };
      },
      5,
      /cache directory .* is not usable/,
    ],
    [
      'node settings: cacheDir below a regular file',
      async () => {
        await writeFile(join(sb.dir, 'a-file'), 'x');
        return {
          env: { FABRIK_CNI_CONFIG: await settingsWith({ cacheDir: join(sb.dir, 'a-file', 'cache') }) },
        };
      },
      5,
      /cache directory .* is not usable: .*ENOTDIR/,
    ],
    [
      'node settings: an unknown field',
      async () => ({ env: { FABRIK_CNI_CONFIG: await settingsWith({ cachedir: '/tmp' }) } }),
      7,
      /invalid node settings .*: cachedir: unknown field/,
    ],
    [
      'node settings: not YAML',
      async () => {
        const file = join(sb.dir, uniqueName('broken'));
        await writeFile(file, 'ovsdbSocket: [unclosed\n');
        return { env: { FABRIK_CNI_CONFIG: file } };
      },
      7,
      /invalid node settings .*: not valid YAML/,
    ],
    [
      'node settings: a FIFO (reading it would block)',
      async () => {
        const fifo = join(sb.dir, uniqueName('fifo'));
        await runCommand('mkfifo', [fifo]);
        return { env: { FABRIK_CNI_CONFIG: fifo } };
      },
      7,
      /invalid node settings .*: .* is a FIFO, not a file/,
    ],
    [
      'node settings: a directory',
      async () => ({ env: { FABRIK_CNI_CONFIG: sb.dir } }),
      7,
      /invalid node settings .*: .* is a directory, not a file/,
    ],
  ])('%s', async (_what, call, code, msg) => {
    await expectRefusedCleanly(call, code, msg);
  });

  it('a missing settings file means every default (the standard OVSDB socket)', async () => {
    const { r } = await run({
      command: 'STATUS',
      env: { FABRIK_CNI_CONFIG: join(sb.dir, 'no-such-settings.yaml') },
    });
    expect(r.out).toMatchObject({
      code: 50,
      msg: 'OVSDB unix:/var/run/openvswitch/db.sock is not available',
    });
  });
});

describe('CHECK with a malformed prevResult', () => {
  it.each([
    ['interfaces: [null]', { interfaces: [null] }, /prevResult\.interfaces\.0:/],
    ['ips: [null]', { interfaces: [], ips: [null] }, /prevResult\.ips\.0:/],
    ['routes: null', { routes: null }, /prevResult\.routes:/],
    ['a number', 42, /prevResult\.\(result\):/],
  ])('%s is code 7 naming the field, not a TypeError', async (_what, prevResult, msg) => {
    const { r } = await run({ command: 'CHECK', config: conf(undefined, { prevResult }) });
    expect(r.out, r.stderr).toMatchObject({ code: 7 });
    expect(String(r.out?.['msg'])).toMatch(msg);
  });
});

describe('DEL succeeds when there is nothing to delete, whatever the input ADD refused', () => {
  it.each<[string, () => Promise<Call>]>([
    ['a container id of 300 characters', async () => ({ containerId: 'c'.repeat(300) })],
    ['CNI_IFNAME "all"', async () => ({ ifname: 'all' })],
    ['an undecodable config', async () => ({ config: '{"cniVersion":' })],
    ['a config nested 5000 deep', async () => ({ config: `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}` })],
    [
      'an IPAM plugin that does not exist',
      async () => ({ config: conf(undefined, { ipam: { type: 'no-such-ipam' } }) }),
    ],
    [
      'an IPAM config host-local refuses (a bad subnet)',
      async () => ({
        config: conf(undefined, {
          ipam: { type: 'host-local', subnet: '10.0.0.300/24' },
        }),
      }),
    ],
    [
      'a cache directory below a regular file',
      async () => {
        await writeFile(join(sb.dir, 'b-file'), 'x');
        return {
          env: { FABRIK_CNI_CONFIG: await settingsWith({ cacheDir: join(sb.dir, 'b-file', 'cache') }) },
        };
      },
    ],
    ['a network name too long for a path', async () => ({ config: conf('n'.repeat(300)) })],
  ])('%s: ADD is refused, DEL succeeds and changes nothing', async (_what, call) => {
    const c = await call();
    const containerId = c.containerId ?? uniqueName('c');
    const ns = await netns();
    const probe = { attachments: [{ containerId, ifname: c.ifname ?? 'net1' }], netns: [ns] };
    const before = await nodeState(sb, ovs, probe);
    const add = await run({ ...c, containerId, netnsPath: ns.path });
    expect(add.r.code, JSON.stringify(add.r.out)).toBe(1);
    for (let attempt = 0; attempt < 2; attempt++) {
      const del = await run({ ...c, command: 'DEL', containerId, netnsPath: ns.path });
      expect(del.r.code, JSON.stringify(del.r.out)).toBe(0);
    }
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe('DEL and GC delete only what is marked for the attachment', () => {
  it('a foreign link that has the attachment host veth name survives DEL and GC', async () => {
    const net = uniqueName('own');
    const containerId = uniqueName('c');
    const name = hostVethName(containerId, 'net1');
    await runCommand('ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', uniqueName('fp')]);
    try {
      const del = await execPlugin(sb, 'DEL', conf(net), { containerId, ifname: 'net1', netns: '' });
      expect(del.code, JSON.stringify(del.out)).toBe(0);
      expect(del.stderr).toContain(`host link ${name} is not this attachment's`);
      expect(await hostVeths()).toContain(name);
      // A cache record that names the foreign link (a reused container id) does not make GC delete it.
      await mkdir(join(sb.cacheDir, net, containerId), { recursive: true });
      await writeFile(
        join(sb.cacheDir, net, containerId, 'net1.json'),
        JSON.stringify({
          version: 1,
          network: net,
          containerId,
          ifname: 'net1',
          hostIfname: name,
          stdinData: JSON.stringify(conf(net)),
        }),
      );
      const gc = await execPlugin(sb, 'GC', { ...conf(net), 'cni.dev/valid-attachments': [] });
      expect(gc.code, JSON.stringify(gc.out)).toBe(0);
      expect(await hostVeths()).toContain(name);
    } finally {
      await runCommand('ip', ['link', 'del', name]).catch(() => undefined);
    }
  });

  it("a foreign veth and another attachment's port, both with this attachment's name, survive DEL; GC removes only the port once stale", async () => {
    const net = uniqueName('own');
    const a = { containerId: uniqueName('a'), ifname: 'net1' };
    const b = { containerId: uniqueName('b'), ifname: 'net1' };
    const name = hostVethName(b.containerId, b.ifname);
    await runCommand('ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', uniqueName('fp')]);
    try {
      await ovs.vsctl(
        'add-port',
        bridge,
        name,
        '--',
        'set',
        'Port',
        name,
        `external_ids:${PortIds.owner}=${CNI_OVS_OWNER}`,
        `external_ids:${PortIds.network}=${net}`,
        `external_ids:${PortIds.containerId}=${a.containerId}`,
        `external_ids:${PortIds.ifname}=${a.ifname}`,
      );
      const portExists = async () =>
        (await ovs.vsctl('--columns=name', '--bare', 'find', 'Port', `name=${name}`)).trim() === name;

      const del = await execPlugin(sb, 'DEL', conf(net), { ...b, netns: '' });
      expect(del.code, JSON.stringify(del.out)).toBe(0);
      expect(await portExists()).toBe(true);
      expect(await hostVeths()).toContain(name);

      const keepA = await execPlugin(sb, 'GC', {
        ...conf(net),
        'cni.dev/valid-attachments': [{ containerID: a.containerId, ifname: a.ifname }],
      });
      expect(keepA.code, JSON.stringify(keepA.out)).toBe(0);
      expect(await portExists()).toBe(true);

      const none = await execPlugin(sb, 'GC', { ...conf(net), 'cni.dev/valid-attachments': [] });
      expect(none.code, JSON.stringify(none.out)).toBe(0);
      expect(await portExists()).toBe(false);
      expect(await hostVeths()).toContain(name);
    } finally {
      await runCommand('ip', ['link', 'del', name]).catch(() => undefined);
    }
  });
});
