// fabrik-ovs with fabrik-ipam (IPPools on a test API server). Runs on both paths: executed by the
// plugin (project host), and in-process inside agent-host (project host-fast-path, where the
// agent's log must show every verb's IPAM done there). The expected answers are written out once,
// so both paths give the same results and the same errors, code and message.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpPool, type IpPoolSpec } from '@fabrik/api';
import { bundleCniPlugin } from '@fabrik/cni-bundle';
import { customObjects, loadKubeConfig, type CustomObjects } from '@fabrik/kube';
import { startKubeApiServer, uniqueName, type KubeApiServer, type TempNetns } from '@fabrik/testkit';
import {
  execPlugin,
  nodeState,
  sandboxSettings,
  usePluginTestBed,
  writeNodeSettings,
} from '../test/harness.js';

const FABRIK_IPAM_MAIN = new URL('../../ipam/src/main.ts', import.meta.url).pathname;
const IPPOOLS = { group: 'network.fabrik.dev', version: 'v1alpha1', plural: 'ippools' };

const bed = usePluginTestBed({ bridgePrefix: 'bri', netnsPrefix: 'fipm-' });
let api: KubeApiServer;
let pools: CustomObjects<IpPool>;

beforeAll(async () => {
  const { sb, ovs } = bed;
  [api] = await Promise.all([
    startKubeApiServer({ dir: join(sb.dir, 'apiserver') }),
    bundleCniPlugin({
      entry: FABRIK_IPAM_MAIN,
      outfile: join(sb.binDir, 'fabrik-ipam'),
      codeCache: { dir: join(sb.dir, 'ipam-code-cache'), env: 'FABRIK_IPAM_CODE_CACHE_DIR' },
    }),
  ]);
  pools = customObjects(loadKubeConfig({ kubeconfig: api.kubeconfigPath }).kc, IPPOOLS, IpPool);
  // The test bed's settings and fabrik-ipam's; generous: test files run side by side on 2 cores.
  await writeNodeSettings(sb, {
    ...sandboxSettings(sb, ovs.endpoint),
    ipam: { kubeconfig: api.kubeconfigPath, timeoutMs: 60_000 },
  });
}, 660_000);

afterAll(async () => {
  await api?.destroy();
});

async function createPool(name: string, spec: IpPoolSpec): Promise<void> {
  await pools.create({ apiVersion: 'network.fabrik.dev/v1alpha1', kind: 'IPPool', metadata: { name }, spec });
}

/** The pool's addresses as stored, with the container each belongs to. */
async function stored(pool: string): Promise<string[]> {
  const entries = (await pools.get(pool)).status?.ipAddresses ?? [];
  return entries.map((e) => `${e.ipAddress} ${e.owner.pod?.containerID ?? ''}`).sort();
}

const netConf = (name: string, ippools: string[]) => ({
  cniVersion: '1.1.0',
  name,
  type: 'fabrik-ovs',
  bridge: bed.bridge,
  ipam: { type: 'fabrik-ipam', ippools },
});

interface Attachment {
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  readonly args: string;
  readonly ns: TempNetns;
}

