import { runCommand, runInNetns } from '@fabrik/netcore';
import { buildTopology, type BuiltTopology } from '@fabrik/lab';
import { startFrr, startOvs, type FrrInstance, type OvsInstance } from '@fabrik/testkit';
import type { LabReport } from '../report.js';
import { LAB_NETWORKS, OVS_BRIDGE, TRUNK_HBR_IF, TRUNK_HOST_IF, labNodes, labTopology, type LabNode, type PodSpec } from './topology.js';

export interface ScenarioOptions {
  /** Prefix of every netns name, so runs never collide. Default: `lab-`. */
  readonly prefix?: string;
}

interface NodeRuntime {
  readonly node: LabNode;
  ovs?: OvsInstance;
  frr?: FrrInstance;
}

const ip = (ns: string, ...args: string[]) => runCommand('ip', ['-n', ns, ...args]);

function frrConfig(n: LabNode): string {
  return `frr defaults datacenter
hostname fabrik-lab
!
router bgp 65000
 bgp router-id ${n.vtep}
 no bgp default ipv4-unicast
 neighbor ${n.peerVtep} remote-as internal
 !
 address-family l2vpn evpn
  neighbor ${n.peerVtep} activate
  advertise-all-vni
 exit-address-family
exit
!
`;
}

async function buildHbr(n: LabNode): Promise<void> {
  await ip(n.hbr, 'link', 'set', TRUNK_HBR_IF, 'up');
  for (const net of LAB_NETWORKS) {
    const br = `br${net.vni}`;
    const vx = `vx${net.vni}`;
    const vlan = `${TRUNK_HBR_IF}.${net.vlan}`;
    await ip(n.hbr, 'link', 'add', br, 'type', 'bridge');
    await ip(n.hbr, 'link', 'set', br, 'addrgenmode', 'none');
    await ip(n.hbr, 'link', 'add', vx, 'type', 'vxlan', 'id', String(net.vni), 'local', n.vtep, 'dstport', '4789', 'nolearning');
    await ip(n.hbr, 'link', 'set', vx, 'master', br);
    await ip(n.hbr, 'link', 'add', 'link', TRUNK_HBR_IF, 'name', vlan, 'type', 'vlan', 'id', String(net.vlan));
    await ip(n.hbr, 'link', 'set', vlan, 'master', br);
    for (const dev of [vx, vlan, br]) await ip(n.hbr, 'link', 'set', dev, 'up');
  }
}

async function attachPod(rt: NodeRuntime, pod: PodSpec, index: number): Promise<void> {
  const hostIf = `veth${rt.node.id}${index}`;
  await ip(rt.node.host, 'link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'net1', 'netns', pod.name);
  await ip(rt.node.host, 'link', 'set', hostIf, 'up');
  await rt.ovs!.vsctl('add-port', OVS_BRIDGE, hostIf, `tag=${pod.vlan}`);
  await ip(pod.name, 'addr', 'add', pod.address, 'dev', 'net1');
  await ip(pod.name, 'link', 'set', 'net1', 'up');
}

async function ping(from: string, to: string, count = 1): Promise<boolean> {
  try {
    await runInNetns(from, 'ping', ['-c', String(count), '-W', '1', to]);
    return true;
  } catch {
    return false;
  }
}

async function eventuallyPings(from: string, to: string, tries = 30): Promise<string> {
  for (let i = 1; i <= tries; i++) if (await ping(from, to)) return `reachable after ${i} ${i === 1 ? 'try' : 'tries'}`;
  throw new Error(`${from} cannot reach ${to} after ${tries} tries`);
}

const addressOf = (pod: PodSpec) => pod.address.split('/')[0]!;

/**
 * The two-node EVPN lab: builds it step by step into `report`, runs every check, and tears
 * everything down. Resolves when done; the verdict is in the report.
 */
export async function runTwoNodeEvpn(report: LabReport, options: ScenarioOptions = {}): Promise<void> {
  const nodes = labNodes(options.prefix ?? 'lab-');
  const runtimes: NodeRuntime[] = nodes.map((node) => ({ node }));
  let topology: BuiltTopology | undefined;
  try {
    topology = await report.step('topology: 2 nodes (host + HBR netns), underlay, trunks, pod netns', () =>
      buildTopology(labTopology(nodes)),
    );
    for (const rt of runtimes) {
      const n = rt.node;
      await report.step(`node ${n.id}: HBR L2 VNIs ${LAB_NETWORKS.map((x) => `${x.vni}@vlan${x.vlan}`).join(', ')}`, () => buildHbr(n));
      rt.frr = await report.step(`node ${n.id}: FRR (zebra, bgpd) with BGP EVPN`, () =>
        startFrr({ netns: n.hbr, config: frrConfig(n) }),
      );
      rt.ovs = await report.step(`node ${n.id}: OVS ${OVS_BRIDGE} with trunk uplink`, async () => {
        const ovs = await startOvs({ netns: n.host });
        await ovs.addBridge(OVS_BRIDGE);
        await ip(n.host, 'link', 'set', TRUNK_HOST_IF, 'up');
        await ovs.vsctl('add-port', OVS_BRIDGE, TRUNK_HOST_IF);
        return ovs;
      });
      await report.step(`node ${n.id}: attach pods`, async () => {
        for (const [i, pod] of n.pods.entries()) await attachPod(rt, pod, i);
      });
    }
    const [a, b] = nodes;
    const [a1, a2] = a.pods as [PodSpec, PodSpec];
    const [b1, b2] = b.pods as [PodSpec, PodSpec];
    await report.check(`VLAN 100: pod a1 reaches pod b1 through EVPN`, () => eventuallyPings(a1.name, addressOf(b1)));
    await report.check(`VLAN 200: pod a2 reaches pod b2 through EVPN`, () => eventuallyPings(a2.name, addressOf(b2)));
    await report.check(`VLAN 200 pods do not reach VLAN 100 pods`, async () => {
      // Same subnet trick is impossible across VLANs, so address the VLAN 100 pod's IP from a
      // VLAN 200 pod with an on-link route: a leak through OVS or the HBR would answer.
      await ip(a2.name, 'route', 'add', `${addressOf(b1)}/32`, 'dev', 'net1');
      if (await ping(a2.name, addressOf(b1), 2)) throw new Error('a VLAN 200 pod reached a VLAN 100 pod');
      return 'isolated';
    });
    for (const rt of runtimes) {
      await report.check(`node ${rt.node.id}: BGP EVPN session up, remote VTEP ${rt.node.peerVtep} known`, async () => {
        const summary = JSON.parse(await rt.frr!.vtysh('show bgp l2vpn evpn summary json'));
        const peer = summary.peers?.[rt.node.peerVtep] ?? summary.l2vpnEvpn?.peers?.[rt.node.peerVtep];
        if (peer?.state !== 'Established') throw new Error(`session to ${rt.node.peerVtep}: ${peer?.state ?? 'absent'}`);
        const vni = JSON.parse(await rt.frr!.vtysh(`show evpn vni ${LAB_NETWORKS[0].vni} json`));
        if (!JSON.stringify(vni.remoteVteps ?? vni).includes(rt.node.peerVtep)) throw new Error(`VNI ${LAB_NETWORKS[0].vni} has no remote VTEP ${rt.node.peerVtep}`);
        return `Established, ${peer.pfxRcd ?? 0} prefixes received`;
      });
    }
  } catch (e) {
    if (!(e instanceof Error && e.name === 'StepFailedError')) throw e;
  } finally {
    for (const rt of runtimes) {
      await rt.frr?.stop();
      await rt.ovs?.stop();
    }
    await topology?.destroy();
  }
}
