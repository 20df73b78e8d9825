// agent-host as a process against a private Open vSwitch (userspace datapath) in a throwaway
// "node" namespace: secondary bridges with their NIC uplinks, the host side of the trunk attached
// through OVS carrying traffic to a second OVS on the HBR side, drift repair, foreign rows left
// alone, ovsdb-server and ovs-vswitchd restarts under the running agent, plan and cleanup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createTempNetns,
  startOvs,
  until,
  type AgentProcess,
  type LogLine,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import {
  createHostSandbox,
  ipJson,
  layer2,
  nodeDoc,
  restartVswitchd,
  type HostSandbox,
} from '../test/harness.js';

let sb: HostSandbox;
let hbr: TempNetns;
let hbrOvs: OvsInstance;
let agent: AgentProcess;

const get = async (table: string, record: string, column: string) =>
  (await sb.vsctl('get', table, record, column)).trim();
const exists = (table: string, record: string) =>
  sb.vsctl('get', table, record, '_uuid').then(
    () => true,
    () => false,
  );
const link = async (name: string) =>
  (await ipJson<{ ifname: string; mtu: number; flags: string[] }[]>(sb.node, 'link', 'show')).find(
    (l) => l.ifname === name,
  );
const status = async () =>
  JSON.parse(await readFile(join(sb.stateDir, 'status.json'), 'utf8')) as {
    configStatus: string;
    appliedGenerations: { layer2Networks: Record<string, number> };
    objectErrors?: { name: string; field?: string }[];
    ownedObjects: Record<string, number>;
    conditions: { type: string; status: string; reason: string }[];
  };

const l2s = {
  web: layer2('web', { vni: 2100, vlan: 100, mtu: 1400 }),
  rackB: layer2('rack-b', { vni: 2200, vlan: 200, nodeSelector: { matchLabels: { rack: 'b' } } }),
  bad: layer2('bad', { vni: 2300, vlan: 5000 }),
  db: layer2('db', { vni: 2400, vlan: 300 }),
};

beforeAll(async () => {
  sb = await createHostSandbox();
  // Two NICs (veths with their peers in the same namespace), and the trunk veth to the HBR side.
  for (const nic of ['eth1', 'eth2']) {
    await sb.node.ip('link', 'add', nic, 'type', 'veth', 'peer', 'name', `${nic}p`);
    await sb.node.ip('link', 'set', nic, 'up');
  }
  hbr = await createTempNetns('fahb-');
  await sb.node.ip('link', 'add', 'trh', 'type', 'veth', 'peer', 'name', 'tr', 'netns', hbr.name);
  await sb.node.ip('link', 'set', 'trh', 'up');
  // The HBR side of the trunk: a second switch, its port p100 an access port of VLAN 100.
  hbrOvs = await startOvs({ netns: hbr.name });
  await hbrOvs.addBridge('brh');
  await hbrOvs.vsctl(
    'add-port',
    'brh',
    'tr',
    '--',
    'add-port',
    'brh',
    'p100',
    'tag=100',
    '--',
    'set',
    'interface',
    'p100',
    'type=internal',
  );
  await hbr.ip('link', 'set', 'tr', 'up');
  await until('the HBR access port', async () => (await hbr.ip('link', 'show')).includes('p100'));
  await hbr.ip('link', 'set', 'p100', 'mtu', '1400', 'up');
  await hbr.ip('addr', 'add', '10.100.0.2/24', 'dev', 'p100');
  // Foreign rows: a bridge of someone else's.
  await sb.ovs.vsctl('add-br', 'br-foreign', '--', 'set', 'bridge', 'br-foreign', 'datapath_type=netdev');

  await sb.writeConfig({
    secondaryNetwork: {
      ovsBridges: [
        {
          bridgeName: 'br-sec',
          // Not the Layer2Networks' VLANs: the trunk is on this bridge (a loop otherwise).
          physicalInterfaces: [{ name: 'eth1', allowedVLANs: [500, '600-602'] }],
          enableMulticastSnooping: true,
        },
        { bridgeName: 'br-two', physicalInterfaces: ['eth2'] },
      ],
    },
    trunk: { hostInterface: 'trh', attach: 'ovs', bridge: 'br-sec' },
  });
  await sb.writeIntent([nodeDoc({ rack: 'a' }), l2s.web, l2s.rackB, l2s.bad]);
  agent = await sb.start();
});

afterAll(async () => {
  await sb?.destroy();
  await hbrOvs?.stop();
  await hbr?.destroy();
});

