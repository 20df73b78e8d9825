import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseFrrStatus, vrfIbgpRouterId } from '@fabrik/frr';
import { runCommand } from '@fabrik/netcore';
import {
  addPod,
  deletePod,
  dumpAgentLogs,
  layer2,
  ownedLinks,
  pings,
  setIntent,
  startAgent,
  startLabNodes,
  until,
  vrf,
  waitApplied,
  type LabNode,
  type LabNodes,
} from '../test/lab-nodes.js';

// Mode vrf-ibgp end to end: a veth pair per VRF into the default VRF and an iBGP session over it
// (the template set @fabrik/frr renders), route leaking red <-> blue through the default VRF,
// EVPN between the nodes. Two nodes of the lab kernel with real FRR, agents from files.

const P = 'agi-';
const pods: string[] = [];
let lab: LabNodes;
let a: LabNode;
let b: LabNode;

const intent = [
  vrf('red', 1, { vni: 1001, redistribute: { connected: true }, importVrfs: ['blue'] }),
  vrf('blue', 1, { vni: 1002, redistribute: { connected: true }, importVrfs: ['red'] }),
  layer2('net1', 1, {
    vni: 2101,
    vlan: 101,
    vrf: 'red',
    anycastGateways: ['10.1.0.1/24'],
    anycastMac: '02:fa:b0:00:01:01',
  }),
  layer2('net3', 1, {
    vni: 2103,
    vlan: 103,
    vrf: 'blue',
    anycastGateways: ['10.3.0.1/24'],
    anycastMac: '02:fa:b0:00:01:03',
  }),
];

/** The BGP sessions of every VRF of `node`, as `vrf/neighbor` -> state. */
async function sessions(node: LabNode): Promise<Map<string, string>> {
  const { bgpSessions } = parseFrrStatus({
    bgpSummary: JSON.parse(await node.frr.vtysh('show bgp vrf all summary json')),
    evpnVni: {},
    vrfVni: {},
  });
  return new Map(bgpSessions.map((s) => [`${s.vrf}/${s.neighbor}`, s.state]));
}

/** What FRR and the kernel show of the iBGP sessions and the routes over them, printed when a test fails. */
async function diagnosis(node: LabNode): Promise<string> {
  const show = async (what: string, run: () => Promise<string>) =>
    `### ${what}\n${await run().catch((e: unknown) => String(e))}`;
  return (
    await Promise.all([
      show('show bgp vrf all summary', () => node.frr.vtysh('show bgp vrf all summary')),
      show('show bgp vrf red neighbors ibv1001', () => node.frr.vtysh('show bgp vrf red neighbors ibv1001')),
      show('show bgp neighbors ibd1001', () => node.frr.vtysh('show bgp neighbors ibd1001')),
      show('show bgp vrf all ipv4 unicast', () => node.frr.vtysh('show bgp vrf all ipv4 unicast')),
      show('ip -d addr', async () => (await runCommand('ip', ['-n', node.hbr, '-d', 'addr'])).stdout),
      show(
        'ip route show table all',
        async () => (await runCommand('ip', ['-n', node.hbr, 'route', 'show', 'table', 'all'])).stdout,
      ),
    ])
  ).join('\n');
}

beforeAll(async () => {
  lab = await startLabNodes({ prefix: P, mode: 'vrf-ibgp' });
  [a, b] = lab.nodes as [LabNode, LabNode];
}, 300_000);
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  dumpAgentLogs(lab.nodes);
  for (const n of lab.nodes) console.log(`--- node ${n.id} ---\n${await diagnosis(n)}`);
});
afterAll(async () => {
  for (const p of pods) await deletePod(p);
  await lab?.destroy();
});

describe('agent-netns in mode vrf-ibgp, two nodes', { timeout: 600_000 }, () => {
  it('brings up the veth pair and the iBGP session of each VRF, and routes red <-> blue over them', async () => {
    for (const n of [a, b]) {
      await setIntent(n, intent);
      startAgent(n);
    }
    for (const n of [a, b]) await waitApplied(n, intent);

    const links = await ownedLinks(a);
    expect(links.get('ibv1001')).toMatchObject({ kind: 'veth', master: 'red', up: true });
    expect(links.get('ibd1001')).toMatchObject({ kind: 'veth', master: null, up: true });
    expect(links.get('ibv1002')).toMatchObject({ kind: 'veth', master: 'blue', up: true });
    expect(links.get('ibd1002')).toMatchObject({ kind: 'veth', master: null, up: true });
    // Each VRF instance has a router ID of its own: iBGP refuses a peer with the receiver's ID.
    const red = await a.frr.vtysh('show bgp vrf red json');
    expect(JSON.parse(red)).toMatchObject({ routerId: vrfIbgpRouterId(1001) });

    const wanted = ['red/ibv1001', 'default/ibd1001', 'blue/ibv1002', 'default/ibd1002'];
    for (const n of [a, b])
      await until(
        `node ${n.id}: the iBGP sessions between the VRFs and the default VRF Established`,
        async () => {
          const s = await sessions(n);
          return wanted.every((k) => s.get(k) === 'Established');
        },
        180_000,
      );

    for (const [n, name, vlan, address, gw] of [
      [a, 'a101', 101, '10.1.0.10/24', '10.1.0.1'],
      [b, 'b101', 101, '10.1.0.11/24', '10.1.0.1'],
      [b, 'b103', 103, '10.3.0.30/24', '10.3.0.1'],
    ] as const) {
      pods.push(`${P}${name}`);
      await addPod(n, `${P}${name}`, vlan, address, gw);
    }
    // Red reaches blue's subnet through its veth into the default VRF (the leak vrf-ibgp makes),
    // and the default VRF reaches blue through blue's veth.
    const redRoute = await until("node a: red's route to 10.3.0.0/24 over ibv1001", async () => {
      const { stdout } = await runCommand('ip', ['-n', a.hbr, 'route', 'show', 'vrf', 'red', '10.3.0.0/24']);
      return stdout.includes('dev ibv1001') ? stdout : undefined;
    });
    expect(redRoute).toContain('proto bgp');
    const defaultRoute = await until(
      "node a: the default VRF's route to 10.3.0.0/24 over ibd1002",
      async () => {
        const { stdout } = await runCommand('ip', ['-n', a.hbr, 'route', 'show', '10.3.0.0/24']);
        return stdout.includes('dev ibd1002') ? stdout : undefined;
      },
    );
    expect(defaultRoute).toContain('proto bgp');

    expect(await pings(`${P}a101`, '10.1.0.11', 30)).toBe(true); // red: bridged through EVPN
    expect(await pings(`${P}a101`, '10.3.0.30', 30)).toBe(true); // red -> default -> blue, then EVPN
    expect(await pings(`${P}b103`, '10.1.0.10', 30)).toBe(true); // and back: blue -> default -> red
  });
});
