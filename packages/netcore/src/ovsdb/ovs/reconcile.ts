// The side-effect half of the declarative OVS operations: one transaction for a plan, and a
// reconcile that plans from the client's monitor cache and waits until the cache shows the result.
import type { OvsdbClient } from '../client/index.js';
import { OvsdbConnectionError, OvsdbNotConvergedError } from '../errors.js';
import { planOvs, type OvsDesiredState, type OvsPlan } from './state.js';

/** Runs a plan made by {@link planOvs} as one transaction (nothing when it is empty). */
export async function applyOvsPlan(client: OvsdbClient, plan: OvsPlan): Promise<void> {
  if (plan.ops.length > 0) await client.transact(plan.ops);
}

/** Options of {@link reconcileOvs}. */
export interface ReconcileOvsOptions {
  /** How long the monitor cache may take to show the transaction's result. Default 5000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Plans `desired` against the client's monitor cache (`client.monitor()` must have run), applies
 * the plan in one transaction, and resolves once the cache shows no remaining change. Throws
 * OvsdbConnectionError while the cache is not synced (a reconnect in progress),
 * OvsdbOwnershipError / OvsdbInvalidInputError from the planner, OvsdbOperationError when the
 * transaction fails (a row changed meanwhile: plan again), OvsdbNotConvergedError when the cache
 * does not converge in time.
 */
export async function reconcileOvs(
  client: OvsdbClient,
  desired: OvsDesiredState,
  options: ReconcileOvsOptions = {},
): Promise<OvsPlan> {
  if (!client.cache.synced)
    throw new OvsdbConnectionError(client.endpoint, 'the monitor cache is not synced (reconnecting?)');
  const plan = planOvs(desired, client.cache);
  if (plan.ops.length === 0) return plan;
  await applyOvsPlan(client, plan);
  await waitForCache(client, desired, options.timeoutMs ?? 5000);
  return plan;
}

/** Resolves once the cache plans nothing more for `desired`; rejects after `timeoutMs`. */
async function waitForCache(client: OvsdbClient, desired: OvsDesiredState, timeoutMs: number): Promise<void> {
  const remaining = () => (client.cache.synced ? planOvs(desired, client.cache).changes : undefined);
  if (remaining()?.length === 0) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      const left = remaining();
      reject(
        new OvsdbNotConvergedError(
          left === undefined
            ? ['(the monitor cache is not synced)']
            : left.map((c) => `${c.action} ${describe(c)}`),
          timeoutMs,
        ),
      );
    }, timeoutMs);
    const unsubscribe = client.onCacheUpdate(() => {
      let left: ReturnType<typeof remaining>;
      try {
        left = remaining();
      } catch (e) {
        // The database changed under us so that the desired state no longer plans (a foreign
        // row took a name): the next reconcile reports it.
        clearTimeout(timer);
        unsubscribe();
        reject(e as Error);
        return;
      }
      if (left?.length === 0) {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      }
    });
  });
}

const describe = (c: OvsPlan['changes'][number]): string =>
  'port' in c ? `${c.bridge} ${c.port}` : c.bridge;
