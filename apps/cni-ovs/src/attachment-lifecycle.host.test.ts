import { beforeAll, describe, expect, it } from 'vitest';
import { cnitoolContainerId, uniqueName, type OvsInstance } from '@fabrik/testkit';
import { isCommandError } from '@fabrik/netcore';
import {
  cnitool,
  leasedIps,
  nodeState,
  writeConflist,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// What one attachment holds between its ADD and its DEL, whatever else the runtime sends: a
// repeated ADD neither releases nor overwrites it, and a DEL after the network config was edited
// releases the addresses the ADD leased. Through libcni's cnitool, as a runtime calls the plugin.

const bed = usePluginTestBed({ bridgePrefix: 'brl', netnsPrefix: 'flc-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));

async function network(ipam: Record<string, unknown> | undefined, name = uniqueName('lc')): Promise<string> {
  await writeConflist(sb, name, '1.0.0', { bridge, vlan: 100, ...(ipam ? { ipam } : {}) });
  return name;
}

describe('a repeated ADD of one attachment', () => {
  it('is refused with code 102 and changes nothing the first ADD holds: address, port, veth, record; DEL then removes it all', async () => {
    const net = await network({ type: 'host-local', subnet: '10.73.0.0/24' });
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    await cnitool(sb, 'add', net, ns.path);
    const added = await nodeState(sb, ovs, probe);
    expect(added.leases).toEqual([`${net}/10.73.0.2`]);

    const again = await cnitool(sb, 'add', net, ns.path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCommandError(again) && again.stderr).toMatch(
      /attachment .*\/net1 of network .* exists already \(added, not deleted\): nothing was changed/,
    );
    expect(await nodeState(sb, ovs, probe)).toEqual(added);

    await cnitool(sb, 'del', net, ns.path);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe('DEL after the network config was edited', () => {
  it.each([
    ['its IPAM removed', undefined],
    ['another subnet', { type: 'host-local', subnet: '10.75.0.0/24' }],
  ])('(%s) releases the address with the config the ADD leased it with', async (_what, edited) => {
    const net = await network({ type: 'host-local', subnet: '10.74.0.0/24' });
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    await cnitool(sb, 'add', net, ns.path);
    expect(await leasedIps(sb, net)).toEqual(['10.74.0.2']);
    await network(edited, net);
    await cnitool(sb, 'del', net, ns.path);
    expect(await leasedIps(sb, net)).toEqual([]);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});
