import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { netnsPath, runCommand, runInNetns } from '@fabrik/netcore';
import { createNetlink, type Netlink } from '@fabrik/netcore/netlink';
import { addPort, connectOvsdb, ensureBridge, findPorts, type OvsdbClient } from '@fabrik/netcore/ovsdb';
import { readFrrStatus } from '@fabrik/frr';
import { PortIds } from '@fabrik/api';
import { buildTopology, type BuiltTopology } from '@fabrik/lab';
import { startFrr, startOvs, type FrrInstance, type OvsInstance } from '@fabrik/testkit';
import type { LabReport } from '../report.js';
import { startHbrAgent, type HbrAgent } from './hbr-agent.js';
import {
  LAB_NETWORKS,
  LAB_VRF,
  OVS_BRIDGE,
  TRUNK_HOST_IF,
  labNodes,
  labTopology,
  type LabNode,
  type PodSpec,
} from './topology.js';
import { POD_IFNAME, attachPod, checkPod, detachPod, writeNodeCni, type NodeCni } from './pods.js';

export interface ScenarioOptions {
  /** Prefix of every netns name, so runs never collide. Default: `lab-`. */
  readonly prefix?: string;
}

/** Everything one node runs, for the checks and the teardown. */
interface NodeRuntime {
  readonly node: LabNode;
  readonly host: Netlink;
  agent?: HbrAgent;
  stateDir?: string;
  frr?: FrrInstance;
  ovs?: OvsInstance;
  ovsdb?: OvsdbClient;
  cni?: NodeCni;
  podAddresses: Map<string, string>;
}

const HOSTNAME = 'fabrik-lab'; // the lab kernel's hostname; FRR configs must carry the running one

/**
 * The HBR, set up by agent-netns itself (in the order learnt upstream: L3 devices down, FRR
 * reload, zebra's VRF-to-VNI mapping, then everything up): its first reconcile's log line.
 */
async function setUpHbr(rt: NodeRuntime): Promise<string> {
  rt.agent = await startHbrAgent(rt.node, rt.stateDir!);
  const first = rt.agent.process.logs.find((l) => l.msg === 'reconciled');
  return `${first?.netlinkOps} netlink ops, FRR +${first?.frrAdded}/-${first?.frrRemoved} lines in ${first?.durationMs} ms (FRR reload ${first?.frrReloadMs} ms)`;
}

async function setUpOvs(rt: NodeRuntime): Promise<string> {
  rt.ovs = await startOvs({ netns: rt.node.host });
  rt.ovsdb = await connectOvsdb(rt.ovs.endpoint);
  const bridge = await ensureBridge(rt.ovsdb, {
    name: OVS_BRIDGE,
    datapathType: 'netdev',
    externalIds: { 'fabrik-node': rt.node.id },
  });
  await rt.host.linkSetUp(TRUNK_HOST_IF);
  // The trunk carries every VLAN (no tag, no trunks list): tr.<vid> in the HBR splits them.
  await addPort(rt.ovsdb, {
    bridge: OVS_BRIDGE,
    name: TRUNK_HOST_IF,
    type: 'system',
    externalIds: { 'fabrik-role': 'trunk' },
  });
  return `bridge ${bridge.created ? 'created' : 'existed'}, uplink ${TRUNK_HOST_IF}`;
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
  for (let i = 1; i <= tries; i++)
    if (await ping(from, to)) return `${to} reachable after ${i} ${i === 1 ? 'try' : 'tries'}`;
  throw new Error(`${from} cannot reach ${to} after ${tries} tries`);
}

/** Setting up again must change nothing: agent-netns's plan is empty, no new OVS rows. */
async function rerunIsNoop(rt: NodeRuntime): Promise<string> {
  const plan = await rt.agent!.plan();
  if (plan.code !== 0) throw new Error(`agent-netns plan exits ${plan.code}: ${plan.output.trim()}`);
  const bridge = await ensureBridge(rt.ovsdb!, {
    name: OVS_BRIDGE,
    datapathType: 'netdev',
    externalIds: { 'fabrik-node': rt.node.id },
  });
  if (bridge.created) throw new Error('OVS bridge was created again');
  const trunks = await findPorts(rt.ovsdb!, { 'fabrik-role': 'trunk' });
  if (trunks.length !== 1) throw new Error(`${trunks.length} trunk ports`);
  return 'agent-netns plan empty (netlink and FRR), OVS unchanged';
}

/**
 * The two-node EVPN lab, built by fabrik's own code: builds it step by step into `report`, runs
 * every check, and tears everything down. The verdict is in the report.
 */
