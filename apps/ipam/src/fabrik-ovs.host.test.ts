// fabrik-ipam under fabrik-ovs, through libcni: the pool's subnetInfo.vlan becomes the OVS port's
// access VLAN when the network config has none, and a network config's VLAN overrides it.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PortIds } from '@fabrik/api';
import { bundleCniPlugin } from '@fabrik/cni-bundle';
import { createTempNetns, startOvs, uniqueName, type OvsInstance, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  cnitoolIpam,
  createIpamSandbox,
  createPool,
  podArgs,
  writeConflist,
  type IpamSandbox,
} from '../test/harness.js';

// fabrik-ovs built from its sources, next to fabrik-ipam in the sandbox's CNI bin directory.
const FABRIK_OVS_MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../cni-ovs/src/main.ts');

let sb: IpamSandbox;
let ovs: OvsInstance;
const bridge = uniqueName('brip');
const pods: TempNetns[] = [];

beforeAll(async () => {
  sb = await createIpamSandbox();
  await bundleCniPlugin({
    entry: FABRIK_OVS_MAIN,
    outfile: join(sb.binDir, 'fabrik-ovs'),
    codeCache: { dir: join(sb.dir, 'ovs-code-cache'), env: 'FABRIK_OVS_CODE_CACHE_DIR' },
  });
  ovs = await startOvs();
  await ovs.addBridge(bridge);
  // One node settings file for both plugins, as the installer writes it.
  await writeFile(
    sb.settingsPath,
    stringify({
      ovsdbSocket: ovs.endpoint,
      cacheDir: join(sb.dir, 'ovs-cache'),
      timeouts: { ofportTimeoutMs: 30_000 },
      ipam: { kubeconfig: sb.server.kubeconfigPath, timeoutMs: 60_000 },
    }),
  );
  pods.push(await createTempNetns('fipam-'), await createTempNetns('fipam-'));
}, 660_000);

afterAll(async () => {
  await Promise.all(pods.map((p) => p.destroy()));
  await ovs?.stop();
  await sb?.remove();
});

/** The OVS port of an attachment: tag and vlan_mode as ovs-vsctl prints them. */
async function portOf(containerId: string): Promise<{ tag: unknown; vlanMode: unknown } | undefined> {
  const out = await ovs.vsctl('--format=json', '--columns=tag,vlan_mode,external_ids', 'list', 'Port');
  const rows = (JSON.parse(out) as { data: unknown[][] }).data;
  const row = rows.find((r) => JSON.stringify(r[2]).includes(`"${PortIds.containerId}","${containerId}"`));
  return row ? { tag: row[0], vlanMode: row[1] } : undefined;
}

/** cnitool's container id for a namespace path (tools/cnitool/main.go: sha512 of the path). */
const containerIdOf = (pod: TempNetns): string =>
  `cnitool-${createHash('sha512').update(pod.path).digest('hex')}`.slice(0, 36);

describe('under fabrik-ovs', () => {
  it("a network without a VLAN gets the pool's; one with a VLAN keeps its own; CHECK and DEL agree", async () => {
    await createPool(sb, 'ovs-v4', {
      ipRanges: [{ cidr: '10.71.0.0/24' }],
      subnetInfo: { gateway: '10.71.0.1', prefixLength: 24, vlan: 130 },
    });
    const ipam = { type: 'fabrik-ipam', ippools: ['ovs-v4'] };
    await writeConflist(sb, 'pool-vlan', [{ type: 'fabrik-ovs', bridge, ipam }]);
    await writeConflist(sb, 'own-vlan', [{ type: 'fabrik-ovs', bridge, vlan: 140, ipam }]);
    const [a, b] = pods as [TempNetns, TempNetns];

    const added = JSON.parse(await cnitoolIpam(sb, 'add', 'pool-vlan', a.path, { args: podArgs('a') }));
    expect(added.ips).toEqual([{ address: '10.71.0.2/24', gateway: '10.71.0.1', interface: 1 }]);
    expect(await portOf(containerIdOf(a))).toEqual({ tag: 130, vlanMode: 'access' });
    await cnitoolIpam(sb, 'add', 'own-vlan', b.path, { args: podArgs('b') });
    expect(await portOf(containerIdOf(b))).toEqual({ tag: 140, vlanMode: 'access' });

    // fabrik-ovs's CHECK compares the port with the VLAN IPAM gave at ADD.
    await cnitoolIpam(sb, 'check', 'pool-vlan', a.path, { args: podArgs('a') });
    await cnitoolIpam(sb, 'check', 'own-vlan', b.path, { args: podArgs('b') });

    await cnitoolIpam(sb, 'del', 'pool-vlan', a.path, { args: podArgs('a') });
    await cnitoolIpam(sb, 'del', 'own-vlan', b.path, { args: podArgs('b') });
    expect(await portOf(containerIdOf(a))).toBeUndefined();
    expect((await sb.pools.get('ovs-v4')).status?.ipAddresses).toEqual([]);
  });
});
