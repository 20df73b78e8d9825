import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uniqueName, type OvsInstance } from '@fabrik/testkit';
import { runCommand } from '@fabrik/netcore';
import {
  answeredByAgent,
  hostVeths,
  leasedIps,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// podman 4.3 with its CNI backend (libcni) runs the bundled plugin for real: VERSION + ADD on start,
// VERSION + DEL on removal (recipe: ../shared/lab-notes/README.md). Its state lives in private
// --root/--runroot directories; the rootfs is busybox-static (no image registry is needed).

const bed = usePluginTestBed({ bridgePrefix: 'brp' });
const { bridge } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
let podmanEnv: Record<string, string>;
let podmanArgs: string[];
let rootfs: string;
const net = uniqueName('pm');

beforeAll(async () => {
  ({ sb, ovs } = bed);
  rootfs = join(sb.dir, 'rootfs');
  for (const d of ['bin', 'etc', 'proc', 'sys', 'dev', 'tmp'])
    await mkdir(join(rootfs, d), { recursive: true });
  await copyFile('/bin/busybox', join(rootfs, 'bin', 'busybox'));
  const conf = join(sb.dir, 'containers.conf');
  await writeFile(
    conf,
    [
      '[engine]',
      'runtime="runc"', // crun fails on this machine's hybrid cgroups
      'cgroup_manager="cgroupfs"',
      'events_logger="file"',
      // The process that tears the network down (podman container cleanup, started by conmon)
      // gets only these variables, not podman's environment.
      `conmon_env_vars=["PATH=${process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin'}", "FABRIK_CNI_CONFIG=${sb.settingsPath}", "FABRIK_OVS_CODE_CACHE_DIR=${sb.codeCacheDir}"]`,
      '[containers]',
      'default_ulimits=["nofile=20000:20000","nproc=32768:32768"]',
      '[network]',
      'network_backend="cni"',
      `cni_plugin_dirs=["${sb.binDir}","/usr/lib/cni"]`,
      `network_config_dir="${sb.confDir}"`,
      '',
    ].join('\n'),
  );
  await writeFile(
    join(sb.confDir, `${net}.conflist`),
    JSON.stringify({
      cniVersion: '1.0.0',
      name: net,
      plugins: [
        {
          type: 'fabrik-ovs',
          bridge,
          vlan: 100,
          capabilities: { ips: true, mac: true },
          ipam: { type: 'host-local', subnet: '10.55.0.0/24' },
        },
      ],
    }),
  );
  podmanEnv = {
    PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    CONTAINERS_CONF: conf,
    HOME: sb.dir,
    FABRIK_OVS_CODE_CACHE_DIR: sb.codeCacheDir,
    FABRIK_CNI_CONFIG: sb.settingsPath,
  };
  podmanArgs = [
    '--root',
    join(sb.dir, 'root'),
    '--runroot',
    join(sb.dir, 'runroot'),
    '--storage-driver',
    'vfs',
    '--tmpdir',
    join(sb.dir, 'ptmp'),
  ];
}, 660_000);

afterAll(async () => {
  await runCommand('podman', [...podmanArgs, 'rm', '-af', '-t', '0'], { env: podmanEnv }).catch(
    () => undefined,
  );
});

const podman = async (...args: string[]) =>
  (await runCommand('podman', [...podmanArgs, ...args], { env: podmanEnv, timeoutMs: 60_000 })).stdout;

async function ports(): Promise<string[]> {
  const out = await ovs.vsctl(
    '--format=json',
    '--columns=name',
    'find',
    'Port',
    `external_ids:fabrik-cni-network=${net}`,
  );
  return (JSON.parse(out) as { data: string[][] }).data.map((r) => r[0] ?? '');
}

describe('through podman (CNI backend)', () => {
  it('attaches a container with the requested IP, MAC and interface name and cleans up on removal', async () => {
    const from = sb.agent?.logs.length ?? 0;
    const out = await podman(
      'run',
      '--rm',
      '--network',
      `${net}:ip=10.55.0.77,mac=02:12:34:56:78:9a,interface_name=net1`,
      '--rootfs',
      rootfs,
      '/bin/busybox',
      'ip',
      'addr',
      'show',
      'net1',
    );
    expect(out).toContain('link/ether 02:12:34:56:78:9a');
    expect(out).toContain('inet 10.55.0.77/24');
    expect(await ports()).toEqual([]);
    expect(await leasedIps(sb, net)).toEqual([]);
    // On the agent-host path, podman's plugin calls were answered by the agent.
    expect(answeredByAgent(sb, from)).toEqual(sb.path === 'agent-host' ? ['ADD', 'DEL'] : []);
  });

  it('two containers on the network ping each other; removing them leaves no port, veth or IP', async () => {
    const server = await podman(
      'run',
      '-d',
      '--network',
      `${net}:ip=10.55.0.10`,
      '--rootfs',
      rootfs,
      '/bin/busybox',
      'sleep',
      '60',
    );
    const id = server.trim();
    const serverPorts = await ports();
    expect(serverPorts).toHaveLength(1);
    expect(await hostVeths()).toEqual(expect.arrayContaining(serverPorts));
    const out = await podman(
      'run',
      '--rm',
      '--network',
      net,
      '--rootfs',
      rootfs,
      '/bin/busybox',
      'ping',
      '-c',
      '2',
      '-W',
      '2',
      '10.55.0.10',
    );
    expect(out).toContain('2 packets received');
    await podman('rm', '-f', '-t', '0', id);
    expect(await ports()).toEqual([]);
    expect(await leasedIps(sb, net)).toEqual([]);
    const left = await hostVeths();
    expect(left.filter((v) => serverPorts.includes(v))).toEqual([]);
  });
});
