// client-go's event correlator (tools/record/events_cache.go), re-expressed: pure state plus an
// injected clock, so that the recorder only does the writing.
//  - aggregation: more than `maxSimilarEvents` different messages with the same object, type and
//    reason within `aggregateIntervalMs` become one event "(combined from similar events): ...";
//  - deduplication: an event equal to one already written (same object, type, reason, message)
//    updates that one (count + 1, lastTimestamp) instead of creating another;
//  - spam filter: a token bucket per object (and source): `burst` events, then one per `refillMs`.

/** The object an event is about (core v1 ObjectReference). */
export interface EventObjectReference {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventInput {
  readonly involvedObject: EventObjectReference;
  readonly type: EventType;
  /** CamelCase, specific: `FrrReloadFailed`, `ObjectSkipped`. */
  readonly reason: string;
  readonly message: string;
}

export interface CorrelatorOptions {
  /** Events per object before the rate limit applies. client-go: 25. */
  readonly burst?: number;
  /** One more event per object after this long. client-go: 5 minutes. */
  readonly refillMs?: number;
  /** client-go: 10. */
  readonly maxSimilarEvents?: number;
  /** client-go: 10 minutes. */
  readonly aggregateIntervalMs?: number;
  /** Entries kept per cache (least recently used dropped). client-go: 4096. */
  readonly cacheSize?: number;
}

/** What the recorder should do with an event. */
export type Correlation =
  | { readonly action: 'skip' }
  | {
      readonly action: 'create' | 'update';
      /** Identifies the event for {@link EventCorrelator.recordWritten}. */
      readonly key: string;
      /** The name of the Event to update (action `update`). */
      readonly name?: string;
      readonly message: string;
      readonly count: number;
      /** ms since the epoch. */
      readonly firstTimestamp: number;
      readonly lastTimestamp: number;
    };

const AGGREGATED_PREFIX = '(combined from similar events): ';

/** A Map that forgets its least recently used entries beyond `max`. */
class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
}

export interface WrittenEvent {
  readonly name: string;
  readonly count: number;
  readonly firstTimestamp: number;
}

export class EventCorrelator {
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly maxSimilarEvents: number;
  private readonly aggregateIntervalMs: number;
  private readonly buckets: LruMap<string, { tokens: number; at: number }>;
  private readonly similar: LruMap<string, { messages: Set<string>; at: number }>;
  private readonly writtenEvents: LruMap<string, WrittenEvent>;

  constructor(
    private readonly source: { readonly component: string; readonly host: string },
    options: CorrelatorOptions = {},
  ) {
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 5 * 60_000;
    this.maxSimilarEvents = options.maxSimilarEvents ?? 10;
    this.aggregateIntervalMs = options.aggregateIntervalMs ?? 10 * 60_000;
    const size = options.cacheSize ?? 4096;
    this.buckets = new LruMap(size);
    this.similar = new LruMap(size);
    this.writtenEvents = new LruMap(size);
  }

  /** Decides about one event at time `now` (ms); call {@link recordWritten} once it has been written. */
  correlate(event: EventInput, now: number): Correlation {
    const o = event.involvedObject;
    const objectKey = [
      this.source.component,
      this.source.host,
      o.kind,
      o.namespace,
      o.name,
      o.uid,
      o.apiVersion,
    ].join('\u0000');
    const similarKey = [objectKey, o.fieldPath, event.type, event.reason].join('\u0000');

    // Aggregation of similar events (same object, type, reason; different messages).
    let record = this.similar.get(similarKey);
    if (!record || now - record.at > this.aggregateIntervalMs) record = { messages: new Set(), at: now };
    record.messages.add(event.message);
    record.at = now;
    this.similar.set(similarKey, record);
    const aggregated = record.messages.size >= this.maxSimilarEvents;
    const message = aggregated ? `${AGGREGATED_PREFIX}${event.message}` : event.message;
    const key = aggregated ? similarKey : `${similarKey}\u0000${event.message}`;

    // The spam filter, per object.
    const bucket = this.buckets.get(objectKey) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) / this.refillMs);
    bucket.at = now;
    this.buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return { action: 'skip' };
    bucket.tokens -= 1;

    // Deduplication against what was written.
    const previous = this.writtenEvents.get(key);
    return previous
      ? {
          action: 'update',
          key,
          name: previous.name,
          message,
          count: previous.count + 1,
          firstTimestamp: previous.firstTimestamp,
          lastTimestamp: now,
        }
      : { action: 'create', key, message, count: 1, firstTimestamp: now, lastTimestamp: now };
  }

  /** Records that the event of `key` now exists under `name`, with `count` and `firstTimestamp`. */
  recordWritten(key: string, state: WrittenEvent): void {
    this.writtenEvents.set(key, state);
  }
}
