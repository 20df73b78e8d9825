import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { vtyshCommands } from '@fabrik/frr';
import { formatAudit, type NodeInventory } from '@fabrik/lab';
import { runCommand } from '@fabrik/netcore';
import { StepFailedError, type LabReport } from '../report.js';
import { API_PATHS, isClean, startLabCluster, type LabCluster } from './cluster.js';
import { formatCpu, processCpu } from './cpu.js';
import type { AppliedObjects } from './explain.js';
import type { NodeRuntime } from './node.js';
import type { LabPod } from './pods.js';
import { eventuallyPings, ping, waitFor } from './wait.js';

// `npm run lab`: fabrik as a cluster runs it, inside the lab kernel. Intent goes in with kubectl,
// the agents run per node as their DaemonSets would (agent-netns fed through agent-host's relay),
// Pods get their interfaces through libcni and Multus with fabrik-ovs + fabrik-ipam, and every check looks
// at what users and operators see: pings, kubectl, FRR, the node itself (the audit).

export interface ClusterScenarioOptions {
  /** Prefix of every netns and lab-side link name, so runs never collide. Default `lab-`. */
  readonly prefix?: string;
}

/** The object the schema accepts and the agents refuse (examples/invalid: a multicast gateway MAC). */
const AGENT_REFUSED = {
  file: 'examples/invalid/l2-anycast-mac-multicast.yaml',
  name: 'bad-mac',
  field: 'spec.anycastMac',
};
/** The object the API server refuses. */
const API_REFUSED = { file: 'examples/invalid/l2-vlan-out-of-range.yaml', field: 'spec.vlan' };

/** The Layer2Network applied while the cluster runs (with its pool and NAD). */
const LATE_NETWORK = `apiVersion: network.fabrik.dev/v1alpha1
kind: Layer2Network
metadata: { name: vlan400 }
spec: { vni: 2400, vlan: 400 }
---
apiVersion: network.fabrik.dev/v1alpha1
kind: IPPool
metadata: { name: vlan400 }
spec:
  ipRanges: [{ start: 10.40.0.10, end: 10.40.0.250 }]
  subnetInfo: { gateway: 10.40.0.1, prefixLength: 24, vlan: 400 }
---
apiVersion: k8s.cni.cncf.io/v1
kind: NetworkAttachmentDefinition
metadata: { name: vlan400, namespace: default }
spec:
  config: '{"cniVersion":"1.0.0","name":"vlan400","type":"fabrik-ovs","vlan":400,"ipam":{"type":"fabrik-ipam","ippools":["vlan400"]}}'
`;

/**
 * Between two reads of NodeNetworkStatus while waiting for an agent's report: short at first, then
 * longer, since each read is a TLS request served on the lab kernel's one thread that the agents
 * being waited for need.
 */
const REPORT_POLL_MS = [100, 250, 500] as const;

interface NnsSection {
  readonly configStatus?: string;
  readonly objectErrors?: readonly { kind: string; name: string; field?: string; message: string }[];
}
interface Nns {
  readonly metadata: { readonly name: string };
  readonly status?: { readonly netns?: NnsSection; readonly host?: NnsSection };
}

const addressOf = (pod: LabPod, nad: string) => {
  const a = pod.attachments.find((x) => x.nad === nad)?.addresses[0];
  if (!a) throw new Error(`${pod.name} has no address on ${nad}`);
  return a;
};

/** Waits until every node holds exactly what `objects` and the Pods explain; throws with the audit otherwise. */
async function converged(cluster: LabCluster, objects: AppliedObjects, timeoutMs = 120_000): Promise<number> {
  const result = await cluster.converge(objects, timeoutMs);
  if (!result.converged)
    throw new Error(
      `the nodes did not match the objects within ${timeoutMs} ms:\n${formatAudit(result.audit)}`,
    );
  return result.ms;
}

async function nnsProvisioned(cluster: LabCluster): Promise<Nns[] | undefined> {
  const list = await cluster.cp.kube.list<Nns>(API_PATHS.nns);
  const ok = cluster.nodes.every((rt) => {
    const nns = list.find((n) => n.metadata.name === rt.node.name);
    return (
      nns?.status?.netns?.configStatus === 'provisioned' && nns.status.host?.configStatus === 'provisioned'
    );
  });
  return ok ? list : undefined;
}

/**
 * Waits until both nodes report provisioned in NodeNetworkStatus and the audit is clean; describes
 * how long that took and each agent's reconciles. Throws with what an operator would look at.
 */