describe('agent-host with a file source', () => {
  it('creates the bridges, uplinks limited to their VLANs, and tr.<vid> for the networks of this node', async () => {
    await until('tr.100 to be up', async () => (await link('tr.100'))?.flags.includes('UP'));
    expect(await get('Bridge', 'br-sec', 'datapath_type')).toBe('netdev');
    expect(await get('Bridge', 'br-sec', 'mcast_snooping_enable')).toBe('true');
    expect(await get('Bridge', 'br-sec', 'external_ids:fabrik-owner')).toBe('agent-host');
    expect(await get('Port', 'eth1', 'trunks')).toBe('[500, 600, 601, 602]');
    expect(await get('Port', 'eth2', 'trunks')).toBe('[]');
    expect(await get('Bridge', 'br-two', 'mcast_snooping_enable')).toBe('false');
    expect(await get('Port', 'trh', 'trunks')).toBe('[]');
    expect(await get('Port', 'tr.100', 'tag')).toBe('100');
    expect((await link('tr.100'))?.mtu).toBe(1400);
    // rack-b is for other nodes, bad is refused: neither gets a port.
    expect(await exists('Port', 'tr.200')).toBe(false);
    const s = await until('the status file', () => status());
    expect(s.appliedGenerations.layer2Networks).toEqual({ web: 0 });
    expect(s.configStatus).toBe('degraded');
    expect(s.objectErrors).toEqual([expect.objectContaining({ name: 'bad', field: 'spec.vlan' })]);
    expect(s.ownedObjects).toEqual({ ovsBridge: 2, ovsPort: 4, vlan: 0 });
    expect(s.conditions).toEqual([
      expect.objectContaining({ type: 'FabrikHostReady', status: 'True', reason: 'ObjectsSkipped' }),
    ]);
    expect(await get('Bridge', 'br-foreign', 'external_ids')).toBe('{}');
  });

  it('gives tr.<vid> no address: the host is not reachable from the tenant network', async () => {
    // Long enough for the kernel to have added an IPv6 link-local address, had it been allowed to.
    await new Promise((r) => setTimeout(r, 1000));
    const [dev] = JSON.parse(await sb.node.ip('-j', 'addr', 'show', 'dev', 'tr.100')) as [
      { addr_info: unknown[] },
    ];
    expect(dev.addr_info).toEqual([]);
    expect((await sb.node.exec('cat', ['/proc/sys/net/ipv6/conf/tr.100/addr_gen_mode'])).stdout.trim()).toBe(
      '1',
    );
  });

  it('carries traffic from tr.100 on the host through the trunk to VLAN 100 on the HBR side', async () => {
    await sb.node.ip('addr', 'add', '10.100.0.1/24', 'dev', 'tr.100');
    const ping = await sb.node.exec('ping', ['-c', '3', '-i', '0.2', '-W', '2', '10.100.0.2']);
    expect(ping.stdout).toMatch(/3 received/);
  });

  it('is not woken by its own changes, and is by the same changes made by hand', async () => {
    const reconciles = () => agent.logs.filter((l) => l.msg === 'reconciled' || l.msg === 'reconcile failed');
    const reasons = (l: LogLine) => String(l.trigger).split(', ');
    // What deleting the port tr.100 by hand shows: its rows deleted, its link down and deleted.
    const ofHandDeletion = (r: string) =>
      /^(ovsdb (Port|Interface) tr\.100 deleted|ovsdb Bridge br-sec changed \[[a-z_ ]+\]|link tr\.100 (set down|deleted))$/.test(
        r,
      );
    const observedChange = (r: string) => /^(link|address|route|ovsdb (Bridge|Port|Interface)) /.test(r);

    // The hand deletion is followed, and marks the end of the start-up: every reconcile before it
    // ran for the intent, none for a kernel or OVSDB change (what a reconcile had just made).
    await sb.vsctl('del-port', 'tr.100');
    await until('tr.100 back', async () => (await get('Port', 'tr.100', 'tag')) === '100');
    await until('tr.100 up again', async () => (await link('tr.100'))?.flags.includes('UP'));
    const repair = await agent.waitForLog((l) => reasons(l).some(ofHandDeletion), {
      what: 'the reconcile of the hand deletion',
    });
    const startUp = reconciles().slice(0, reconciles().indexOf(repair));
    expect(startUp.length).toBeGreaterThan(0);
    expect(startUp.flatMap(reasons).filter(observedChange)).toEqual([]);
    // Its own changes were seen, and ignored as covered by the reconcile that made them.
    expect(agent.logs.some((l) => l.msg === 'ignored: covered by the last reconcile')).toBe(true);

    // Nor do the repair's own changes (tr.100 made again, set up) wake it: from the hand deletion
    // to the next hand change, the reconciles ran for those two only.
    await sb.vsctl('set', 'port', 'eth1', 'trunks=999');
    const next = await agent.waitForLog((l) => reasons(l).includes('ovsdb Port eth1 changed [trunks]'), {
      what: 'the reconcile of the hand change of eth1',
    });
    const afterStartUp = reconciles().slice(startUp.length, reconciles().indexOf(next) + 1);
    expect(afterStartUp.flatMap(reasons).filter((r) => !ofHandDeletion(r))).toEqual([
      'ovsdb Port eth1 changed [trunks]',
    ]);
    await until(
      'the trunks repaired',
      async () => (await get('Port', 'eth1', 'trunks')) === '[500, 600, 601, 602]',
    );
  });

  it('repairs its own rows and links, and leaves a foreign port on its bridge alone', async () => {
    await sb.ovs.vsctl('add-port', 'br-sec', 'fport', '--', 'set', 'interface', 'fport', 'type=internal');
    await sb.vsctl('set', 'port', 'eth1', 'trunks=999');
    await until(
      'the trunks repaired',
      async () => (await get('Port', 'eth1', 'trunks')) === '[500, 600, 601, 602]',
    );
    await sb.vsctl('del-port', 'tr.100');
    await until('tr.100 back', async () => (await get('Port', 'tr.100', 'tag')) === '100');
    await until('tr.100 up again', async () => (await link('tr.100'))?.flags.includes('UP'));
    await sb.node.ip('link', 'set', 'tr.100', 'down');
    await until('tr.100 up once more', async () => (await link('tr.100'))?.flags.includes('UP'));
    expect(await exists('Port', 'fport')).toBe(true);
    expect(await get('Port', 'fport', 'external_ids')).toBe('{}');
  });

  it('follows intent changes: a new network gets its port, a deleted one loses it', async () => {
    await sb.writeIntent([nodeDoc({ rack: 'a' }), l2s.db, l2s.rackB]);
    await until('tr.300', async () => (await get('Port', 'tr.300', 'tag')) === '300');
    await until('tr.100 gone', async () => !(await exists('Port', 'tr.100')));
    expect(await link('tr.100')).toBeUndefined();
    // The node's labels change: rack-b is scheduled here now.
    await sb.writeIntent([nodeDoc({ rack: 'b' }), l2s.db, l2s.rackB]);
    await until('tr.200', async () => (await get('Port', 'tr.200', 'tag')) === '200');
    const s = await until('the status with rack-b', async () => {
      const st = await status();
      return st.appliedGenerations.layer2Networks['rack-b'] === 0 ? st : undefined;
    });
    expect(s.appliedGenerations.layer2Networks).toEqual({ db: 0, 'rack-b': 0 });
    expect(s.configStatus).toBe('provisioned');
  });

  it('survives an ovsdb-server restart and converges afterwards', async () => {
    await sb.ovs.stopDb();
    await sb.ovs.startDb();
    await agent.waitForLog((l) => l.msg === 'ovsdb: reconnected', { what: 'the reconnect' });
    // A change after the restart is seen and repaired: the connection and the monitor are back.
    await sb.vsctl('del-port', 'eth2');
    await until('eth2 back on br-two', async () => (await get('Port', 'eth2', 'trunks')) === '[]');
  });

  it('survives an ovs-vswitchd restart (kill -9) and repairs what it lost', async () => {
    await restartVswitchd(sb);
    await until('tr.300 up again', async () => (await link('tr.300'))?.flags.includes('UP'), 60_000);
    await sb.node.ip('addr', 'replace', '10.100.0.1/24', 'dev', 'tr.200');
    expect(await get('Port', 'tr.300', 'tag')).toBe('300');
  });

  it('plan says in sync (exit 0), then names a pending change (exit 1)', async () => {
    await until('an idle agent', async () => (await sb.cli('plan')).code === 0);
    expect(await agent.stop()).toBe(0);
    await sb.writeIntent([nodeDoc({ rack: 'b' }), l2s.db, l2s.rackB, l2s.web]);
    const plan = await sb.cli('plan');
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('ovs-vsctl add-port br-sec tr.100 type=internal tag=100 mtu_request=1400');
    // SIGTERM left everything in place.
    expect(await get('Port', 'tr.300', 'tag')).toBe('300');
  });

  it('cleanup deletes its bridges, ports and links; a bridge holding a foreign port stays; foreign rows untouched', async () => {
    const r = await sb.cli('cleanup');
    expect(r.code).toBe(0);
    expect(await exists('Bridge', 'br-two')).toBe(false);
    expect(await exists('Port', 'eth1')).toBe(false);
    expect(await exists('Port', 'tr.300')).toBe(false);
    expect(await exists('Bridge', 'br-sec')).toBe(true); // fport is not agent-host's
    expect(await exists('Port', 'fport')).toBe(true);
    expect(await exists('Bridge', 'br-foreign')).toBe(true);
    expect(await link('tr.300')).toBeUndefined();
    const again = await sb.cli('cleanup');
    expect(again.code).toBe(0);
  });
});
