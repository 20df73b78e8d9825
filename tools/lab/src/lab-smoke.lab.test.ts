import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempNetns, startOvs, type OvsInstance, type TempNetns } from '@fabrik/testkit';
import { runCommand } from '@fabrik/netcore';

// Proves the lab kernel has what the host kernel lacks, and that OVS forwards inside it.
describe('lab kernel', () => {
  let ns: TempNetns;
  beforeAll(async () => {
    ns = await createTempNetns();
  });
  afterAll(() => ns.destroy());

  it('creates a vrf with its table', async () => {
    await ns.ip('link', 'add', 'red', 'type', 'vrf', 'table', '1001');
    const [link] = JSON.parse(await ns.ip('-j', '-d', 'link', 'show', 'red'));
    expect(link.linkinfo).toMatchObject({ info_kind: 'vrf', info_data: { table: 1001 } });
  });

  it('creates tr.100 on a trunk and enslaves it to a bridge', async () => {
    await ns.ip('link', 'add', 'tr', 'type', 'dummy');
    await ns.ip('link', 'add', 'link', 'tr', 'name', 'tr.100', 'type', 'vlan', 'id', '100');
    await ns.ip('link', 'add', 'br100', 'type', 'bridge');
    await ns.ip('link', 'set', 'tr.100', 'master', 'br100');
    const [link] = JSON.parse(await ns.ip('-j', '-d', 'link', 'show', 'tr.100'));
    expect(link.linkinfo).toMatchObject({ info_kind: 'vlan', info_data: { id: 100 } });
    expect(link.master).toBe('br100');
  });
});

describe('Open vSwitch in the lab', () => {
  let ovs: OvsInstance;
  const pods: TempNetns[] = [];
  beforeAll(async () => {
    ovs = await startOvs();
    await ovs.addBridge('br-smoke');
    for (const [i, addr] of ['10.77.0.1/24', '10.77.0.2/24'].entries()) {
      const pod = await createTempNetns('fabrik-pod-');
      pods.push(pod);
      const host = `smoke${i}`;
      await runCommand('ip', [
        'link',
        'add',
        host,
        'type',
        'veth',
        'peer',
        'name',
        'eth1',
        'netns',
        pod.name,
      ]);
      await runCommand('ip', ['link', 'set', host, 'up']);
      await ovs.vsctl('add-port', 'br-smoke', host, 'tag=100');
      await pod.ip('addr', 'add', addr, 'dev', 'eth1');
      await pod.ip('link', 'set', 'eth1', 'up');
    }
  });
  afterAll(async () => {
    for (const p of pods) await p.destroy();
    await runCommand('ip', ['link', 'del', 'smoke0']).catch(() => {});
    await runCommand('ip', ['link', 'del', 'smoke1']).catch(() => {});
    await ovs?.stop();
  });

  it('forwards between two netns on access ports of the same VLAN', async () => {
    const { stdout } = await pods[0]!.exec('ping', ['-c', '3', '-i', '0.2', '-W', '2', '10.77.0.2']);
    expect(stdout).toMatch(/3 received/);
  });
});
