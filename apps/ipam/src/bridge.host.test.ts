// fabrik-ipam under Debian's Go `bridge` plugin, through libcni: the addresses it allocates end up
// on real Pod interfaces, two Pods on the bridge reach each other, and DEL gives them back.
import { runCommand } from '@fabrik/netcore';
import { createTempNetns, uniqueName, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cnitoolIpam,
  createIpamSandbox,
  createPool,
  podArgs,
  writeConflist,
  type IpamSandbox,
} from '../test/harness.js';

let sb: IpamSandbox;
const pods: TempNetns[] = [];
// The bridge plugin creates its bridge in the host's namespace: a name of this run, deleted after.
const bridge = uniqueName('fipam');

beforeAll(async () => {
  sb = await createIpamSandbox();
  pods.push(await createTempNetns(), await createTempNetns());
  // A bridge takes the lowest MAC of its ports unless its address was set, so the second Pod's
  // port could change the MAC the first ADD reported and fail the bridge plugin's CHECK. The
  // plugin adopts an existing bridge: create it with a set address, as a node's bridge would have.
  await runCommand('ip', ['link', 'add', bridge, 'address', '02:fa:b0:00:00:01', 'type', 'bridge']);
});
afterAll(async () => {
  await Promise.all(pods.map((p) => p.destroy()));
  await runCommand('ip', ['link', 'del', bridge]).catch(() => undefined);
  await sb?.remove();
});

/** The IPv4 addresses of `ifname` in the Pod's namespace, as the kernel has them. */
async function addresses(pod: TempNetns, ifname: string): Promise<string[]> {
  const [link] = JSON.parse(await pod.ip('-j', '-4', 'addr', 'show', 'dev', ifname)) as Array<{
    addr_info: Array<{ local: string; prefixlen: number }>;
  }>;
  return (link?.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`);
}

describe('under the bridge plugin', () => {
  it('two Pods get pool addresses on their interfaces, reach each other, pass CHECK, and DEL releases both', async () => {
    await createPool(sb, 'bridged-v4', {
      ipRanges: [{ start: '10.70.0.100', end: '10.70.0.150' }],
      subnetInfo: { gateway: '10.70.0.1', prefixLength: 24 },
    });
    await writeConflist(sb, 'bridged', [
      { type: 'bridge', bridge, ipam: { type: 'fabrik-ipam', ippools: ['bridged-v4'] } },
    ]);
    const results = [];
    for (const [i, pod] of pods.entries())
      results.push(JSON.parse(await cnitoolIpam(sb, 'add', 'bridged', pod.path, { args: podArgs(i) })));
    expect(results.map((r) => r.ips)).toEqual([
      [{ address: '10.70.0.100/24', gateway: '10.70.0.1', interface: 2 }],
      [{ address: '10.70.0.101/24', gateway: '10.70.0.1', interface: 2 }],
    ]);
    expect(await addresses(pods[0]!, 'net1')).toEqual(['10.70.0.100/24']);
    expect(await addresses(pods[1]!, 'net1')).toEqual(['10.70.0.101/24']);
    await pods[0]!.exec('ping', ['-c', '2', '-W', '2', '-i', '0.2', '10.70.0.101']);

    const entries = (await sb.pools.get('bridged-v4')).status?.ipAddresses ?? [];
    expect(entries.map((e) => [e.ipAddress, e.owner.pod?.name, e.owner.pod?.network])).toEqual([
      ['10.70.0.100', 'pod-0', 'bridged'],
      ['10.70.0.101', 'pod-1', 'bridged'],
    ]);
    // The bridge plugin's CHECK calls fabrik-ipam's CHECK with its prevResult.
    for (const [i, pod] of pods.entries())
      await cnitoolIpam(sb, 'check', 'bridged', pod.path, { args: podArgs(i) });

    for (const [i, pod] of pods.entries())
      await cnitoolIpam(sb, 'del', 'bridged', pod.path, { args: podArgs(i) });
    expect((await sb.pools.get('bridged-v4')).status).toEqual({
      ipAddresses: [],
      usage: { total: 51, used: 0 },
    });
    expect(await pods[0]!.ip('-j', 'link', 'show', 'dev', 'net1').catch(() => 'gone')).toBe('gone');
  });
});
