import type { AgentNetnsConfig, NodeNetworkStatusSection, ObjectError } from '@fabrik/api';
import type {
  IntentSnapshot,
  ReconcileOutcome,
  ReconcileRequest,
  StateStore,
  StatusSink,
} from '@fabrik/agent-runtime';
import { isFrrReloadError, type FrrStatus } from '@fabrik/frr';
import type { EventRecorder } from '@fabrik/kube';
import {
  isInvalidDesiredStateError,
  isKernelFeatureMissingError,
  isKernelRejectedError,
  isOwnershipConflictError,
} from '@fabrik/netcore/netlink';
import type { Logger } from 'pino';
import { keptMessage } from '@fabrik/agent-runtime';
import { applyNode, type ApplyReport, type HbrNode, type NodeIntent } from './apply.js';
import type { DriftExpectation } from './drift.js';
import { desiredNode, sortByObject, type NodeDesired } from './desired.js';
import { applyObjectByObject, type ObjectFailure } from './isolate.js';
import { appliedObjectsOf, nodeIntentOf, storedIntent, type StoredNodeIntent } from './last-good.js';
import {
  changedKeys,
  NO_OBJECTS,
  objectsByKey,
  refreshUnchanged,
  sameVersion,
  withChanges,
  type NodeObjects,
} from './node-objects.js';
import { buildNodeIntent } from './routing-intent.js';
import { OWNED_KINDS, type NetnsMetrics } from './metrics.js';
import { bgpSessionStates, statusSection } from './status.js';

export interface NetnsAgentOptions {
  readonly config: Pick<AgentNetnsConfig, 'mode' | 'asn' | 'routerId' | 'vtepIp' | 'hbrVrf' | 'underlay'> & {
    readonly nodeName: string;
  };
  readonly node: HbrNode;
  readonly logger: Logger;
  readonly metrics: NetnsMetrics;
  readonly lastGood: StateStore<StoredNodeIntent>;
  /** Reads the BGPPeerings' passwordFiles (the file source only: see readPasswordFiles). */
  readonly passwordFiles?: (snapshot: IntentSnapshot) => Promise<ReadonlyMap<string, string>>;
  /** NodeNetworkStatus `netns` (Kubernetes source) or the status file (file source). */
  readonly status?: StatusSink<NodeNetworkStatusSection>;
  /** Events on the objects and the Node (Kubernetes source only). */
  readonly events?: EventRecorder;
  readonly clock?: () => Date;
}

export interface NetnsAgent {
  /** One pass: sources -> desired -> apply in the safe order -> observe -> status. */
  reconcile(request: ReconcileRequest): Promise<ReconcileOutcome>;
  /** Applies the last good state without deleting anything (at start, before the source answers). */
  restoreLastGood(): Promise<boolean>;
  /** What the drift monitor compares kernel events with. */
  expectation(): DriftExpectation;
}

/** FRR's status (three vtysh calls) is read again after this long, or when FRR's configuration changed. */
const FRR_STATUS_MAX_AGE_MS = 30_000;

/**
 * agent-netns's reconcile. Every object is applied, refused or failed on its own: when the kernel
 * or FRR refuses the desired state, the changes that fail on their own are found
 * (applyObjectByObject) and reported against their objects, each keeping its last applied
 * version, while the others are applied; the node is `degraded`, not failed. Such a change is not
 * tried again before it changes or the next resync. An apply that fails even without the changes
 * (or for a passing reason: FRR unreachable, zebra slow) restores the last good state and reports
 * `invalid`; a passing error is retried with backoff.
 */
