import { formatAudit } from '@fabrik/lab';
import type { LabReport } from '../report.js';
import { StepFailedError } from '../report.js';
import { startLabCluster, type LabCluster } from '../cluster/cluster.js';
import type { LabPod } from '../cluster/pods.js';
import { waitForProvisioned } from '../cluster/scenario.js';
import { badInputTrials } from './bad-input.js';
import { churnTrials, type ChurnPlan } from './churn.js';
import {
  killAgentTrials,
  measureChangeWindow,
  restartApiServerTrial,
  restartFrrTrial,
  restartOvsdbTrial,
  restartVswitchdTrial,
  setProbe,
  type ChaosContext,
} from './faults.js';
import { resultLine, seededRandom, summarize, type Trial } from './trials.js';

// `npm run test:chaos`: the cluster of `npm run lab`, broken on purpose. Every trial ends with the
// audit of both nodes against the objects (nothing leaked, nothing missing) and traffic between
// two Pods; the last line sums them up: `RESULT chaos trials=.. converged=.. leaked=.. recover_p95_ms=..`.

export interface ChaosPlan {
  /** Agent kills and daemon restarts (false: only churn and bad input). */
  readonly faults: boolean;
  /** kill -9 trials per agent kind (alternating nodes). */
  readonly killsPerAgent: number;
  readonly churn?: ChurnPlan;
  readonly badInput: boolean;
  readonly seed: number;
  readonly convergeTimeoutMs: number;
}

export const FULL_PLAN: ChaosPlan = {
  faults: true,
  killsPerAgent: 20,
  churn: { networks: 200, pods: 50, waves: 5, podConcurrency: 4 },
  badInput: true,
  seed: 17,
  convergeTimeoutMs: 90_000,
};

/** A run that fits `npm test`'s lab stage: every fault once or twice, a small churn. */
export const REDUCED_PLAN: ChaosPlan = {
  faults: true,
  killsPerAgent: 2,
  churn: { networks: 20, pods: 6, waves: 2, podConcurrency: 2 },
  badInput: false,
  seed: 17,
  convergeTimeoutMs: 90_000,
};

/** Only the bad-input matrix (FABRIK_CHAOS=bad-input). */
export const BAD_INPUT_PLAN: ChaosPlan = { ...FULL_PLAN, faults: false, churn: undefined };

/** Only the full plan's churn (FABRIK_CHAOS=churn). */
export const CHURN_PLAN: ChaosPlan = { ...FULL_PLAN, faults: false, badInput: false };

/** Runs the suite into `report` (one check per trial group) and returns every trial. */
export async function runChaos(report: LabReport, plan: ChaosPlan): Promise<Trial[]> {
  const trials: Trial[] = [];
  let cluster: LabCluster | undefined;
  try {
    cluster = await startLabCluster({ prefix: 'cx-', phase: (name, fn) => report.step(name, fn) });
    const c = cluster;
    const baseline = await c.appliedObjects();
    await report.step('agents converge: both nodes provisioned, audit clean', () =>
      waitForProvisioned(c, baseline),
    );
    const probePods = (await report.step('probe Pods on VLAN 100, one per node', async () => [
      await c.runPod(c.nodes[0]!, 'probe-a', ['vlan100']),
      await c.runPod(c.nodes[1]!, 'probe-b', ['vlan100']),
    ])) as [LabPod, LabPod];
    const ctx: ChaosContext = {
      cluster: c,
      baseline,
      probePods,
      random: seededRandom(plan.seed),
      convergeTimeoutMs: plan.convergeTimeoutMs,
      record: (t) => trials.push(t),
    };
    const present = { value: false };
    // `fn` may resolve with more to say than the trials' summary (the churn's retried ADDs).
    const group = async (suite: string, fn: () => Promise<string | void>) => {
      const from = trials.length;
      await report.check(suite, async () => {
        const more = await fn();
        const mine = trials.slice(from);
        const bad = mine.filter((t) => !t.converged || t.leaked > 0);
        if (bad.length)
          throw new Error(bad.map((t) => `${t.suite} ${t.name}: ${t.detail ?? 'not converged'}`).join('\n'));
        const s = summarize(mine);
        return `${s.trials} trials converged, nothing leaked, recovery p95 ${s.recoverP95Ms} ms${more ? `; ${more}` : ''}`;
      });
    };
    if (plan.faults) {
      const windowMs = await report.step('a change without faults (the window kills land in)', async () =>
        Math.round(await measureChangeWindow(ctx)),
      );
      report.note(`${windowMs} ms per change`);
      for (const kind of ['netns', 'host'] as const)
        await group(
          `kill -9 agent-${kind} at random points of a change, ${plan.killsPerAgent} times`,
          async () => {
            for (let i = 0; i < plan.killsPerAgent; i++)
              await killAgentTrials(ctx, c.nodes[i % c.nodes.length]!, kind, 1, windowMs, present);
          },
        );
      await group('ovsdb-server restarted, ovs-vswitchd killed and restarted (each node)', async () => {
        for (const rt of c.nodes) {
          await restartOvsdbTrial(ctx, rt, present);
          await restartVswitchdTrial(ctx, rt, present);
        }
      });
      await group('bgpd and zebra killed and brought back (each node)', async () => {
        for (const rt of c.nodes) await restartFrrTrial(ctx, rt, present);
      });
      await group('API server restarted, its watch history compacted (410 for every watcher)', () =>
        restartApiServerTrial(ctx, present),
      );
      if (present.value) {
        // Back to the baseline before the churn, which audits against it.
        await setProbe(c, false);
        present.value = false;
      }
    }
    const churn = plan.churn;
    if (churn)
      await group(
        `churn: ${churn.networks} Layer2Networks and ${churn.pods} Pod attachments in ${churn.waves} waves`,
        () => churnTrials(ctx, churn),
      );
    if (plan.badInput)
      await group('bad input: every examples/invalid object refused or reported, nodes untouched', () =>
        badInputTrials(ctx),
      );
    await report.check('at the end the nodes hold exactly what the objects explain', async () => {
      const result = await c.converge(baseline, plan.convergeTimeoutMs);
      if (!result.converged) throw new Error(formatAudit(result.audit));
      return 'audit clean';
    });
  } catch (e) {
    if (!(e instanceof StepFailedError)) throw e;
  } finally {
    await cluster?.destroy();
  }
  return trials;
}

/** The suite's verdict line. */
export const chaosResult = (trials: readonly Trial[]): string => resultLine(summarize(trials));
