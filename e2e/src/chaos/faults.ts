import type { LabCluster, Convergence } from '../cluster/cluster.js';
import { API_PATHS } from '../cluster/cluster.js';
import type { AppliedObjects } from '../cluster/explain.js';
import type { AgentKind, NodeRuntime } from '../cluster/node.js';
import type { LabPod } from '../cluster/pods.js';
import { ping, waitFor } from '../cluster/wait.js';
import type { Trial } from './trials.js';

// The faults of the reliability suite: agents killed at random points of an apply, Open vSwitch,
// FRR and the API server restarted under running agents. Each trial makes a change, injects the
// fault and measures the time until both nodes hold exactly what the objects explain again (the
// audit) and a Pod still reaches its peer on the other node.

export interface ChaosContext {
  readonly cluster: LabCluster;
  /** The objects applied before the suite (the lab's intent). */
  readonly baseline: AppliedObjects;
  /** A Pod on each node on the same network: the data plane must carry traffic after every fault. */
  readonly probePods: readonly [LabPod, LabPod];
  readonly random: () => number;
  /** How long a trial may take to converge after its fault. */
  readonly convergeTimeoutMs: number;
  record(trial: Trial): void;
}

/** The Layer2Network each fault trial toggles, so every fault meets a change in flight. */
export const PROBE_NETWORK = {
  apiVersion: 'network.fabrik.dev/v1alpha1',
  kind: 'Layer2Network',
  metadata: { name: 'chaos-probe' },
  spec: { vni: 2900, vlan: 900 },
} as const;

/** The objects with or without the probe network (as the API server stores it: with defaults). */
export function withProbe(base: AppliedObjects, present: boolean): AppliedObjects {
  return present ? { ...base, layer2s: [...base.layer2s, PROBE_NETWORK] } : base;
}

/** Creates or deletes the probe network through the API. */
export async function setProbe(cluster: LabCluster, present: boolean): Promise<void> {
  if (present) await cluster.cp.kube.create(API_PATHS.layer2s, PROBE_NETWORK);
  else await cluster.cp.kube.delete(`${API_PATHS.layer2s}/${PROBE_NETWORK.metadata.name}`);
}

const addressOf = (pod: LabPod) => pod.attachments[0]!.addresses[0]!;

/** The trial's verdict: converged (audit clean and the probe Pods reach each other) after `since`. */
async function settle(
  ctx: ChaosContext,
  objects: AppliedObjects,
  since: number,
): Promise<Omit<Trial, 'suite' | 'name'>> {
  const result: Convergence = await ctx.cluster.converge(objects, ctx.convergeTimeoutMs);
  const [a, b] = ctx.probePods;
  const reaches = result.converged
    ? await waitFor('the probe Pods to reach each other', () => ping(a.netns, addressOf(b)), {
        timeoutMs: 15_000,
      }).then(
        () => true,
        () => false,
      )
    : false;
  const leaked = result.audit.leaked.length;
  const problems = [
    ...result.audit.leaked.map((f) => `leaked ${f.area}: ${f.what}`),
    ...result.audit.missing.map((f) => `missing ${f.area}: ${f.what}`),
    ...(result.converged && !reaches ? [`${a.name} cannot reach ${b.name}`] : []),
  ];
  return {
    converged: result.converged && reaches,
    leaked,
    recoverMs: performance.now() - since,
    ...(problems.length ? { detail: problems.slice(0, 10).join('\n') } : {}),
  };
}

/**
 * How long a change takes to converge without a fault: the window in which kills land. Leaves the
 * probe network as it found it (absent).
 */
export async function measureChangeWindow(ctx: ChaosContext): Promise<number> {
  const t0 = performance.now();
  await setProbe(ctx.cluster, true);
  const up = await ctx.cluster.converge(withProbe(ctx.baseline, true), ctx.convergeTimeoutMs);
  await setProbe(ctx.cluster, false);
  const down = await ctx.cluster.converge(ctx.baseline, ctx.convergeTimeoutMs);
  if (!up.converged || !down.converged) throw new Error('the probe network did not converge without faults');
  return (performance.now() - t0) / 2;
}