export async function waitForProvisioned(c: LabCluster, baseline: AppliedObjects): Promise<string> {
  const t0 = performance.now();
  // Polled once a second: each list is a TLS request served by this process, on the lab kernel's
  // one thread that the agents being waited for need.
  await waitFor('both nodes provisioned', () => nnsProvisioned(c), {
    timeoutMs: 240_000,
    intervalMs: 1000,
  }).catch(async (e: Error) => {
    throw new Error(`${e.message}\n${await diagnose(c)}`);
  });
  const provisioned = Math.round(performance.now() - t0);
  const more = Math.round(await converged(c, baseline));
  return [`provisioned after ${provisioned} ms, audit clean ${more} ms later`, ...reconcileTimes(c)].join(
    '\n',
  );
}

/** The counts of a reconcile's log line that are changes it made, per agent. */
const CHANGE_COUNTS = {
  netns: ['netlinkOps', 'frrAdded', 'frrRemoved'],
  host: ['ovsChanges', 'netlinkOps', 'migrations'],
} as const;

/**
 * Every agent asked to reconcile again (SIGHUP, what its periodic resync does): each one observes
 * its node in full and finds nothing to change (its reconcile's log line counts no change). All
 * four at once: no agent process to start (seconds each in the lab kernel).
 */
async function reconcileAgainChangesNothing(nodes: readonly NodeRuntime[]): Promise<string> {
  const runs = await Promise.all(
    nodes.flatMap((rt) =>
      (['netns', 'host'] as const).map(async (kind) => {
        const agent = rt.agents[kind];
        if (agent.pid === undefined) throw new Error(`${agent.name} is not running`);
        const from = agent.mark();
        process.kill(agent.pid, 'SIGHUP');
        const line = await agent.waitForLog(
          'its reconcile after SIGHUP',
          (l) => l.msg === 'reconciled' && String(l['trigger']).includes('SIGHUP'),
          { from, timeoutMs: 60_000 },
        );
        const changes = CHANGE_COUNTS[kind]
          .filter((k) => line[k] !== 0)
          .map((k) => `${k} ${String(line[k])}`);
        if (line['result'] !== 'success')
          changes.push(`result ${String(line['result'])}: ${String(line['message'])}`);
        return { name: agent.name, ms: Number(line['durationMs']), changes };
      }),
    ),
  );
  const changed = runs.filter((r) => r.changes.length > 0);
  if (changed.length) throw new Error(changed.map((r) => `${r.name}: ${r.changes.join(', ')}`).join('\n'));
  const took = runs.map((r) => `${r.name} ${(r.ms / 1000).toFixed(1)} s`);
  return `${runs.length} reconciles changed nothing: ${took.join(', ')}`;
}

