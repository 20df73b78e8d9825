import { ROLLOUT_RETRY_ANNOTATION, type NetworkRollout, type NetworkRolloutStatus } from '@fabrik/api';
import type { RolloutFailure, RolloutInput, RolloutPlan } from './plan.js';

// The NetworkRollout's side of a pass (pure): the failures recorded in its status (cleared by a
// new value of the retry annotation), the status a plan gives, and when to look again without
// any event (a moved node's timeout ends).

const PHASES = {
  progressing: 'Progressing',
  complete: 'Complete',
  failed: 'Failed',
  paused: 'Paused',
} as const;

const retryAsked = (rollout: NetworkRollout | undefined): string | undefined => {
  const value = rollout?.metadata.annotations?.[ROLLOUT_RETRY_ANNOTATION];
  return value !== undefined && value !== rollout?.status?.retried ? value : undefined;
};

/** The failures in force: those recorded, unless a retry was asked since. */
export function failuresOf(rollout: NetworkRollout | undefined): RolloutFailure[] {
  if (retryAsked(rollout) !== undefined) return [];
  return (rollout?.status?.failures ?? []).map((f) => ({ ...f, objects: f.objects ?? [] }));
}

/** The status to write after a plan; a failure keeps the time it was first recorded. */
export function rolloutStatusOf(
  plan: RolloutPlan,
  rollout: NetworkRollout | undefined,
  now: Date,
): NetworkRolloutStatus {
  const recorded = rollout?.status?.failures ?? [];
  const retried = retryAsked(rollout) ?? rollout?.status?.retried;
  return {
    phase: PHASES[plan.phase],
    ...plan.counts,
    failures: plan.failures.map((f) => ({
      node: f.node,
      revision: f.revision,
      why: f.why,
      ...(f.objects.length > 0 && { objects: [...f.objects] }),
      time: recorded.find((r) => r.node === f.node && r.revision === f.revision)?.time ?? now.toISOString(),
    })),
    ...(retried !== undefined && { retried }),
  };
}

/** How long until the earliest moved node's timeout ends; undefined when no node is waited for. */
export function nextCheckInMs(plan: RolloutPlan, input: RolloutInput): number | undefined {
  if (plan.phase !== 'progressing' && plan.phase !== 'paused') return undefined;
  let next: number | undefined;
  for (const node of input.nodes) {
    if (node.previous === undefined || node.written !== node.rendered || node.writtenAt === undefined)
      continue;
    const left = node.writtenAt.getTime() + input.settings.nodeTimeoutMs - input.now.getTime();
    next = Math.min(next ?? Infinity, Math.max(0, left));
  }
  return next;
}
