import { InvalidArgumentError } from './errors.js';
import { labelKeyProblem } from '@fabrik/api';

// Conditions with the semantics of apimachinery's meta.SetStatusCondition: lastTransitionTime moves
// only when the status changes; reason, message and observedGeneration are updated in place.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** metav1.Condition, as custom resources (NodeNetworkStatus) carry it. */
export interface Condition {
  readonly type: string;
  readonly status: ConditionStatus;
  /** CamelCase, machine-readable (`FrrReloadFailed`). */
  readonly reason: string;
  readonly message: string;
  /** The `metadata.generation` the condition was computed from. */
  readonly observedGeneration?: number;
  /** RFC 3339 with seconds precision, as the API server stores it. */
  readonly lastTransitionTime: string;
}

/** A condition to set: lastTransitionTime is computed. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

export interface SetConditionResult {
  readonly conditions: Condition[];
  /** Anything differs from the list given (a write is due). */
  readonly changed: boolean;
  /** The condition is new or its status changed (an Event is due). */
  readonly transitioned: boolean;
}

const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/**
 * The time as the API server stores metav1.Time: RFC 3339 in UTC with whole seconds. Writing
 * milliseconds would make every later comparison with what the server returns differ.
 */
export function formatKubeTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Checks a condition as metav1.Condition's validation does; throws naming the field. */
export function validateCondition(cond: ConditionInput, field = 'condition'): void {
  const typeProblem = labelKeyProblem(cond.type);
  if (typeProblem)
    throw new InvalidArgumentError(`${field}.type`, `must be a qualified name: ${typeProblem}`);
  if (!['True', 'False', 'Unknown'].includes(cond.status)) {
    throw new InvalidArgumentError(
      `${field}.status`,
      `must be True, False or Unknown, not ${JSON.stringify(cond.status)}`,
    );
  }
  if (cond.reason.length === 0 || cond.reason.length > 1024 || !REASON.test(cond.reason)) {
    throw new InvalidArgumentError(
      `${field}.reason`,
      `must be CamelCase (letters, digits, "_", ",", ":"; 1-1024 characters), not ${JSON.stringify(cond.reason)}`,
    );
  }
  if (cond.message.length > 32768)
    throw new InvalidArgumentError(`${field}.message`, 'must be at most 32768 characters');
  if (
    cond.observedGeneration !== undefined &&
    !(Number.isInteger(cond.observedGeneration) && cond.observedGeneration >= 0)
  ) {
    throw new InvalidArgumentError(`${field}.observedGeneration`, 'must be a non-negative integer');
  }
}

/** The condition of a type, if the list has it. */
export function findCondition<C extends { readonly type: string }>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Sets `cond` in `conditions` (pure: returns a new list, order kept, new types appended), with
 * SetStatusCondition's rules: a new condition, or one whose status changed, gets `now` as its
 * lastTransitionTime; otherwise the old lastTransitionTime stays and only reason, message and
 * observedGeneration are updated.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  cond: ConditionInput,
  now: Date,
): SetConditionResult {
  validateCondition(cond);
  const list = conditions ?? [];
  const existing = findCondition(list, cond.type);
  const next: Condition = {
    type: cond.type,
    status: cond.status,
    reason: cond.reason,
    message: cond.message,
    ...(cond.observedGeneration !== undefined && { observedGeneration: cond.observedGeneration }),
    lastTransitionTime:
      existing && existing.status === cond.status ? existing.lastTransitionTime : formatKubeTime(now),
  };
  if (!existing) return { conditions: [...list, next], changed: true, transitioned: true };
  const changed =
    existing.status !== next.status ||
    existing.reason !== next.reason ||
    existing.message !== next.message ||
    existing.observedGeneration !== next.observedGeneration;
  return {
    conditions: changed ? list.map((c) => (c.type === cond.type ? next : c)) : [...list],
    changed,
    transitioned: existing.status !== next.status,
  };
}

/** Removes the condition of a type (pure); `changed` tells whether it was there. */
export function removeCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): { conditions: Condition[]; changed: boolean } {
  const list = conditions ?? [];
  const kept = list.filter((c) => c.type !== type);
  return { conditions: kept, changed: kept.length !== list.length };
}
