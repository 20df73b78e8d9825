// The host side of the trunk with `attach: kernel` needs 8021q: in the lab kernel. agent-host runs
// as a process in the "node" namespace, without Open vSwitch (a node that only uses the kernel
// attach needs none); the HBR namespace holds the other end of the trunk with its own VLAN link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempNetns, until, type AgentProcess, type TempNetns } from '@fabrik/testkit';
import { createHostSandbox, ipJson, layer2, nodeDoc, type HostSandbox } from '../test/harness.js';

let sb: HostSandbox;
let hbr: TempNetns;
let agent: AgentProcess;

interface LinkJson {
  ifname: string;
  mtu: number;
  flags: string[];
  ifalias?: string;
  linkinfo?: { info_kind?: string; info_data?: { id?: number } };
}
const link = async (name: string) =>
  (await ipJson<LinkJson[]>(sb.node, '-d', 'link', 'show')).find((l) => l.ifname === name);

beforeAll(async () => {
  sb = await createHostSandbox('fak-', { withOvs: false });
  hbr = await createTempNetns('fakh-');
  await sb.node.ip(
    'link',
    'add',
    'trh',
    'mtu',
    '9000',
    'type',
    'veth',
    'peer',
    'name',
    'tr',
    'netns',
    hbr.name,
  );
  await sb.node.ip('link', 'set', 'trh', 'up');
  // The HBR side as agent-netns builds it: tr.<vid> on the trunk (here with an address to ping).
  await hbr.ip('link', 'set', 'tr', 'mtu', '9000', 'up');
  await hbr.ip('link', 'add', 'link', 'tr', 'name', 'tr.100', 'type', 'vlan', 'id', '100');
  await hbr.ip('addr', 'add', '10.100.0.2/24', 'dev', 'tr.100');
  await hbr.ip('link', 'set', 'tr.100', 'up');
  await sb.writeConfig({ trunk: { hostInterface: 'trh', attach: 'kernel' } });
  await sb.writeIntent([
    nodeDoc({}),
    layer2('web', { vni: 2100, vlan: 100, mtu: 8950 }),
    layer2('db', { vni: 2200, vlan: 200 }),
  ]);
  agent = await sb.start();
}, 300_000);

afterAll(async () => {
  await sb?.destroy();
  await hbr?.destroy();
});

describe('tr.<vid> with attach: kernel', () => {
  it(
    "creates an owned VLAN link per network on the trunk, with the network's MTU, up",
    { timeout: 300_000 },
    async () => {
      const web = await until(
        'tr.100',
        async () => {
          const l = await link('tr.100');
          return l?.flags.includes('UP') ? l : undefined;
        },
        240_000,
      );
      expect(web).toMatchObject({
        mtu: 8950,
        ifalias: 'fabrik:agent-host:web',
        linkinfo: { info_kind: 'vlan', info_data: { id: 100 } },
      });
      expect(await link('tr.200')).toMatchObject({ mtu: 1500, ifalias: 'fabrik:agent-host:db' });
      // No address: the host is not reachable from the tenant networks (no IPv6 link-local either).
      await new Promise((r) => setTimeout(r, 1000));
      const addresses = await ipJson<{ ifname: string; addr_info: unknown[] }[]>(sb.node, 'addr', 'show');
      expect(
        addresses.filter((a) => a.ifname === 'tr.100' || a.ifname === 'tr.200').map((a) => a.addr_info),
      ).toEqual([[], []]);
    },
  );

  it('carries traffic from the host to the HBR side of the trunk', { timeout: 120_000 }, async () => {
    await sb.node.ip('addr', 'add', '10.100.0.1/24', 'dev', 'tr.100');
    const ping = await sb.node.exec('ping', ['-c', '3', '-i', '0.2', '-W', '3', '10.100.0.2']);
    expect(ping.stdout).toMatch(/3 received/);
  });

  it(
    'removes the link of a deleted network, puts back one deleted by hand, and cleanup removes the rest',
    { timeout: 300_000 },
    async () => {
      await sb.writeIntent([nodeDoc({}), layer2('web', { vni: 2100, vlan: 100, mtu: 8950 })]);
      await until('tr.200 gone', async () => (await link('tr.200')) === undefined, 120_000);
      await sb.node.ip('link', 'del', 'tr.100');
      await until('tr.100 back', async () => (await link('tr.100'))?.flags.includes('UP'), 120_000);
      expect(await agent.stop()).toBe(0);
      expect(await link('tr.100')).toBeDefined(); // stopping leaves the data plane
      const cleanup = await sb.cli('cleanup');
      expect(cleanup.code).toBe(0);
      expect(await link('tr.100')).toBeUndefined();
      expect(await link('trh')).toBeDefined(); // the trunk is not agent-host's
    },
  );
});