async function attachment(): Promise<Attachment> {
  const ns = await bed.netns();
  const containerId = uniqueName('c');
  return {
    containerId,
    netns: ns.path,
    ifname: 'net1',
    args: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-${containerId}`,
    ns,
  };
}

const call = (command: string, conf: unknown, a: Attachment) =>
  execPlugin(bed.sb, command, conf, {
    containerId: a.containerId,
    netns: a.netns,
    ifname: a.ifname,
    args: a.args,
    env: { FABRIK_IPAM_CODE_CACHE_DIR: join(bed.sb.dir, 'ipam-code-cache') },
    timeoutMs: 240_000,
  });

/**
 * On the fast path, how many fabrik-ipam verbs agent-host ran in-process from its log line `from`
 * on (the plugin executed for one would not show here); undefined on the standalone path.
 */
function inProcessVerbs(from: number): number | undefined {
  if (bed.sb.path !== 'agent-host') return undefined;
  return (bed.sb.agent?.logs ?? []).slice(from).filter((l) => l['msg'] === 'cni: fabrik-ipam in-process')
    .length;
}
const logMark = () => bed.sb.agent?.logs.length ?? 0;
const onFastPath = (n: number) => (bed.sb.path === 'agent-host' ? n : undefined);

describe('fabrik-ovs with fabrik-ipam', () => {
  it("ADD takes the pool's address and VLAN, CHECK agrees, DEL releases it and is idempotent", async () => {
    await createPool('life-v4', {
      ipRanges: [{ cidr: '10.81.0.0/24' }],
      subnetInfo: { gateway: '10.81.0.1', prefixLength: 24, vlan: 181 },
    });
    const conf = netConf('life', ['life-v4']);
    const a = await attachment();
    const mark = logMark();

    const added = await call('ADD', conf, a);
    expect(added.code, JSON.stringify(added.out)).toBe(0);
    expect(added.out?.['ips']).toEqual([{ address: '10.81.0.2/24', gateway: '10.81.0.1', interface: 1 }]);
    expect(await stored('life-v4')).toEqual([`10.81.0.2 ${a.containerId}`]);
    expect(await a.ns.ip('-4', '-o', 'addr', 'show', 'dev', 'net1')).toContain('10.81.0.2/24');
    expect((await bed.ovs.vsctl('get', 'Port', hostName(added.out), 'tag')).trim()).toBe('181');

    const checked = await call('CHECK', { ...conf, prevResult: added.out }, a);
    expect(checked.code, JSON.stringify(checked.out)).toBe(0);

    expect((await call('DEL', conf, a)).code).toBe(0);
    expect(await stored('life-v4')).toEqual([]);
    // Repeated, and for an attachment that never was: success, nothing changes.
    expect((await call('DEL', conf, a)).code).toBe(0);
    expect((await call('DEL', conf, await attachment())).code).toBe(0);
    expect(await stored('life-v4')).toEqual([]);
    // ADD, CHECK, three DELs: five IPAM verbs, each run inside agent-host on the fast path.
    expect(inProcessVerbs(mark)).toBe(onFastPath(5));
  });

  it('an exhausted pool fails ADD with code 100 naming it, and the node is left as it was', async () => {
    await createPool('tiny-v4', {
      ipRanges: [{ start: '10.82.0.10', end: '10.82.0.10' }],
      subnetInfo: { gateway: '10.82.0.1', prefixLength: 24 },
    });
    const conf = netConf('tiny', ['tiny-v4']);
    const first = await attachment();
    expect((await call('ADD', conf, first)).code).toBe(0);
    const second = await attachment();
    const before = await nodeState(bed.sb, bed.ovs, { attachments: [second], netns: [second.ns] });
    const mark = logMark();

    const refused = await call('ADD', conf, second);
    expect(refused).toMatchObject({
      code: 1,
      out: {
        code: 100,
        msg: 'IPAM fabrik-ipam ADD: IPPool tiny-v4 is exhausted: all 1 of its addresses are in use',
      },
    });
    expect(await nodeState(bed.sb, bed.ovs, { attachments: [second], netns: [second.ns] })).toEqual(before);
    expect(await stored('tiny-v4')).toEqual([`10.82.0.10 ${first.containerId}`]);
    expect(inProcessVerbs(mark)).toBe(onFastPath(1));
    expect((await call('DEL', conf, first)).code).toBe(0);
  });

  it('a pool that does not exist fails ADD with code 7 naming ipam.ippools.N; DEL of it succeeds', async () => {
    await createPool('real-v4', {
      ipRanges: [{ cidr: '10.83.0.0/24' }],
      subnetInfo: { gateway: '10.83.0.1', prefixLength: 24 },
    });
    const conf = netConf('missing', ['real-v4', 'no-such-pool']);
    const a = await attachment();
    const before = await nodeState(bed.sb, bed.ovs, { attachments: [a], netns: [a.ns] });

    const refused = await call('ADD', conf, a);
    expect(refused).toMatchObject({
      code: 1,
      out: {
        code: 7,
        msg: 'IPAM fabrik-ipam ADD: invalid network config: ipam.ippools.1: IPPool no-such-pool does not exist',
      },
    });
    expect(await nodeState(bed.sb, bed.ovs, { attachments: [a], netns: [a.ns] })).toEqual(before);
    expect(await stored('real-v4')).toEqual([]);
    expect((await call('DEL', conf, a)).code).toBe(0);
  });

  it('concurrent ADDs to one pool never hand out one address twice; their DELs empty it', async () => {
    const n = 12;
    await createPool('busy-v4', {
      ipRanges: [{ cidr: '10.84.0.0/24' }],
      subnetInfo: { gateway: '10.84.0.1', prefixLength: 24 },
    });
    const conf = netConf('busy', ['busy-v4']);
    const all = await Promise.all(Array.from({ length: n }, () => attachment()));
    const mark = logMark();

    const added = await Promise.all(all.map((a) => call('ADD', conf, a)));
    for (const r of added) expect(r.code, JSON.stringify(r.out)).toBe(0);
    const given = added.map((r) => (r.out?.['ips'] as Array<{ address: string }>)[0]?.address);
    expect(new Set(given).size).toBe(n);
    const inPool = await stored('busy-v4');
    expect(inPool).toHaveLength(n);
    expect(new Set(inPool.map((e) => e.split(' ')[0])).size).toBe(n);
    // Each Pod has the address the pool recorded for its container.
    for (const [i, a] of all.entries())
      expect(inPool).toContain(`${given[i]?.split('/')[0]} ${a.containerId}`);

    const deleted = await Promise.all(all.map((a) => call('DEL', conf, a)));
    for (const r of deleted) expect(r.code, JSON.stringify(r.out)).toBe(0);
    expect(await stored('busy-v4')).toEqual([]);
    expect(inProcessVerbs(mark)).toBe(onFastPath(2 * n));
  }, 600_000);
});

/** The host veth of an ADD result (its first interface). */
function hostName(out: Record<string, unknown> | undefined): string {
  return (out?.['interfaces'] as Array<{ name: string }> | undefined)?.[0]?.name ?? '';
}