export async function runClusterLab(report: LabReport, options: ClusterScenarioOptions = {}): Promise<void> {
  let cluster: LabCluster | undefined;
  try {
    cluster = await startLabCluster({
      ...(options.prefix ? { prefix: options.prefix } : {}),
      phase: (name, fn) => report.step(name, fn),
    });
    const c = cluster;
    const [ra, rb] = c.nodes as [NodeRuntime, NodeRuntime];
    const baseline = await c.appliedObjects();

    await report.step('agents converge: both nodes provisioned (NodeNetworkStatus), audit clean', () =>
      waitForProvisioned(c, baseline),
    );
    const [a1, a2, b1, b2, b3] = await report.step(
      "pods through libcni and Multus (NADs from the API): fabrik-ovs + fabrik-ipam, fabrik-ovs's verbs run by agent-host on its CNI socket",
      async () => {
        // Both nodes at once, so the IPPools take concurrent calls; on one node one Pod after the
        // other: with several verbs in flight in one agent-host (each starting a fabrik-ipam), a
        // verb's read of a settings file missed its 5 s deadline in 2 of 6 loaded lab runs. The
        // lab's one thread makes the total about the same either way.
        const [[a1, a2], [b1, b2, b3]] = await Promise.all([
          inTurn([() => c.runPod(ra, 'a1', ['vlan100']), () => c.runPod(ra, 'a2', ['vlan200'])]),
          inTurn([
            () => c.runPod(rb, 'b1', ['vlan100']),
            () => c.runPod(rb, 'b2', ['vlan200']),
            () => c.runPod(rb, 'b3', ['vlan300']),
          ]),
        ]);
        const pods = [a1!, a2!, b1!, b2!, b3!] as const;
        await assertFastPath(c, 'ADD');
        return pods;
      },
    );
    report.note(
      c.pods
        .map(
          (p) =>
            `${p.name}@${p.node.name}: ${p.attachments.map((a) => `${a.nad} ${a.addresses.join(',')}`).join('; ')}` +
            p.addRetries.map((r) => `\n  ADD tried again after: ${r}`).join(''),
        )
        .join('\n'),
    );
    await report.check(
      "Multus's network-status annotation (read now) lists every attachment with the address its interface holds",
      async () =>
        (await inTurn(c.pods.map((pod) => () => runtimeOf(c, pod).pods.checkNetworkStatus(pod)))).join('\n'),
    );

    await report.check('VLAN 100: pod a1 reaches pod b1 on the other node through EVPN', () =>
      eventuallyPings(a1.netns, addressOf(b1, 'vlan100')),
    );
    await report.check('VLAN 200: pod a2 reaches pod b2 on the other node through EVPN', () =>
      eventuallyPings(a2.netns, addressOf(b2, 'vlan200')),
    );
    await report.check('VLAN 200 pods do not reach VLAN 100 pods', async () => {
      // An on-link route to a VLAN 100 address: any leak through OVS or the HBR would answer.
      await runCommand('ip', [
        '-n',
        a2.netns,
        'route',
        'add',
        `${addressOf(b1, 'vlan100')}/32`,
        'dev',
        'net1',
      ]);
      if (await ping(a2.netns, addressOf(b1, 'vlan100'), 3))
        throw new Error('a VLAN 200 pod reached a VLAN 100 pod');
      return 'isolated';
    });
    await report.check(
      'symmetric IRB in VRF red: pod a1 (VLAN 100) reaches pod b3 (VLAN 300) through the anycast gateways',
      () => eventuallyPings(a1.netns, addressOf(b3, 'vlan300')),
    );
    for (const rt of c.nodes) {
      await report.check(
        `node ${rt.node.id}: BGP EVPN session up, remote VTEP ${rt.node.peerVtep} on every L2 VNI`,
        async () => {
          // One vtysh for all of it: each start is about half a second of the lab kernel's CPU.
          const [bgp = '', ...vnis] = await vtyshCommands({ pathspace: rt.node.hbr }, [
            'show bgp l2vpn evpn summary json',
            ...baseline.layer2s.map((l2) => `show evpn vni ${l2.spec.vni} json`),
          ]);
          const summary = JSON.parse(bgp) as {
            peers?: Record<string, { state?: string; pfxRcd?: number }>;
          };
          const peer = summary.peers?.[rt.node.peerVtep];
          if (peer?.state !== 'Established')
            throw new Error(`EVPN session to ${rt.node.peerVtep}: ${peer?.state ?? 'absent'}`);
          baseline.layer2s.forEach((l2, i) => {
            if (!vnis[i]?.includes(rt.node.peerVtep))
              throw new Error(`VNI ${l2.spec.vni} has no remote VTEP ${rt.node.peerVtep}`);
          });
          return `Established, ${peer.pfxRcd ?? 0} prefixes received; ${baseline.layer2s.length} L2 VNIs with the remote VTEP`;
        },
      );
    }
    await report.check('kubectl get fnns: both nodes provisioned', async () => {
      const out = await c.cp.kubectl('get', 'fnns');
      for (const rt of c.nodes)
        if (!new RegExp(`^${rt.node.name}\\s+provisioned\\s+provisioned`, 'm').test(out))
          throw new Error(`node ${rt.node.name} is not provisioned:\n${out}`);
      return out.trimEnd();
    });
    await report.check(
      'IPPool usage matches the Pods (kubectl get ippools, every address owned by a running attachment)',
      async () => {
        const audit = await c.auditIpPools();
        if (!isClean(audit)) throw new Error(formatAudit(audit));
        return (await c.cp.kubectl('get', 'ippools')).trimEnd();
      },
    );
    await report.check('CNI CHECK passes for every attachment (answered by agent-host)', async () => {
      // Per node one after the other, as the Pods were added.
      await Promise.all(
        c.nodes.map((rt) =>
          inTurn(c.pods.filter((pod) => pod.node.id === rt.node.id).map((pod) => () => rt.pods.check(pod))),
        ),
      );
      await assertFastPath(c, 'CHECK');
      return `${c.pods.flatMap((p) => p.attachments).length} attachments verified`;
    });

    await report.check(
      'a Layer2Network applied now is live on both nodes (Pods on it reach each other), its deletion removes it everywhere',
      async () => {
        const file = join(c.dir, 'vlan400.yaml');
        await writeFile(file, LATE_NETWORK);
        const t0 = performance.now();
        await c.cp.kubectl('apply', '-f', file);
        const withLate = await c.appliedObjects();
        const [pa, pb] = await Promise.all([
          c.runPod(ra, 'c1', ['vlan400']),
          c.runPod(rb, 'c2', ['vlan400']),
        ]);
        await eventuallyPings(pa.netns, addressOf(pb, 'vlan400'));
        const live = performance.now() - t0;
        await converged(c, withLate);
        await Promise.all([c.removePod(pa), c.removePod(pb)]);
        const t1 = performance.now();
        await c.cp.kubectl('delete', '-f', file);
        const gone = await converged(c, baseline);
        return `live on both nodes ${Math.round(live)} ms after kubectl apply (2 Pods attached and pinging); gone everywhere ${Math.round(performance.now() - t1)} ms after kubectl delete (audit clean after ${Math.round(gone)} ms)`;
      },
    );

    await report.check(
      `a bad object is refused: kubectl apply of ${API_REFUSED.file} fails naming ${API_REFUSED.field}`,
      async () => {
        try {
          await c.cp.kubectl('apply', '-f', API_REFUSED.file);
        } catch (e) {
          const message = (e as Error).message;
          if (!message.includes(API_REFUSED.field))
            throw new Error(`refused without naming ${API_REFUSED.field}: ${message}`);
          return message
            .split('\n')
            .find((l) => l.includes(API_REFUSED.field))!
            .trim();
        }
        throw new Error('kubectl apply succeeded');
      },
    );
    await report.check(
      `a bad object the schema accepts is reported in NodeNetworkStatus (${AGENT_REFUSED.field}), the nodes untouched`,
      async () => {
        const before = await c.inventories();
        await c.cp.kubectl('apply', '-f', AGENT_REFUSED.file);
        const reported = await waitFor(
          'both nodes to report bad-mac',
          async () => {
            const list = await c.cp.kube.list<Nns>(API_PATHS.nns);
            const errors = list.map((n) =>
              n.status?.netns?.objectErrors?.find((o) => o.name === AGENT_REFUSED.name),
            );
            return errors.every((e) => e !== undefined) && errors.length === c.nodes.length
              ? errors
              : undefined;
          },
          { intervalMs: REPORT_POLL_MS },
        );
        for (const e of reported)
          if (e?.field !== AGENT_REFUSED.field)
            throw new Error(`reported with field ${e?.field}: ${e?.message}`);
        const after = await c.inventories();
        assertSameInventories(before, after);
        // Cleanup, not part of what users see: through the API (a kubectl start costs seconds in the lab).
        await c.cp.kube.delete(`${API_PATHS.layer2s}/${AGENT_REFUSED.name}`);
        return `${AGENT_REFUSED.name}: ${reported[0]?.message}; no link, OVS row, FRR line or file changed`;
      },
    );

    await report.check('deleting a Pod removes its OVS port, veth, records and IPPool address', async () => {
      await c.removePod(a2);
      await converged(c, baseline, 60_000);
      return `${a2.attachments[0]!.hostIfname} and ${addressOf(a2, 'vlan200')} released; audit clean`;
    });
    await report.check('every agent asked to reconcile again (SIGHUP) changes nothing', () =>
      reconcileAgainChangesNothing(c.nodes),
    );
    await report.check(
      'the nodes hold nothing the objects do not explain (links, OVS rows, FRR lines, IPPool entries, cache files)',
      async () => {
        const audit = await c.audit(baseline);
        if (!isClean(audit)) throw new Error(formatAudit(audit));
        const invs = audit.inventories;
        return `${invs.reduce((n, i) => n + i.links.length, 0)} links, ${invs.reduce((n, i) => n + i.ovsRows.length, 0)} OVS rows, ${invs.reduce((n, i) => n + i.files.length, 0)} files, all explained`;
      },
    );
    // Before the agents stop: their CPU (and their children's) is in /proc while they run.
    report.note(`where the lab kernel's CPU went (top processes):\n${formatCpu(await processCpu())}`);
  } catch (e) {
    if (!(e instanceof StepFailedError)) throw e;
  } finally {
    await cluster?.destroy();
  }
}

