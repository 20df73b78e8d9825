import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

  it('kills ovs-vswitchd and starts it again: the ports of the database come back with an OpenFlow port', async () => {
    const ns = await createTempNetns('fabrik-ovs-');
    const ovs = await startOvs({ netns: ns.name });
    try {
      await ovs.addBridge('br-kit');
      await ovs.vsctl('add-port', 'br-kit', 'p1', '--', 'set', 'interface', 'p1', 'type=internal');
      const pid = Number((await readFile(join(ovs.dir, 'vs.pid'), 'utf8')).trim());
      await ovs.killVswitchd();
      expect(() => process.kill(pid, 0)).toThrow();
      await ovs.startVswitchd();
      // wait-until (bounded by vsctl's --timeout) returns once vswitchd has given p1 a port number again.
      await ovs.vsctl('wait-until', 'interface', 'p1', 'ofport>0');
      expect(Number(await ovs.vsctl('get', 'interface', 'p1', 'ofport'))).toBeGreaterThan(0);
    } finally {
      await ovs.stop();
      await ns.destroy();
    }
  });
});
