import { describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import { createTempNetns } from './netns-sandbox.js';
import { startOvs } from './ovs.js';

const tapDevices = async (netns?: string) => {
  const { stdout } = await runCommand('ip', [...(netns ? ['-n', netns] : []), '-j', '-d', 'link', 'show']);
  return (JSON.parse(stdout) as { ifname: string; linkinfo?: { info_kind?: string } }[])
    .filter((l) => l.linkinfo?.info_kind === 'tun')
    .map((l) => l.ifname);
};

describe('startOvs', () => {
  it('runs a userspace-datapath bridge and leaves no tap device behind when stopped', async () => {
    const ns = await createTempNetns('fabrik-ovs-');
    try {
      const ovs = await startOvs({ netns: ns.name });
      await ovs.addBridge('br-kit');
      await ovs.vsctl('add-br', 'br-kit2', '--', 'set', 'bridge', 'br-kit2', 'datapath_type=netdev');
      expect(await tapDevices(ns.name)).toEqual(expect.arrayContaining(['br-kit', 'br-kit2']));
      await ovs.stop();
      expect(await tapDevices(ns.name)).toEqual([]);
    } finally {
      await ns.destroy();
    }
  });
});