const runtimeOf = (c: LabCluster, pod: LabPod): NodeRuntime =>
  c.nodes.find((rt) => rt.node.id === pod.node.id)!;

/** Runs `steps` one after the other; their results in order. */
async function inTurn<T>(steps: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = [];
  for (const step of steps) out.push(await step());
  return out;
}

/**
 * Every attachment's `command` so far was answered by its node's agent-host on the CNI socket (the
 * fast path), not by a fabrik-ovs process doing the work itself: agent-host counts them.
 */
async function assertFastPath(cluster: LabCluster, command: 'ADD' | 'CHECK'): Promise<void> {
  for (const rt of cluster.nodes) {
    const attachments = cluster.pods.filter((p) => p.node.id === rt.node.id).flatMap((p) => p.attachments);
    const answered = await rt.cniAnswered(command);
    if (answered < attachments.length)
      throw new Error(
        `agent-host ${rt.node.id} answered ${answered} ${command}s on its CNI socket, the node has ${attachments.length} attachments: fabrik-ovs did the rest itself`,
      );
  }
}

/** Each agent's reconciles so far, with their durations (from its log). */
function reconcileTimes(cluster: LabCluster): string[] {
  return cluster.nodes.flatMap((rt) =>
    Object.values(rt.agents).map((agent) => {
      const runs = agent.logs.filter((l) => l.msg === 'reconciled' || l.msg === 'reconcile failed');
      const parts = (l: (typeof runs)[number]) =>
        [`${String(l.result)} ${String(l.durationMs)} ms`]
          .concat(typeof l.netlinkMs === 'number' ? [`netlink ${l.netlinkMs} ms`] : [])
          .concat(typeof l.frrMs === 'number' ? [`FRR ${l.frrMs} ms`] : [])
          .concat(
            typeof l.frrReloadMs === 'number' && l.frrReloadMs > 0 ? [`(reload ${l.frrReloadMs} ms)`] : [],
          )
          .concat(typeof l.trigger === 'string' ? [`[${l.trigger}]`] : [])
          .join(' ');
      return `${agent.name}: ${runs.map(parts).join(', ') || 'no reconcile'}`;
    }),
  );
}

