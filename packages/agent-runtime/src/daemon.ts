import type { Logger } from 'pino';
import { startEndpoints, type HealthCheck, type Readiness } from './http.js';
import type { IntentSnapshot, IntentSource } from './intent.js';
import type { AgentMetrics } from './metrics.js';
import { createWorkQueue, type WorkQueue } from './work-queue.js';

/** What one reconcile gets: everything it needs is read afresh (level-triggered). */
export interface ReconcileRequest {
  /** Counts reconciles of this process, from 1 (in every log line of the run). */
  readonly id: number;
  /** Every reason the run was asked for since the previous one: `intent file changed`, `resync`, `link vx100 deleted`. */
  readonly trigger: readonly string[];
  /** What the source holds now. */
  readonly snapshot: IntentSnapshot;
  /** Aborted when the daemon stops: do not start side effects after it fired. */
  readonly signal: AbortSignal;
}

/** `success`; `invalid`: some input refused (reported), everything else applied; `error`: retried with backoff. */
export type ReconcileResult = 'success' | 'invalid' | 'error';

export interface ReconcileOutcome {
  readonly result: ReconcileResult;
  /** Numbers for the reconcile's log line: `{ netlinkOps: 3, frrAdded: 2, frrRemoved: 0 }`. */
  readonly counts?: Readonly<Record<string, number>>;
  /** Why the result is not `success` (logged; a readiness reason after `error`). */
  readonly message?: string;
  /**
   * Retry with backoff. Default: when the result is `error`. An error that the same input will
   * cause again (a configuration FRR refuses) is better left to the next change or resync.
   */
  readonly retry?: boolean;
  /**
   * When the node was last observed as this reconcile left it (ms since the epoch): every change
   * made before is covered by the reconcile (its own changes, or ones it saw), so the observed
   * changes stamped before it do not call for another. Default: when the reconcile started (all it
   * could have read).
   */
  readonly verifiedAt?: number;
}

/**
 * Asks for a reconcile. `changedAt` (ms since the epoch) marks the request as a change the agent
 * observed (a kernel or OVSDB event) that happened at that time: `ip -ts`'s stamp, or when the event
 * was received. Such a change made before the last reconcile's `verifiedAt` is covered by it (the
 * agent's own changes, typically) and ignored; one that arrives while a reconcile runs is held
 * until it ends and then judged the same way, and, when it comes with a {@link Recheck}, judged
 * again against what the agent expects after that reconcile. Without `changedAt` (the intent
 * source, a resync) the request always counts.
 */
export type Enqueue = (reason: string, changedAt?: number, recheck?: Recheck) => void;

/**
 * How to judge an observed change again once the reconcile that ran while it arrived has ended:
 * an apply that deletes a link reports "deleted" while the agent still expects the link, and only
 * the expectation after the apply says whether that was its own doing. Of the held changes with
 * the same `key` (one object) only the last is judged: it tells the object's state at the end.
 */
export interface Recheck {
  /** The object the change concerns (`link vx2101`). */
  readonly key: string;
  /** Why the change still calls for a reconcile, or undefined when the agent now expects it. */
  readonly reason: () => string | undefined;
}

/** Another cause of reconciles besides the source (a kernel event monitor, ...). */
export interface Trigger {
  start(enqueue: Enqueue): Promise<void> | void;
  stop(): Promise<void> | void;
}

export interface DaemonOptions {
  readonly logger: Logger;
  readonly metrics: AgentMetrics;
  readonly source: IntentSource;
  readonly reconcile: (request: ReconcileRequest) => Promise<ReconcileOutcome>;
  /**
   * Runs once before the source starts (for example: apply the last good state, so the node works
   * while the API server is unreachable). A failure is logged; the daemon goes on.
   */
  readonly beforeSync?: (signal: AbortSignal) => Promise<void>;
  readonly triggers?: readonly Trigger[];
  /** A full reconcile at least this often, also without any change. Default: 300 s. */
  readonly resyncIntervalMs?: number;
  readonly metricsAddress?: string;
  readonly healthAddress?: string;
  /** `/healthz`: the backends the agent needs (FRR, OVSDB, ...). */
  readonly healthChecks?: Readonly<Record<string, HealthCheck>>;
  /** Backoff of reconciles that ended in `error`. Default: 200 ms doubling up to 30 s. */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
}