export function createNetnsAgent(options: NetnsAgentOptions): NetnsAgent {
  const { node, logger, metrics, config } = options;
  const clock = options.clock ?? (() => new Date());
  let expectation: DriftExpectation = { links: new Map() };
  const applied = (report?: ApplyReport) => {
    expectation = report ? { links: report.links, routeTables: report.routeTables } : expectation;
  };
  let frrRead: { status: FrrStatus; at: number } | undefined;
  let previous: NodeNetworkStatusSection | undefined;
  let lastSaved: string | undefined;
  let reportedErrors = new Set<string>();
  let failing = false;
  /** The objects the node runs (loaded from the last good state on first use). */
  let appliedObjects: NodeObjects | undefined;
  /** The changes that failed on their own in the last reconcile, in the version that failed. */
  let failedChanges:
    { readonly to: NodeObjects; readonly errors: ReadonlyMap<string, ObjectError> } | undefined;

  async function saveLastGood(intent: NodeIntent, objects: NodeObjects): Promise<void> {
    const stored = storedIntent(intent, objects);
    const text = JSON.stringify(stored);
    if (text === lastSaved) return;
    await options.lastGood.save(stored);
    lastSaved = text;
  }

  async function restore(reason: unknown, wanted: NodeIntent): Promise<string> {
    const last = await options.lastGood.load();
    if (last === undefined) return 'no last good state to restore';
    if (intentText(last) === intentText(storedIntent(wanted, NO_OBJECTS)))
      return 'the last good state is this state';
    metrics.restoresTotal.inc();
    try {
      applied(await applyNode(node, nodeIntentOf(last)));
      return 'the last good state was restored';
    } catch (e) {
      logger.error({ err: e, cause: String(reason) }, 'restoring the last good state failed');
      return `restoring the last good state failed too: ${messageOf(e)}`;
    }
  }

  async function frrStatus(fresh: boolean): Promise<FrrStatus | undefined> {
    if (!fresh && frrRead && Date.now() - frrRead.at < FRR_STATUS_MAX_AGE_MS) return frrRead.status;
    try {
      frrRead = { status: await node.frr.status(), at: Date.now() };
      return frrRead.status;
    } catch (e) {
      logger.warn({ err: e }, 'reading FRR status failed');
      return undefined;
    }
  }

  /** The objects the node runs: as last applied by this process, or as the last good state holds them. */
  async function currentObjects(): Promise<NodeObjects> {
    appliedObjects ??= appliedObjectsOf(await options.lastGood.load());
    return appliedObjects;
  }

  function recordEvents(
    desired: NodeDesired,
    failedKeys: ReadonlySet<string>,
    failure: string | undefined,
  ): void {
    const events = options.events;
    if (!events) return;
    const reported = [
      ...desired.objectErrors.map((e) => ({
        e,
        reason: failedKeys.has(`${e.kind}/${e.name}`) ? 'ApplyFailed' : 'Skipped',
      })),
      ...desired.objectWarnings.map((e) => ({ e, reason: 'UnknownFields' })),
    ];
    const now = new Set(reported.map(({ e, reason }) => `${reason}/${errorKey(e)}`));
    for (const { e, reason } of reported) {
      if (reportedErrors.has(`${reason}/${errorKey(e)}`)) continue;
      events.event(
        { kind: e.kind, name: e.name, apiVersion: 'network.fabrik.dev/v1alpha1' },
        'Warning',
        reason,
        `node ${config.nodeName}: ${e.field ? `${e.field}: ` : ''}${e.message}`,
      );
    }
    reportedErrors = now;
    const nodeRef = { apiVersion: 'v1', kind: 'Node', name: config.nodeName };
    if (failure !== undefined && !failing) events.event(nodeRef, 'Warning', 'NetnsApplyFailed', failure);
    if (failure === undefined && failing)
      events.event(nodeRef, 'Normal', 'NetnsApplyRecovered', 'the desired state is applied again');
    failing = failure !== undefined;
  }

  return {
    expectation: () => expectation,
    async restoreLastGood() {
      const last = await options.lastGood.load();
      if (last === undefined) return false;
      applied(await applyNode(node, nodeIntentOf(last), { prune: false }));
      appliedObjects = appliedObjectsOf(last);
      lastSaved = JSON.stringify(last);
      return true;
    },
    async reconcile(request) {
      if (request.signal.aborted) return { result: 'success', message: 'stopping: nothing applied' };
      const passwordFiles = await options.passwordFiles?.(request.snapshot);
      const lastApplied = await currentObjects();
      const wanted = desiredNode(config, request.snapshot, passwordFiles, lastApplied);
      const current = refreshUnchanged(lastApplied, wanted.objects);
      // A change that failed on its own is not tried again in the same version before a resync.
      if (request.trigger.includes('resync')) failedChanges = undefined;
      const knownFailures = changedKeys(current, wanted.objects).filter(
        (k) => failedChanges?.errors.has(k) && sameVersion(failedChanges.to, wanted.objects, k),
      );
      const to = withChanges(
        current,
        wanted.objects,
        changedKeys(current, wanted.objects).filter((k) => !knownFailures.includes(k)),
      );
      let desired: NodeDesired = wanted;
      const failedKeys = new Set<string>();
      let report: ApplyReport | undefined;
      let failure: string | undefined;
      let retry = false;
      try {
        const outcome = await applyObjectByObject(
          current,
          to,
          (objects) => applyNode(node, buildNodeIntent(config, objects).intent, { signal: request.signal }),
          (e) => !request.signal.aborted && !isTransient(e),
        );
        report = outcome.report;
        applied(report);
        const built = buildNodeIntent(config, outcome.applied);
        appliedObjects = built.objects;
        const failed = new Map([
          ...knownFailures.map((k) => [k, failedChanges!.errors.get(k)!] as const),
          ...outcome.failures.map((f) => [f.key, applyError(f, current)] as const),
        ]);
        failedChanges = failed.size > 0 ? { to: wanted.objects, errors: failed } : undefined;
        for (const k of failed.keys()) failedKeys.add(k);
        const reported = new Set(wanted.objectErrors.map((e) => `${e.kind}/${e.name}`));
        desired = {
          ...wanted,
          intent: built.intent,
          objects: built.objects,
          objectErrors: sortByObject([
            ...wanted.objectErrors,
            ...failed.values(),
            // Left out with an object they need (a Layer2Network of a VRF that failed).
            ...built.objectErrors.filter((e) => !reported.has(`${e.kind}/${e.name}`)),
          ]),
        };
        if (outcome.failures.length > 0)
          logger.warn(
            { reconcile: request.id, failed: outcome.failures.map((f) => f.key) },
            'objects failed on their own; the others are applied',
          );
        await saveLastGood(built.intent, built.objects);
      } catch (e) {
        if (request.signal.aborted)
          return {
            result: 'error',
            message: 'stopping: the apply ended between two steps; the next start completes it',
            retry: false,
          };
        applied();
        retry = isTransient(e);
        logger.error({ err: e, reconcile: request.id }, 'apply failed');
        failure = `${messageOf(e)} (${await restore(e, desired.intent)})`;
      }

      const frr = await frrStatus(report?.frr.changed !== false);
      if (report) {
        metrics.ownedObjects.reset();
        for (const kind of OWNED_KINDS) metrics.ownedObjects.set({ kind }, report.owned[kind] ?? 0);
        if (report.frr.changed) metrics.frrReloadDuration.observe(report.frr.reloadMs / 1000);
      }
      if (frr) {
        metrics.bgpSessions.reset();
        const byState = new Map<string, number>();
        for (const state of bgpSessionStates(frr).values()) byState.set(state, (byState.get(state) ?? 0) + 1);
        for (const [state, n] of byState) metrics.bgpSessions.set({ state }, n);
      }
      metrics.objectsSkipped.set(desired.objectErrors.length);

      const section = statusSection({
        desired,
        ...(failure !== undefined ? { failure } : {}),
        ...(frr ? { frr } : {}),
        ...(report
          ? { owned: report.owned }
          : previous?.ownedObjects
            ? { owned: previous.ownedObjects }
            : {}),
        ...(previous ? { previous } : {}),
        now: clock(),
      });
      try {
        await options.status?.write(section);
        previous = section;
      } catch (e) {
        logger.warn({ err: e }, 'writing status failed');
      }
      recordEvents(desired, failedKeys, failure);

      const skipped = desired.objectErrors.length + desired.sourceProblems.length;
      const counts = {
        netlinkOps: report?.netlinkOps ?? 0,
        frrAdded: report?.frr.added ?? 0,
        frrRemoved: report?.frr.removed ?? 0,
        frrReloadMs: report?.frr.reloadMs ?? 0,
        netlinkMs: report?.netlinkMs ?? 0,
        frrMs: report?.frrMs ?? 0,
        vrfs: desired.intent.frr.vrfs.length,
        layer2Networks: desired.intent.frr.layer2s.length,
        skipped,
      };
      if (failure !== undefined) return { result: 'error', counts, message: failure, retry };
      if (skipped > 0)
        return {
          result: 'invalid',
          counts,
          message: [
            ...desired.objectErrors.map((e) => `${e.kind} ${e.name}: ${e.message}`),
            ...desired.sourceProblems.map((p) => `${p.where}: ${p.message}`),
          ].join('; '),
        };
      return { result: 'success', counts };
    },
  };
}

const errorKey = (e: ObjectError) => `${e.kind}/${e.name}/${e.field ?? ''}/${e.message}`;

/** The last good state's intent (not the objects it was built from), as text to compare. */
const intentText = (stored: StoredNodeIntent) => JSON.stringify({ frr: stored.frr, layer2: stored.layer2 });

/** A change that failed on its own, as its object's error: the node keeps the version it ran. */
function applyError(failure: ObjectFailure, before: NodeObjects): ObjectError {
  const [kind, ...name] = failure.key.split('/');
  const message = `not applied on this node: ${messageOf(failure.error)}`.slice(0, 4000);
  return {
    kind: kind as ObjectError['kind'],
    name: name.join('/'),
    message: objectsByKey(before).has(failure.key) ? keptMessage(message) : message,
  };
}
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Errors the same input causes again: FRR or the kernel refusing the configuration. */
function isTransient(e: unknown): boolean {
  return !(
    isFrrReloadError(e) ||
    isKernelRejectedError(e) ||
    isKernelFeatureMissingError(e) ||
    isInvalidDesiredStateError(e) ||
    isOwnershipConflictError(e)
  );
}