/** What an operator would look at when the nodes do not converge: NodeNetworkStatus and the agents' last warnings. */
async function diagnose(cluster: LabCluster): Promise<string> {
  const lines: string[] = [];
  for (const nns of await cluster.cp.kube.list<Nns>(API_PATHS.nns).catch(() => []))
    lines.push(`nns ${nns.metadata.name}: ${JSON.stringify(nns.status)}`);
  for (const rt of cluster.nodes) {
    const status = await readFile(rt.paths.relayStatus, 'utf8').catch((e: Error) => e.message);
    lines.push(`relay status file of ${rt.node.id}: ${status.slice(0, 300)}`);
    for (const agent of Object.values(rt.agents)) {
      const warnings = [
        ...agent.logs.filter((l) => (l.level ?? 30) >= 40).slice(-3),
        ...agent.logs.slice(-4),
      ];
      lines.push(
        `${agent.name} (started ${agent.starts}x):`,
        ...warnings.map((l) => `  ${JSON.stringify(l).slice(0, 600)}`),
        ...(agent.stderr ? [`  stderr: ${agent.stderr.slice(-600)}`] : []),
      );
    }
  }
  // Where the lab kernel's time went: the processes with the most CPU time.
  const ps = await runCommand('ps', ['-eo', 'pid,ppid,stat,cputime,etimes,args', '--sort=-cputime']).catch(
    (e: Error) => ({ stdout: e.message }),
  );
  lines.push(
    ...ps.stdout
      .split('\n')
      .slice(0, 40)
      .map((l) => l.slice(0, 160)),
  );
  return lines.join('\n');
}

/** Two inventories hold the same things (order aside). */
function assertSameInventories(before: readonly NodeInventory[], after: readonly NodeInventory[]): void {
  const flat = (invs: readonly NodeInventory[]) =>
    new Set(
      invs.flatMap((i) => [
        ...i.links.map((l) => `link ${l.netns}/${l.name}`),
        ...i.ovsRows.map((r) => `ovs ${r.table}/${r.name}`),
        ...i.frrLines.map((l) => `frr ${l.pathspace}: ${[...l.context, l.line].join(' / ')}`),
        ...i.files.map((f) => `file ${f}`),
      ]),
    );
  const [b, a] = [flat(before), flat(after)];
  const diff = [
    ...[...a].filter((x) => !b.has(x)).map((x) => `+ ${x}`),
    ...[...b].filter((x) => !a.has(x)).map((x) => `- ${x}`),
  ];
  if (diff.length) throw new Error(`the nodes changed:\n${diff.join('\n')}`);
}
