import type { KubeConfig } from '@kubernetes/client-node';
import { createWorkQueue, type Logger } from '@fabrik/agent-runtime';
import {
  API_VERSION,
  NETWORK_ROLLOUT_NAME,
  NETWORK_ROLLOUT_RESOURCE,
  NODE_NETWORK_CONFIG_RESOURCE,
  NetworkRollout,
  type Condition,
} from '@fabrik/api';
import {
  createEventRecorder,
  customObjects,
  isAlreadyExistsError,
  isNotFoundError,
  type EventRecorder,
} from '@fabrik/kube';
import { setCondition } from '@fabrik/kube/labels';
import type { OperatorConfig } from './config.js';
import { startClusterInformers, type ClusterInformers, type ExistingConfig } from './cluster-informers.js';
import { identityCondition } from './identity/conditions.js';
import { nodeNetworkConfigOf, renderCluster, type RenderedNode } from './render.js';
import type { OperatorMetrics } from './metrics.js';
import { nodeWritesOf, rolloutNodeOf, type NodeWrite } from './rollout/node-writes.js';
import { planRollout, type RolloutPlan } from './rollout/plan.js';
import { failuresOf, nextCheckInMs, rolloutStatusOf } from './rollout/status.js';

// The operator's loop: every change of a Node, a network object, a NodeNetworkConfig or the
// NetworkRollout marks the cluster dirty; one pass (debounced, one at a time) renders every node,
// plans the rollout (rollout/plan.ts) and writes what it allows: the spec by server-side apply,
// the NetworkRollout's status, the IdentityAllocated condition, an Event on the Node when a
// problem appears, and deletes the NodeNetworkConfig of a Node gone longer than the grace period.

/** The field manager of every write: the spec of a NodeNetworkConfig is the operator's alone. */
export const FIELD_MANAGER = 'fabrik-operator';
const CLUSTER_KEY = 'cluster';
/** Writes in flight at once in a pass (200 nodes' first pass is 200 applies). */
const WRITE_CONCURRENCY = 16;

export interface ControllerOptions {
  readonly kc: KubeConfig;
  readonly config: OperatorConfig;
  readonly logger: Logger;
  /** `reportingInstance` of Events: this replica. */
  readonly instance: string;
  readonly clock?: () => Date;
  readonly metrics?: OperatorMetrics;
}

export interface PassResult {
  readonly nodes: number;
  readonly applied: number;
  readonly deleted: number;
  /** The rollout's phase after the pass. */
  readonly rollout: RolloutPlan['phase'];
  readonly problems: number;
  readonly durationMs: number;
}

export interface Controller {
  /** Resolves when the informers have synced and no pass is pending or running. */
  idle(): Promise<void>;
  /** The last pass's counts. */
  lastPass(): PassResult | undefined;
  /** Why the last pass failed; undefined after a pass that succeeded. */
  lastError(): unknown;
  hasSynced(): boolean;
  stop(): Promise<void>;
}

async function inBatches<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

