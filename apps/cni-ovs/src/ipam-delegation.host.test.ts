import { beforeAll, describe, expect, it } from 'vitest';
import { access, chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cnitoolContainerId, uniqueName, type OvsInstance } from '@fabrik/testkit';
import { isCommandError } from '@fabrik/netcore';
import {
  cnitool,
  execPlugin,
  leasedIps,
  nodeState,
  sandboxSettings,
  writeConflist,
  writeNodeSettings,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// The IPAM plugins fabrik-ovs executes for a tenant's network config, as root: only the types the
// node allows, each run in a process group of its own that is killed as a whole at the node's
// deadline, host-local writing only below the node's data directory. Through libcni's cnitool
// where the runtime's view is enough, directly where the CNI error code matters.

const bed = usePluginTestBed({ bridgePrefix: 'bri', netnsPrefix: 'fid-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));

/** Writes an executable shell script `type` into the sandbox's CNI bin dir (on CNI_PATH). */
async function writeTestPlugin(type: string, lines: readonly string[]): Promise<void> {
  const file = join(sb.binDir, type);
  await writeFile(file, ['#!/bin/sh', ...lines, ''].join('\n'));
  await chmod(file, 0o755);
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Whether process `pid` runs (a zombie does not). */
async function running(pid: number): Promise<boolean> {
  try {
    return !/^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Runs `body` with the sandbox's own settings file (the one cnitool's calls read) set to `settings`. */
async function withSettings(settings: Record<string, unknown>, body: () => Promise<void>): Promise<void> {
  await writeNodeSettings(sb, settings);
  try {
    await body();
  } finally {
    await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint));
  }
}

describe('ipam.type', () => {
  it('a plugin on CNI_PATH that the node does not allow is never executed: ADD fails naming ipam.type, the node is as before', async () => {
    const type = uniqueName('unlisted');
    const marker = join(sb.dir, `${type}.ran`);
    await writeTestPlugin(type, [`: > '${marker}'`, 'echo "{}"']);
    const net = uniqueName('al');
    await writeConflist(sb, net, '1.0.0', { bridge, vlan: 100, ipam: { type } });
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'eth0' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    const failure = await cnitool(sb, 'add', net, ns.path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCommandError(failure) && failure.stderr).toMatch(
      new RegExp(`ipam\\.type: "${type}" is not an IPAM plugin this node runs`),
    );
    expect(await exists(marker)).toBe(false);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
    // The runtime's DEL succeeds without running it either.
    await cnitool(sb, 'del', net, ns.path);
    expect(await exists(marker)).toBe(false);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });

  it('the same plugin, once the node allows it, runs', async () => {
    const type = uniqueName('listed');
    const marker = join(sb.dir, `${type}.ran`);
    await writeTestPlugin(type, [`: > '${marker}'`, 'exec /usr/lib/cni/static']);
    const net = uniqueName('al');
    await writeConflist(sb, net, '1.0.0', {
      bridge,
      vlan: 100,
      ipam: { type, addresses: [{ address: '10.71.0.5/24' }] },
    });
    const ns = await netns();
    await withSettings(sandboxSettings(sb, ovs.endpoint, [type]), async () => {
      const result = JSON.parse(await cnitool(sb, 'add', net, ns.path)) as {
        ips?: Array<{ address: string }>;
      };
      expect(result.ips?.map((ip) => ip.address)).toEqual(['10.71.0.5/24']);
      expect(await exists(marker)).toBe(true);
      await cnitool(sb, 'del', net, ns.path);
    });
  });
});

describe('a delegated IPAM plugin that does not finish', () => {
  it('is killed at the deadline with every process it started: ADD is code 11 in time, nothing is left', async () => {
    const type = uniqueName('forking');
    const pidFile = join(sb.dir, `${type}.pid`);
    // ADD starts a grandchild that holds its output, then hangs; DEL answers at once.
    await writeTestPlugin(type, [
      'if [ "$CNI_COMMAND" = ADD ]; then',
      `  sleep 600 & echo $! > '${pidFile}'`,
      '  sleep 600',
      'fi',
    ]);
    const settingsFile = await writeNodeSettings(
      sb,
      {
        ...sandboxSettings(sb, ovs.endpoint, [type]),
        timeouts: { ofportTimeoutMs: 30_000, ipamTimeoutMs: 1000 },
      },
      join(sb.dir, `${uniqueName('s')}.yaml`),
    );
    const ns = await netns();
    const containerId = uniqueName('c');
    const probe = { attachments: [{ containerId, ifname: 'net1' }], netns: [ns] };
    const before = await nodeState(sb, ovs, probe);
    const started = Date.now();
    const r = await execPlugin(
      sb,
      'ADD',
      { cniVersion: '1.1.0', name: uniqueName('dl'), type: 'fabrik-ovs', bridge, vlan: 100, ipam: { type } },
      {
        containerId,
        netns: ns.path,
        ifname: 'net1',
        env: { FABRIK_CNI_CONFIG: settingsFile },
        timeoutMs: 30_000,
      },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.out, r.stderr).toMatchObject({
      code: 11,
      msg: expect.stringMatching(new RegExp(`^IPAM ${type} ADD did not finish within 1000 ms`)),
    });
    const grandchild = Number((await readFile(pidFile, 'utf8')).trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await running(grandchild)).toBe(false);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe("host-local's data directory", () => {
  it('is the node’s (ipam.hostLocalDataDir): the lease is written there and released there', async () => {
    const net = uniqueName('hl');
    await writeConflist(sb, net, '1.0.0', {
      bridge,
      vlan: 100,
      ipam: { type: 'host-local', subnet: '10.72.0.0/24' },
    });
    const ns = await netns();
    await cnitool(sb, 'add', net, ns.path);
    expect(await leasedIps(sb, net)).toEqual(['10.72.0.2']);
    await cnitool(sb, 'del', net, ns.path);
    expect(await leasedIps(sb, net)).toEqual([]);
  });
});