export async function runTwoNodeEvpn(report: LabReport, options: ScenarioOptions = {}): Promise<void> {
  const nodes = labNodes(options.prefix ?? 'lab-');
  const runtimes: NodeRuntime[] = nodes.map((node) => ({
    node,
    host: createNetlink({ netns: node.host }),
    podAddresses: new Map(),
  }));
  let topology: BuiltTopology | undefined;
  try {
    topology = await report.step('topology: 2 nodes (host + HBR netns), underlay, trunks, pod netns', () =>
      buildTopology(labTopology(nodes)),
    );
    for (const rt of runtimes) {
      const n = rt.node;
      rt.stateDir = await mkdtemp(join(tmpdir(), `fabrik-lab-${n.id}-`));
      rt.frr = await report.step(`node ${n.id}: start FRR (zebra, bgpd) in the HBR netns`, () =>
        startFrr({ netns: n.hbr, config: `frr defaults datacenter\nhostname ${HOSTNAME}\n!\n` }),
      );
      await report.step(`node ${n.id}: HBR state and FRR config by agent-netns (file source)`, () =>
        setUpHbr(rt),
      );
      await report.step(
        `node ${n.id}: OVS bridge ${OVS_BRIDGE} with the trunk as uplink (netcore OVSDB)`,
        () => setUpOvs(rt),
      );
      rt.cni = await writeNodeCni(n, rt.stateDir, rt.ovs!.endpoint);
      await report.step(`node ${n.id}: attach pods with fabrik-ovs through libcni`, async () => {
        for (const pod of n.pods) rt.podAddresses.set(pod.name, await attachPod(n, rt.cni!, pod));
        return [...rt.podAddresses.values()].join(', ');
      });
    }
    const [ra, rb] = runtimes as [NodeRuntime, NodeRuntime];
    const [a1, a2] = ra.node.pods as [PodSpec, PodSpec];
    const [b1, b2] = rb.node.pods as [PodSpec, PodSpec];
    const addr = (rt: NodeRuntime, pod: PodSpec) => rt.podAddresses.get(pod.name)!;

    await report.check('VLAN 100: pod a1 reaches pod b1 through EVPN', () =>
      eventuallyPings(a1.name, addr(rb, b1)),
    );
    await report.check('VLAN 200: pod a2 reaches pod b2 through EVPN', () =>
      eventuallyPings(a2.name, addr(rb, b2)),
    );
    await report.check('VLAN 200 pods do not reach VLAN 100 pods', async () => {
      // Give the VLAN 200 pod an on-link route to a VLAN 100 address: any leak through OVS or
      // the HBR would answer.
      await runCommand('ip', ['-n', a2.name, 'route', 'add', `${addr(rb, b1)}/32`, 'dev', POD_IFNAME]);
      if (await ping(a2.name, addr(rb, b1), 2)) throw new Error('a VLAN 200 pod reached a VLAN 100 pod');
      return 'isolated';
    });
    for (const rt of runtimes) {
      await report.check(
        `node ${rt.node.id}: BGP EVPN session up, remote VTEP ${rt.node.peerVtep} on every L2 VNI`,
        async () => {
          const status = await readFrrStatus({ pathspace: rt.node.hbr, netns: rt.node.hbr });
          const session = status.bgpSessions.find(
            (s) => s.neighbor === rt.node.peerVtep && s.addressFamily.toLowerCase().includes('evpn'),
          );
          if (session?.state !== 'Established')
            throw new Error(`EVPN session to ${rt.node.peerVtep}: ${session?.state ?? 'absent'}`);
          for (const net of LAB_NETWORKS) {
            const vni = await rt.frr!.vtysh(`show evpn vni ${net.vni} json`);
            if (!vni.includes(rt.node.peerVtep))
              throw new Error(`VNI ${net.vni} has no remote VTEP ${rt.node.peerVtep}`);
          }
          const l3 = status.vrfVnis.find((v) => v.vrf === LAB_VRF.name);
          return `Established (${session.prefixesReceived ?? 0} prefixes), VRF ${LAB_VRF.name} -> L3 VNI ${l3?.vni} ${l3?.state ?? ''}`.trim();
        },
      );
    }
    await report.check('CNI CHECK passes for every attachment', async () => {
      for (const rt of runtimes) for (const pod of rt.node.pods) await checkPod(rt.node, rt.cni!, pod);
      return `${runtimes.length * 2} attachments verified`;
    });
    await report.check('deleting a pod attachment leaves no OVS port and no veth', async () => {
      const ofPod = { [PortIds.netns]: netnsPath(a2.name) };
      const hostLinks = async () => (await ra.host.linkList()).map((l) => l.spec.name);
      const [port, ...extra] = await findPorts(ra.ovsdb!, ofPod);
      if (!port || extra.length)
        throw new Error(`expected one OVS port for ${a2.name}, found ${extra.length + (port ? 1 : 0)}`);
      if (!(await hostLinks()).includes(port.name)) throw new Error(`veth ${port.name} missing before DEL`);
      await detachPod(ra.node, ra.cni!, a2);
      const left = await findPorts(ra.ovsdb!, ofPod);
      if (left.length) throw new Error(`OVS port ${left[0]!.name} still exists`);
      if ((await hostLinks()).includes(port.name)) throw new Error(`veth ${port.name} still exists`);
      const podLinks = (await createNetlink({ netns: a2.name }).linkList()).map((l) => l.spec.name);
      if (podLinks.includes(POD_IFNAME)) throw new Error(`${POD_IFNAME} still in the pod`);
      return `port and veth ${port.name} removed`;
    });
    for (const rt of runtimes) {
      await report.check(`node ${rt.node.id}: re-running the setup changes nothing`, () => rerunIsNoop(rt));
    }
  } catch (e) {
    if (!(e instanceof Error && e.name === 'StepFailedError')) throw e;
  } finally {
    for (const rt of runtimes) {
      if (rt.cni) for (const pod of rt.node.pods) await detachPod(rt.node, rt.cni, pod).catch(() => {});
      await rt.agent?.stop();
      await rt.ovsdb?.close();
      await rt.frr?.stop();
      await rt.ovs?.stop();
      if (rt.stateDir) await rm(rt.stateDir, { recursive: true, force: true });
    }
    await topology?.destroy();
  }
}
