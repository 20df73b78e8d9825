import { changedKeys, withChanges, type NodeObjects } from './node-objects.js';

// One object that the kernel or FRR refuses (a Layer2Network with an MTU above the trunk's) must
// not hold back the others. When the whole desired state fails, its changes against what the node
// runs are applied in halves, and the halves of a half that fails, until each change that fails
// on its own is found: it keeps its last applied version (or stays away), every other change is
// applied. One apply when nothing fails; about 2·k·log2(n) more for k failing changes among n.

export interface ObjectFailure {
  /** `Layer2Network/web` */
  readonly key: string;
  readonly error: unknown;
}

export interface IsolatedApply<R> {
  /** What the node runs now: `to`'s changes that applied, the last applied version of the others. */
  readonly applied: NodeObjects;
  /** The report of the apply that left the node in `applied`. */
  readonly report: R;
  /** Each change that failed on its own, with its error (empty when `to` applied whole). */
  readonly failures: readonly ObjectFailure[];
}

/**
 * Applies `to` (the node runs `from`). `attempt` applies a set of objects whole and throws when
 * that fails; an error `isolable` refuses is not the objects' fault (FRR unreachable, a stop): it
 * ends the apply as it is thrown. When the node cannot be brought back to a state that applies,
 * the last error is thrown.
 */
export async function applyObjectByObject<R>(
  from: NodeObjects,
  to: NodeObjects,
  attempt: (objects: NodeObjects) => Promise<R>,
  isolable: (e: unknown) => boolean,
): Promise<IsolatedApply<R>> {
  let current = from;
  let report: R | undefined;
  let lastFailed = false;
  const failures: ObjectFailure[] = [];

  async function tryChanges(keys: readonly string[]): Promise<void> {
    const candidate = withChanges(current, to, keys);
    try {
      report = await attempt(candidate);
      current = candidate;
      lastFailed = false;
    } catch (e) {
      if (!isolable(e) || keys.length === 0) throw e;
      lastFailed = true;
      if (keys.length === 1) {
        failures.push({ key: keys[0]!, error: e });
        return;
      }
      const half = Math.ceil(keys.length / 2);
      await tryChanges(keys.slice(0, half));
      await tryChanges(keys.slice(half));
    }
  }

  await tryChanges(changedKeys(from, to));
  // The last attempt failed: the node is brought back to what applied.
  if (lastFailed || report === undefined) report = await attempt(current);
  return { applied: current, report, failures };
}