export function startController(options: ControllerOptions): Controller {
  const { kc, config, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const configsApi = customObjects(
    kc,
    NODE_NETWORK_CONFIG_RESOURCE,
    (raw: unknown) => raw as ExistingConfig,
    {
      fieldManager: FIELD_MANAGER,
    },
  );
  const events: EventRecorder = createEventRecorder({
    kc,
    component: FIELD_MANAGER,
    host: options.instance,
    clock,
    log: logger,
  });
  /** When each NodeNetworkConfig without a Node was first seen so (this replica's memory). */
  const goneSince = new Map<string, number>();
  /** The identity problems last reported per node: an Event goes out for new ones only. */
  const reported = new Map<string, string>();
  let last: PassResult | undefined;
  let lastError: unknown;
  const metrics = options.metrics;
  /** Wakes a pass when the earliest grace period ends (not a queue entry: idle() does not wait for it). */
  let graceTimer: NodeJS.Timeout | undefined;
  /** Wakes a pass when a moved node's timeout ends or a report turns stale. */
  let rolloutTimer: NodeJS.Timeout | undefined;
  /**
   * The objects this replica wrote, as the server returned them, until the informer has them: a
   * pass that ran on a cache without its own last writes would move the same nodes again (and
   * count them as not moved against maxUnavailable).
   */
  const written = new Map<string, ExistingConfig>();
  const configOf = (name: string): ExistingConfig | undefined => {
    const cached = informers.configs.get(name);
    const own = written.get(name);
    if (own === undefined) return cached;
    if (
      cached !== undefined &&
      Number(cached.metadata.resourceVersion) >= Number(own.metadata.resourceVersion)
    ) {
      written.delete(name);
      return cached;
    }
    return own;
  };
  const rolloutsApi = customObjects(kc, NETWORK_ROLLOUT_RESOURCE, NetworkRollout, {
    fieldManager: FIELD_MANAGER,
  });

  const queue = createWorkQueue({
    process: async () => {
      if (!informers.hasSynced()) return 'done'; // a pass follows the sync
      const timer = metrics?.passSeconds.startTimer();
      try {
        last = await pass();
        lastError = undefined;
        metrics?.passes.inc({ result: 'success' });
        return 'done';
      } catch (error) {
        lastError = error;
        metrics?.passes.inc({ result: 'error' });
        throw error;
      } finally {
        timer?.();
      }
    },
    onError: (_key, error) => logger.error({ err: error }, 'pass failed; retrying'),
  });
  const informers: ClusterInformers = startClusterInformers({
    kc,
    log: logger,
    onChange: (reason) => queue.addAfter(CLUSTER_KEY, reason, config.debounceMs),
  });
  // Changes seen before every informer synced were dropped (a pass needs all of them): one pass now.
  const synced = informers.waitForSync().then(
    () => queue.add(CLUSTER_KEY, 'synced'),
    () => undefined, // stopped before it synced
  );

  async function writeNode(
    rendered: RenderedNode,
    write: NodeWrite | undefined,
    existing: ExistingConfig | undefined,
  ): Promise<boolean> {
    let current = existing;
    let applied = false;
    if (write !== undefined) {
      const object = {
        ...nodeNetworkConfigOf(write),
        metadata: { name: write.name, annotations: write.annotations },
      };
      current = await configsApi.patch(write.name, object, { type: 'apply', force: true });
      written.set(write.name, current);
      metrics?.writes.inc({ verb: 'apply' });
      applied = true;
    }
    const conditions = (current?.status?.conditions as Condition[] | undefined) ?? [];
    const next = setCondition(conditions, identityCondition(rendered.identityProblems), clock());
    if (next.changed) {
      await configsApi.patchStatus(rendered.name, { status: { conditions: next.conditions } });
      metrics?.writes.inc({ verb: 'status' });
    }
    return applied;
  }

  function reportProblems(rendered: RenderedNode, uid: string | undefined): void {
    const text = rendered.identityProblems.map((p) => `${p.reason}: ${p.message}`).join('\n');
    if (text === (reported.get(rendered.name) ?? '')) return;
    reported.set(rendered.name, text);
    for (const p of rendered.identityProblems)
      events.event(
        { apiVersion: 'v1', kind: 'Node', name: rendered.name, ...(uid && { uid }) },
        'Warning',
        p.reason,
        `${p.field}: ${p.message}`,
      );
  }

  /** Deletes the configs of Nodes gone longer than the grace period; returns how many, and when to look again. */
  async function collectGone(
    nodeNames: ReadonlySet<string>,
  ): Promise<{ deleted: number; nextInMs?: number }> {
    const now = clock().getTime();
    const graceMs = config.deletedNodeGraceSeconds * 1000;
    let deleted = 0;
    let nextInMs: number | undefined;
    for (const name of goneSince.keys()) if (nodeNames.has(name)) goneSince.delete(name);
    for (const c of informers.configs.list()) {
      const name = c.metadata.name;
      if (nodeNames.has(name)) continue;
      const since = goneSince.get(name) ?? now;
      goneSince.set(name, since);
      const left = since + graceMs - now;
      if (left > 0) {
        nextInMs = Math.min(nextInMs ?? left, left);
        continue;
      }
      try {
        await configsApi.delete(name, c.metadata.uid ? { uid: c.metadata.uid } : {});
        metrics?.writes.inc({ verb: 'delete' });
        logger.info({ node: name }, 'NodeNetworkConfig of a deleted Node removed after the grace period');
      } catch (error) {
        if (!isNotFoundError(error)) throw error;
      }
      goneSince.delete(name);
      written.delete(name);
      reported.delete(name);
      deleted++;
    }
    return nextInMs === undefined ? { deleted } : { deleted, nextInMs };
  }

  /** Writes the NetworkRollout's status when it differs, creating the object the first time. */
  async function writeRollout(plan: RolloutPlan, rollout: NetworkRollout | undefined): Promise<void> {
    const status = rolloutStatusOf(plan, rollout, clock());
    if (rollout !== undefined && JSON.stringify(rollout.status) === JSON.stringify(status)) return;
    if (rollout === undefined) {
      const object = {
        apiVersion: API_VERSION,
        kind: 'NetworkRollout',
        metadata: { name: NETWORK_ROLLOUT_NAME },
      };
      try {
        await rolloutsApi.create(object);
      } catch (error) {
        if (!isAlreadyExistsError(error)) throw error; // created meanwhile: the status patch below applies
      }
    }
    await rolloutsApi.patchStatus(NETWORK_ROLLOUT_NAME, { status }, { type: 'merge' });
    metrics?.writes.inc({ verb: 'rollout-status' });
  }

  async function pass(): Promise<PassResult> {
    const started = Date.now();
    const now = clock();
    const state = informers.state();
    const rendered = renderCluster(config, state);
    const rollout = informers.rollouts.get(NETWORK_ROLLOUT_NAME);
    const { canaryLabel, maxUnavailable, heartbeatMaxAgeSeconds, nodeTimeoutSeconds } = config.rollout;
    const rolloutInput = {
      nodes: rendered.map((r) =>
        rolloutNodeOf(
          r.name,
          r.spec,
          configOf(r.name),
          informers.nodes.get(r.name)?.metadata.labels?.[canaryLabel] !== undefined,
        ),
      ),
      failures: failuresOf(rollout),
      settings: {
        maxUnavailable,
        heartbeatMaxAgeMs: heartbeatMaxAgeSeconds * 1000,
        nodeTimeoutMs: nodeTimeoutSeconds * 1000,
        paused: rollout?.spec?.paused === true,
      },
      now,
    };
    const plan = planRollout(rolloutInput);
    const writes = new Map(
      nodeWritesOf(plan, new Map(rendered.map((r) => [r.name, r.spec])), configOf, now).map((w) => [
        w.name,
        w,
      ]),
    );
    let applied = 0;
    // Complete is reported before the settling writes (they only drop the rollback records).
    if (plan.phase === 'complete') await writeRollout(plan, rollout);
    await inBatches(rendered, WRITE_CONCURRENCY, async (r) => {
      if (await writeNode(r, writes.get(r.name), configOf(r.name))) applied++;
      reportProblems(r, informers.nodes.get(r.name)?.metadata.uid);
    });
    if (plan.phase !== 'complete') await writeRollout(plan, rollout);
    clearTimeout(rolloutTimer);
    const checkInMs = nextCheckInMs(plan, rolloutInput);
    if (checkInMs !== undefined)
      rolloutTimer = setTimeout(() => queue.add(CLUSTER_KEY, 'rollout timeout'), checkInMs + 10);
    const gone = await collectGone(new Set(state.nodes.map((n) => n.name)));
    clearTimeout(graceTimer);
    if (gone.nextInMs !== undefined)
      graceTimer = setTimeout(
        () => queue.add(CLUSTER_KEY, 'grace period of a deleted Node'),
        gone.nextInMs + 10,
      );
    const problems = rendered.reduce((n, r) => n + r.identityProblems.length, 0);
    const result = {
      nodes: rendered.length,
      applied,
      deleted: gone.deleted,
      rollout: plan.phase,
      problems,
      durationMs: Date.now() - started,
    };
    metrics?.nodes.set(result.nodes);
    metrics?.identityProblems.set(problems);
    logger.info(result, 'pass');
    return result;
  }

  return {
    idle: async () => {
      await informers.waitForSync();
      await synced;
      await queue.idle();
    },
    lastPass: () => last,
    lastError: () => lastError,
    hasSynced: () => informers.hasSynced(),
    stop: async () => {
      clearTimeout(graceTimer);
      clearTimeout(rolloutTimer);
      await informers.stop();
      await queue.stop();
      await events.flush();
    },
  };
}