/**
 * kill -9 of one agent at a random point after a change (uniform in [0, window]); the supervisor
 * starts it again, as the kubelet would.
 */
export async function killAgentTrials(
  ctx: ChaosContext,
  rt: NodeRuntime,
  kind: AgentKind,
  trials: number,
  windowMs: number,
  present: { value: boolean },
): Promise<void> {
  for (let i = 1; i <= trials; i++) {
    present.value = !present.value;
    await setProbe(ctx.cluster, present.value);
    const delay = Math.round(ctx.random() * windowMs);
    await new Promise((r) => setTimeout(r, delay));
    const since = performance.now();
    await rt.agents[kind].kill9();
    const verdict = await settle(ctx, withProbe(ctx.baseline, present.value), since);
    ctx.record({
      suite: `kill -9 agent-${kind}`,
      name: `${i}/${trials} (node ${rt.node.id}, ${delay} ms into ${present.value ? 'adding' : 'removing'} a network)`,
      ...verdict,
    });
  }
}

/** ovsdb-server stopped while a change is made, then started: agent-host reconnects and repairs. */
export async function restartOvsdbTrial(
  ctx: ChaosContext,
  rt: NodeRuntime,
  present: { value: boolean },
): Promise<void> {
  await rt.ovs.stopDb();
  present.value = !present.value;
  await setProbe(ctx.cluster, present.value);
  await new Promise((r) => setTimeout(r, 1000));
  const since = performance.now();
  await rt.ovs.startDb();
  ctx.record({
    suite: 'restart ovsdb-server',
    name: `node ${rt.node.id}, a change made while it was down`,
    ...(await settle(ctx, withProbe(ctx.baseline, present.value), since)),
  });
}

/** ovs-vswitchd killed (-9) while a change is made, then started: ports and traffic come back. */
export async function restartVswitchdTrial(
  ctx: ChaosContext,
  rt: NodeRuntime,
  present: { value: boolean },
): Promise<void> {
  await rt.ovs.killVswitchd();
  present.value = !present.value;
  await setProbe(ctx.cluster, present.value);
  await new Promise((r) => setTimeout(r, 1000));
  const since = performance.now();
  await rt.ovs.startVswitchd();
  ctx.record({
    suite: 'restart ovs-vswitchd',
    name: `node ${rt.node.id}, killed with a change in flight`,
    ...(await settle(ctx, withProbe(ctx.baseline, present.value), since)),
  });
}

/**
 * bgpd and zebra killed (-9) and started again as watchfrr would: they come back with the boot
 * configuration, and agent-netns must notice and apply its own again.
 */
export async function restartFrrTrial(
  ctx: ChaosContext,
  rt: NodeRuntime,
  present: { value: boolean },
): Promise<void> {
  const since = performance.now();
  await rt.frr.killDaemons('bgpd', 'zebra');
  await rt.frr.startDaemons('zebra', 'bgpd');
  ctx.record({
    suite: 'restart bgpd + zebra',
    name: `node ${rt.node.id}, both killed and started with the boot configuration`,
    ...(await settle(ctx, withProbe(ctx.baseline, present.value), since)),
  });
}

/**
 * The API server restarted and its watch history compacted (every watcher gets 410 when it
 * resumes); then a change: it reaches both nodes only if their watches recovered by themselves.
 */
export async function restartApiServerTrial(ctx: ChaosContext, present: { value: boolean }): Promise<void> {
  const since = performance.now();
  await ctx.cluster.cp.api.restart();
  ctx.cluster.cp.api.compact();
  present.value = !present.value;
  await setProbe(ctx.cluster, present.value);
  ctx.record({
    suite: 'restart API server + compaction',
    name: 'then a change, which must reach both nodes',
    ...(await settle(ctx, withProbe(ctx.baseline, present.value), since)),
  });
}
