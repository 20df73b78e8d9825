import type { AppliedObjects } from '../cluster/explain.js';
import { API_PATHS } from '../cluster/cluster.js';
import type { LabPod } from '../cluster/pods.js';
import type { ChaosContext } from './faults.js';

// Churn: Layer2Networks and Pod attachments created and deleted in waves. After each wave the
// nodes must hold exactly what the objects explain; at the end, nothing but the lab's intent.

export interface ChurnPlan {
  readonly networks: number;
  readonly pods: number;
  readonly waves: number;
  /** Pod attachments run at once (libcni runtimes attach Pods concurrently too). */
  readonly podConcurrency: number;
}

const churnNetwork = (i: number) => ({
  apiVersion: 'network.fabrik.dev/v1alpha1',
  kind: 'Layer2Network',
  metadata: { name: `churn-${i}` },
  spec: { vni: 3000 + i, vlan: 1000 + i },
});

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Splits 0..n-1 into `waves` contiguous slices. */
const slices = (n: number, waves: number): number[][] =>
  Array.from({ length: waves }, (_, w) =>
    Array.from({ length: n }, (_, i) => i).slice(
      Math.floor((w * n) / waves),
      Math.floor(((w + 1) * n) / waves),
    ),
  );

/** Attempts of one Pod's sandbox before the churn fails, and the wait before the next one. */
const POD_ATTEMPTS = 5;
const POD_RETRY_DELAY_MS = 2000;

/**
 * Creates a Pod as kubelet does when its sandbox fails: a failed CNI ADD (its attachments already
 * deleted, netns and Pod object gone) is tried again after a pause. A wave puts 40 new OVS
 * internal ports on each node's ovs-vswitchd at once, on the lab kernel's one CPU with everything
 * else: a Pod's port can then wait longer for its ofport than the node's `ofportTimeoutMs` (10 s),
 * and ADD answers "try again later" (code 11). Resolves with the Pod and the errors retried.
 */
async function runPodAsKubelet(
  cluster: ChaosContext['cluster'],
  node: ChaosContext['cluster']['nodes'][number],
  name: string,
  nads: readonly string[],
): Promise<{ pod: LabPod; retried: string[] }> {
  const retried: string[] = [];
  for (;;) {
    try {
      return { pod: await cluster.runPod(node, name, nads), retried };
    } catch (e) {
      if (retried.length + 1 >= POD_ATTEMPTS) throw e;
      retried.push(`${name}: ${(e as Error).message.split(': ').slice(-2).join(': ')}`);
      await new Promise((r) => setTimeout(r, POD_RETRY_DELAY_MS));
    }
  }
}

/** Runs the churn; resolves with what the report adds to the trials' summary (the ADDs retried). */
export async function churnTrials(ctx: ChaosContext, plan: ChurnPlan): Promise<string> {
  const { cluster } = ctx;
  const kube = cluster.cp.kube;
  const networkWaves = slices(plan.networks, plan.waves);
  const podWaves = slices(plan.pods, plan.waves);
  const created: ReturnType<typeof churnNetwork>[] = [];
  const podsOfWave: LabPod[][] = [];
  const retried: string[] = [];
  const objects = (): AppliedObjects => ({ ...ctx.baseline, layer2s: [...ctx.baseline.layer2s, ...created] });

  const settle = async (name: string, since: number) => {
    const result = await cluster.converge(objects(), ctx.convergeTimeoutMs);
    ctx.record({
      suite: 'churn',
      name,
      converged: result.converged,
      leaked: result.audit.leaked.length,
      recoverMs: performance.now() - since,
      ...(result.converged
        ? {}
        : {
            detail: [...result.audit.leaked, ...result.audit.missing]
              .slice(0, 10)
              .map((f) => `${f.area}: ${f.what}`)
              .join('\n'),
          }),
    });
  };

  for (const [w, indexes] of networkWaves.entries()) {
    const since = performance.now();
    const wave = indexes.map(churnNetwork);
    await eachLimited(wave, 8, (l2) => kube.create(API_PATHS.layer2s, l2));
    created.push(...wave);
    const runs = await eachLimited(podWaves[w]!, plan.podConcurrency, (i) =>
      runPodAsKubelet(cluster, cluster.nodes[i % cluster.nodes.length]!, `churn-${i}`, [
        i % 2 === 0 ? 'vlan100' : 'vlan200',
      ]),
    );
    const pods = runs.map((r) => r.pod);
    retried.push(...runs.flatMap((r) => r.retried));
    podsOfWave.push(pods);
    await settle(
      `wave ${w + 1}/${plan.waves} up: +${wave.length} Layer2Networks, +${pods.length} Pods (${created.length} churn networks)`,
      since,
    );
  }
  for (const [w, indexes] of [...networkWaves.entries()].reverse()) {
    const since = performance.now();
    await eachLimited(podsOfWave[w]!, plan.podConcurrency, (pod) => cluster.removePod(pod));
    const names = new Set(indexes.map((i) => churnNetwork(i).metadata.name));
    await eachLimited([...names], 8, (name) => kube.delete(`${API_PATHS.layer2s}/${name}`));
    created.splice(0, created.length, ...created.filter((l) => !names.has(l.metadata.name)));
    await settle(
      `wave ${w + 1}/${plan.waves} down: -${names.size} Layer2Networks, -${podsOfWave[w]!.length} Pods (${created.length} left)`,
      since,
    );
  }
  return retried.length === 0
    ? 'no ADD retried'
    : `${retried.length} ADDs retried as kubelet retries a sandbox:\n${retried.join('\n')}`;
}
