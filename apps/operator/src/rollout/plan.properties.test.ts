import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyRunOptions } from '@fabrik/testkit/arbitraries';
import { budgetOf, planRollout, type AgentReport, type RolloutNode, type RolloutPlan } from './plan.js';

// A whole rollout simulated pass by pass: the planner's writes are applied to the nodes, and each
// node's agents behave as drawn (apply after some passes, fail, stall, or report with a stale
// heartbeat). Properties are checked on the nodes' state after every pass.

const OLD = '000000000000000a';
const NEW = '000000000000000b';
const PASS_MS = 1_000;
const SETTINGS = { heartbeatMaxAgeMs: 5_000, nodeTimeoutMs: 8_000, paused: false };

type Behaviour =
  { kind: 'applies'; afterPasses: number } | { kind: 'fails' } | { kind: 'stalls' } | { kind: 'stale' };

interface SimNode {
  readonly name: string;
  readonly canary: boolean;
  readonly behaviour: Behaviour;
  written: string;
  previous?: string;
  writtenAt: number;
}

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .integer({ min: 0, max: 4 })
      .map((afterPasses) => ({ kind: 'applies' as const, afterPasses })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'fails' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stalls' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stale' as const }) },
);

const fleet = fc
  .array(fc.record({ canary: fc.boolean(), behaviour }), { minLength: 1, maxLength: 30 })
  .map((drawn) =>
    drawn.map((d, i): SimNode => ({
      name: `n${String(i).padStart(2, '0')}`,
      ...d,
      written: OLD,
      writtenAt: 0,
    })),
  );

const maxUnavailable = fc.oneof(
  fc.integer({ min: 1, max: 5 }),
  fc.integer({ min: 1, max: 100 }).map((p) => `${p}%` as const),
);

/** What the node's agents report at `now` (both agents alike). */
function reportsOf(node: SimNode, now: number): Record<string, AgentReport> {
  const passesSinceMove = Math.floor((now - node.writtenAt) / PASS_MS);
  const on = (
    revision: string,
    heartbeat: number,
    configStatus: AgentReport['configStatus'] = 'provisioned',
  ) => {
    const report = { appliedRevision: revision, configStatus, heartbeat: new Date(heartbeat) };
    return { host: report, netns: report };
  };
  if (node.written !== NEW) return on(node.written, now);
  const b = node.behaviour;
  if (b.kind === 'applies') return passesSinceMove >= b.afterPasses ? on(NEW, now) : on(OLD, node.writtenAt);
  if (b.kind === 'fails') return on(OLD, now, 'invalid');
  if (b.kind === 'stalls') return on(OLD, node.writtenAt);
  return on(NEW, now - SETTINGS.heartbeatMaxAgeMs - 1); // applied, but its heartbeat is always too old
}

const isUpdated = (n: SimNode, now: number) =>
  n.written === NEW &&
  n.behaviour.kind === 'applies' &&
  now - n.writtenAt >= n.behaviour.afterPasses * PASS_MS;

/** Runs passes until the rollout completes or fails (and is rolled back); checks `each` after every pass. */
function simulate(
  nodes: SimNode[],
  settings: { maxUnavailable: number | `${number}%` },
  each: (
    plan: RolloutPlan,
    nodes: readonly SimNode[],
    now: number,
    updatedBefore: ReadonlySet<string>,
  ) => void,
): RolloutPlan {
  for (let pass = 1; ; pass++) {
    const now = pass * PASS_MS;
    const input: RolloutNode[] = nodes.map((n) => ({
      name: n.name,
      canary: n.canary,
      rendered: NEW,
      written: n.written,
      writtenAt: new Date(n.writtenAt),
      agents: reportsOf(n, now),
      ...(n.previous !== undefined && { previous: n.previous }),
    }));
    const updatedBefore = new Set(nodes.filter((n) => isUpdated(n, now)).map((n) => n.name));
    const plan = planRollout({
      nodes: input,
      failures: [],
      settings: { ...SETTINGS, ...settings },
      now: new Date(now),
    });
    for (const n of nodes) {
      if (plan.move.includes(n.name)) Object.assign(n, { previous: n.written, written: NEW, writtenAt: now });
      const back = plan.rollBack.find((r) => r.node === n.name);
      if (back) Object.assign(n, { previous: undefined, written: back.revision, writtenAt: now });
      if (plan.settle.includes(n.name)) n.previous = undefined;
    }
    each(plan, nodes, now, updatedBefore);
    if (plan.phase === 'complete' || plan.phase === 'failed' || pass > 500) return plan;
  }
}

const runs = propertyRunOptions(200);

describe('planRollout over a whole simulated rollout', () => {
  it('never has more than maxUnavailable moved nodes not updated', () => {
    fc.assert(
      fc.property(fleet, maxUnavailable, (nodes, max) => {
        const budget = budgetOf(max, nodes.length);
        simulate(nodes, { maxUnavailable: max }, (_plan, after, _now, updatedBefore) => {
          const updating = after.filter((n) => n.written === NEW && !updatedBefore.has(n.name));
          expect(updating.length).toBeLessThanOrEqual(budget);
        });
      }),
      runs,
    );
  });

  it('moves no other node while a canary is not updated', () => {
    fc.assert(
      fc.property(fleet, maxUnavailable, (nodes, max) => {
        let canariesDone = !nodes.some((n) => n.canary);
        simulate(nodes, { maxUnavailable: max }, (plan, after, _now, updatedBefore) => {
          canariesDone ||= after.filter((n) => n.canary).every((n) => updatedBefore.has(n.name));
          const moved = plan.move.map((name) => after.find((n) => n.name === name));
          if (!canariesDone) expect(moved.every((n) => n?.canary)).toBe(true);
        });
      }),
      runs,
    );
  });

  it('completes only when every node is updated; a failure leaves every node on the previous revision', () => {
    fc.assert(
      fc.property(fleet, maxUnavailable, (nodes, max) => {
        const last = simulate(nodes, { maxUnavailable: max }, () => undefined);
        const anyBad = nodes.some((n) => n.behaviour.kind !== 'applies');
        expect(last.phase).toBe(anyBad ? 'failed' : 'complete');
        if (anyBad) expect(nodes.map((n) => n.written)).toEqual(nodes.map(() => OLD));
        else expect(nodes.every((n) => n.written === NEW && n.previous === undefined)).toBe(true);
      }),
      runs,
    );
  });

  it('counts as ready exactly the nodes whose agents applied the revision with a fresh heartbeat', () => {
    fc.assert(
      fc.property(fleet, maxUnavailable, (nodes, max) => {
        simulate(nodes, { maxUnavailable: max }, (plan, _after, _now, updatedBefore) => {
          expect(plan.counts.ready).toBe(updatedBefore.size);
        });
      }),
      runs,
    );
  });
});
