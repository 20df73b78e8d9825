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

export async function churnTrials(ctx: ChaosContext, plan: ChurnPlan): Promise<void> {
  const { cluster } = ctx;
  const kube = cluster.cp.kube;
  const networkWaves = slices(plan.networks, plan.waves);
  const podWaves = slices(plan.pods, plan.waves);
  const created: ReturnType<typeof churnNetwork>[] = [];
  const podsOfWave: LabPod[][] = [];
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
    const pods = await eachLimited(podWaves[w]!, plan.podConcurrency, (i) =>
      cluster.runPod(cluster.nodes[i % cluster.nodes.length]!, `churn-${i}`, [
        i % 2 === 0 ? 'vlan100' : 'vlan200',
      ]),
    );
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
}
