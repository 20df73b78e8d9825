import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { retry } from './backoff.js';
import { formatKubeTime } from './conditions.js';
import { customObjects } from './custom-objects.js';
import { InvalidArgumentError, isNotFoundError, isTransientError } from './errors.js';
import {
  EventCorrelator,
  type CorrelatorOptions,
  type EventInput,
  type EventObjectReference,
  type EventType,
} from './event-correlator.js';
import { stderrLogger, type KubeLogger } from './logger.js';
import { EVENTS, ObjectMeta } from './resource.js';

// Core v1 Events (what `kubectl describe` and `kubectl get events` show), written in the background:
// correlated as client-go's recorder does (aggregated, deduplicated with count/lastTimestamp, rate
// limited per object), one write at a time, and never failing the caller.

export interface EventRecorderOptions {
  readonly kc: KubeConfig;
  /** `source.component` / `reportingComponent`: the agent's name, `fabrik-agent-netns`. */
  readonly component: string;
  /** `source.host` / `reportingInstance`: the node's name. */
  readonly host: string;
  readonly correlation?: CorrelatorOptions;
  /** Events waiting to be written beyond this are dropped (logged). Default 1000. */
  readonly maxPending?: number;
  readonly clock?: () => Date;
  readonly log?: KubeLogger;
}

export interface EventRecorder {
  /**
   * Records an event about `object`: call it on transitions (an object skipped, a reload that failed,
   * a reload that works again), not on every pass. Returns at once; the write happens in the
   * background and a failure is logged, never thrown.
   */
  event(object: EventObjectReference, type: EventType, reason: string, message: string): void;
  /** Resolves when every event recorded so far has been written (or given up). */
  flush(): Promise<void>;
}

const REASON = /^[A-Za-z][A-Za-z0-9]*$/;
const EventObject = z.looseObject({ metadata: ObjectMeta });
/** Core v1 Events of cluster-scoped objects live in `default`, as client-go puts them. */
const CLUSTER_SCOPED_EVENT_NAMESPACE = 'default';

export function createEventRecorder(options: EventRecorderOptions): EventRecorder {
  const correlator = new EventCorrelator(
    { component: options.component, host: options.host },
    options.correlation,
  );
  const events = customObjects(options.kc, EVENTS, EventObject);
  const clock = options.clock ?? (() => new Date());
  const log = options.log ?? stderrLogger;
  const maxPending = options.maxPending ?? 1000;
  let pending = 0;
  let queue: Promise<void> = Promise.resolve();
  let sequence = 0;

  const eventName = (objectName: string, now: number): string =>
    // client-go names events `<object>.<unix nanoseconds in hex>`; a sequence number keeps two
    // events of the same millisecond apart.
    `${objectName}.${(BigInt(now) * 1_000_000n + BigInt(sequence++ % 1_000_000)).toString(16)}`;

  async function write(input: EventInput, at: Date): Promise<void> {
    const now = at.getTime();
    const decision = correlator.correlate(input, now);
    if (decision.action === 'skip') {
      log.debug({ object: input.involvedObject, reason: input.reason }, 'event rate-limited; dropped');
      return;
    }
    const namespace = input.involvedObject.namespace || CLUSTER_SCOPED_EVENT_NAMESPACE;
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: decision.name ?? eventName(input.involvedObject.name, now), namespace },
      involvedObject: input.involvedObject,
      type: input.type,
      reason: input.reason,
      message: decision.message,
      source: { component: options.component, host: options.host },
      reportingComponent: options.component,
      reportingInstance: options.host,
      count: decision.count,
      firstTimestamp: formatKubeTime(new Date(decision.firstTimestamp)),
      lastTimestamp: formatKubeTime(new Date(decision.lastTimestamp)),
    };
    await retry(
      async () => {
        if (decision.action === 'update') {
          try {
            await events.patch(
              body.metadata.name,
              { count: body.count, lastTimestamp: body.lastTimestamp, message: body.message },
              { namespace },
            );
            return;
          } catch (error) {
            // Events expire (one hour by default): write it anew under the same name.
            if (!isNotFoundError(error)) throw error;
          }
        }
        await events.create(body);
      },
      { retryIf: isTransientError, maxAttempts: 3 },
    );
    correlator.recordWritten(decision.key, {
      name: body.metadata.name,
      count: decision.count,
      firstTimestamp: decision.firstTimestamp,
    });
  }

  return {
    event(object, type, reason, message) {
      if (!REASON.test(reason)) {
        // A programming error, but recording an event must never break the caller's reconcile.
        const error = new InvalidArgumentError('reason', `must be CamelCase, not ${JSON.stringify(reason)}`);
        log.error({ object, err: error }, 'event refused');
        return;
      }
      if (pending >= maxPending) {
        log.warn({ object, reason, pending }, 'too many events waiting to be written; dropped');
        return;
      }
      pending++;
      const at = clock();
      queue = queue
        .then(() => write({ involvedObject: object, type, reason, message }, at))
        .catch((error: unknown) => log.warn({ object, reason, err: error }, 'event could not be written'))
        .finally(() => {
          pending--;
        });
    },
    flush: () => queue,
  };
}