export interface Daemon {
  /** Asks for a reconcile (coalesced with others that arrive before it starts). */
  enqueue: Enqueue;
  readiness(): Readiness;
  /** The HTTP endpoints' bound addresses. */
  readonly addresses: readonly string[];
  /** Resolves when no reconcile is running, waiting or scheduled for a retry. */
  idle(): Promise<void>;
  /**
   * Stops: no new reconcile starts, the running one is told (its signal) and awaited, then the
   * triggers, the source and the endpoints stop. The data plane is left as it is.
   */
  stop(): Promise<void>;
}

const KEY = 'node'; // an agent reconciles its whole node: one key, level-triggered

/** Starts an agent's loop: endpoints, last good, source, triggers, periodic resync, the work queue. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { logger, metrics, source } = options;
  const abort = new AbortController();
  let nextId = 1;
  let last: ReconcileOutcome | undefined;
  let stopping: Promise<void> | undefined;
  // Observed changes made before `quietBefore` (the last reconcile's verifiedAt) are covered by it;
  // those that arrive while a reconcile runs are held until it ends.
  let quietBefore = 0;
  let held: { reason: string; changedAt: number; recheck?: Recheck }[] | undefined;

  const readiness = (): Readiness => {
    const reasons: string[] = [];
    if (!source.hasSynced()) reasons.push(`intent source not synced (${source.description})`);
    if (last === undefined) reasons.push('no reconcile has finished yet');
    else if (last.result === 'error')
      reasons.push(`last reconcile failed: ${last.message ?? 'unknown error'}`);
    return { ready: reasons.length === 0, reasons };
  };

  async function reconcileOnce(trigger: readonly string[]): Promise<'done' | 'retry'> {
    if (!source.hasSynced()) {
      // Nothing is planned from a source that has not answered (it would delete what it does
      // not list yet); the source's first answer enqueues again.
      logger.debug({ trigger: trigger.join(', ') }, 'waiting for the intent source');
      return 'done';
    }
    const id = nextId++;
    const start = performance.now();
    let outcome: ReconcileOutcome;
    const startedAt = Date.now();
    held = [];
    // The worker has taken the key off the queue: what waits now is what arrived since.
    metrics.queueDepth.set(queue.depth);
    metrics.reconcileActive.set(1);
    try {
      outcome = await options.reconcile({ id, trigger, snapshot: source.snapshot(), signal: abort.signal });
    } catch (e) {
      outcome = { result: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    quietAfter(outcome.verifiedAt ?? startedAt);
    metrics.reconcileActive.set(0);
    const seconds = (performance.now() - start) / 1000;
    last = outcome;
    metrics.reconcileDuration.observe({ result: outcome.result }, seconds);
    metrics.reconcilesTotal.inc({ result: outcome.result });
    const line = {
      reconcile: id,
      trigger: trigger.join(', '),
      durationMs: Math.round(seconds * 1000),
      result: outcome.result,
      ...outcome.counts,
      ...(outcome.message === undefined ? {} : { message: outcome.message }),
    };
    if (outcome.result === 'error') logger.warn(line, 'reconcile failed');
    else logger.info(line, 'reconciled');
    return (outcome.retry ?? outcome.result === 'error') ? 'retry' : 'done';
  }

  const queue: WorkQueue = createWorkQueue({
    process: (_key, trigger) => reconcileOnce(trigger),
    backoff: options.backoff,
    onError: (_key, e) => logger.error({ err: e }, 'reconcile threw'),
  });
  const ownChangesIgnored = metrics.counter(
    'own_changes_ignored_total',
    'Observed changes (kernel, OVSDB events) ignored: made before the last reconcile verified the node (its own, mostly).',
  );
  const add = (reason: string) => {
    queue.add(KEY, reason);
    metrics.queueDepth.set(queue.depth);
  };
  const ignore = (reason: string, why: string) => {
    ownChangesIgnored.inc();
    logger.debug({ change: reason }, `ignored: ${why}`);
  };
  const enqueue: Enqueue = (reason, changedAt, recheck) => {
    if (changedAt === undefined) add(reason);
    else if (held) held.push({ reason, changedAt, ...(recheck ? { recheck } : {}) });
    else if (changedAt < quietBefore) ignore(reason, 'covered by the last reconcile');
    else add(reason);
  };
  /** A reconcile ended, having verified the node at `at`: judge what was held meanwhile. */
  function quietAfter(at: number): void {
    quietBefore = at;
    const judged = held ?? [];
    held = undefined;
    const lastOfKey = new Map<string, number>();
    judged.forEach((h, i) => h.recheck && lastOfKey.set(h.recheck.key, i));
    judged.forEach((h, i) => {
      if (!h.recheck) return enqueue(h.reason, h.changedAt);
      if (lastOfKey.get(h.recheck.key) !== i)
        return ignore(h.reason, `a later change of ${h.recheck.key} followed`);
      const reason = h.recheck.reason();
      if (reason === undefined) ignore(h.reason, 'expected after the last reconcile');
      else enqueue(reason, h.changedAt);
    });
  }

  const endpoints = await startEndpoints({
    metricsAddress: options.metricsAddress,
    healthAddress: options.healthAddress,
    registry: metrics.registry,
    healthChecks: options.healthChecks ?? {},
    readiness,
  });
  if (endpoints.addresses.length > 0)
    logger.info({ addresses: endpoints.addresses }, 'serving metrics and health');

  const started: Trigger[] = [];
  let resync: NodeJS.Timeout | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      abort.abort();
      if (resync) clearInterval(resync);
      await queue.stop();
      for (const t of started)
        await Promise.resolve(t.stop()).catch((e: unknown) =>
          logger.warn({ err: e }, 'stopping a trigger failed'),
        );
      await source.stop();
      await endpoints.close();
      logger.info('stopped; the data plane is left as it is');
    })());

  try {
    if (options.beforeSync) {
      const t0 = performance.now();
      await options.beforeSync(abort.signal).then(
        () => logger.info({ durationMs: Math.round(performance.now() - t0) }, 'last good state applied'),
        (e: unknown) => logger.warn({ err: e }, 'applying the last good state failed'),
      );
    }
    await source.start((reason) => enqueue(reason));
    for (const t of options.triggers ?? []) {
      await t.start(enqueue);
      started.push(t);
    }
    resync = setInterval(() => enqueue('resync'), options.resyncIntervalMs ?? 300_000);
    enqueue('start');
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    enqueue,
    readiness,
    addresses: endpoints.addresses,
    idle: () => queue.idle(),
    stop,
  };
}

/**
 * Runs a daemon until SIGTERM or SIGINT, then stops it (the data plane stays up) and resolves
 * with exit code 0. A second signal while stopping exits at once with 1. SIGHUP asks for a
 * reconcile now, as the periodic resync does: an operator's (or a test's) "check everything
 * again", answered by the reconcile's log line (trigger `SIGHUP`).
 */
export async function runDaemon(options: DaemonOptions): Promise<number> {
  const daemon = await startDaemon(options);
  const onHangup = () => daemon.enqueue('SIGHUP');
  process.on('SIGHUP', onHangup);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      options.logger.info({ signal }, 'stopping');
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGHUP', onHangup);
      const force = (again: NodeJS.Signals) => {
        options.logger.warn({ signal: again }, 'second signal: exiting without waiting');
        process.exit(1);
      };
      process.once('SIGTERM', force);
      process.once('SIGINT', force);
      void daemon.stop().then(resolve, (e: unknown) => {
        options.logger.error({ err: e }, 'stopping failed');
        resolve();
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  return 0;
}
