// Storage with etcd's guarantees as the API server exposes them: one resourceVersion counter
// across all objects, a bounded history of every change (reads at an exact past version, watches
// from any version still in the window, 410 Expired before it), and persistence to a directory
// (a snapshot plus an append-only log of changes since) so a restarted server keeps its data.
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expired } from './errors.js';
import { isObject, type JsonObject } from './json.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  rv: number;
  type: WatchEventType;
  /** `<group>/<plural>` of the object. */
  resource: string;
  object: JsonObject;
  /** The object before this change (undefined for ADDED). */
  previous: JsonObject | undefined;
}

export type EventListener = (event: StoredEvent) => void;

export interface StoreOptions {
  /** Directory for state.json and events.jsonl; in memory only when undefined. */
  dir: string | undefined;
  /** How many past events are kept for watches and exact reads (the compaction window). */
  historyLimit: number;
}

interface Snapshot {
  resourceVersion: number;
  compactedRv: number;
  objects: { resource: string; object: JsonObject }[];
  history: StoredEvent[];
}

function meta(obj: JsonObject): JsonObject {
  return isObject(obj.metadata) ? obj.metadata : {};
}

export function objectKey(obj: JsonObject): string {
  const m = meta(obj);
  return `${typeof m.namespace === 'string' ? m.namespace : ''}/${String(m.name)}`;
}

export class Store {
  private readonly objects = new Map<string, Map<string, JsonObject>>();
  private history: StoredEvent[] = [];
  private rv = 0;
  private compactedRv = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly snapshotPath: string | undefined;
  private readonly logPath: string | undefined;

  constructor(private readonly options: StoreOptions) {
    this.snapshotPath = options.dir === undefined ? undefined : join(options.dir, 'state.json');
    this.logPath = options.dir === undefined ? undefined : join(options.dir, 'events.jsonl');
    this.load();
  }

  get resourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may start from or an exact read may ask for. */
  get oldestAvailable(): number {
    return this.compactedRv;
  }

  private bucket(resource: string): Map<string, JsonObject> {
    let b = this.objects.get(resource);
    if (!b) {
      b = new Map();
      this.objects.set(resource, b);
    }
    return b;
  }

  get(resource: string, namespace: string, name: string): JsonObject | undefined {
    return this.objects.get(resource)?.get(`${namespace}/${name}`);
  }

  /**
   * Objects of a resource (in one namespace, or all), sorted by key as etcd returns them, as they
   * were at `atRv` (the current state when undefined). Throws 410 Expired when `atRv` is compacted.
   */
  list(resource: string, namespace: string | undefined, atRv?: number): JsonObject[] {
    const state = new Map(this.objects.get(resource) ?? []);
    if (atRv !== undefined && atRv < this.rv) {
      if (atRv < this.compactedRv) throw expired(`too old resource version: ${atRv} (${this.compactedRv})`);
      for (let i = this.history.length - 1; i >= 0 && this.history[i]!.rv > atRv; i--) {
        const event = this.history[i]!;
        if (event.resource !== resource) continue;
        const key = objectKey(event.object);
        if (event.previous === undefined) state.delete(key);
        else state.set(key, event.previous);
      }
    }
    return [...state]
      .filter(([key]) => namespace === undefined || key.startsWith(`${namespace}/`))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => obj);
  }

  /** Every stored object of every resource (for restoring CRDs and namespace cleanup). */
  allOf(resource: string): JsonObject[] {
    return [...(this.objects.get(resource)?.values() ?? [])];
  }

  /**
   * Writes an object (ADDED/MODIFIED) or removes it (DELETED), stamping the next resourceVersion
   * on it, and tells every listener before returning.
   */
  commit(type: WatchEventType, resource: string, object: JsonObject): JsonObject {
    this.rv += 1;
    meta(object).resourceVersion = String(this.rv);
    const key = objectKey(object);
    const b = this.bucket(resource);
    const event: StoredEvent = { rv: this.rv, type, resource, object, previous: b.get(key) };
    if (type === 'DELETED') b.delete(key);
    else b.set(key, object);
    this.record(event);
    for (const listener of this.listeners) listener(event);
    return object;
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    const excess = this.history.length - this.options.historyLimit;
    if (excess > 0) {
      this.compactedRv = this.history[excess - 1]!.rv;
      this.history = this.history.slice(excess);
    }
    if (this.logPath) appendFileSync(this.logPath, `${JSON.stringify(event)}\n`);
  }

  /**
   * Subscribes to changes after `fromRv`: replays the history after it, then every new event, in
   * order and without a gap (both happen before any other write can run). 410 when compacted.
   */
  watch(fromRv: number, listener: EventListener): () => void {
    if (fromRv < this.compactedRv)
      throw expired(`too old resource version: ${fromRv} (${this.compactedRv + 1})`);
    for (const event of this.history) if (event.rv > fromRv) listener(event);
    // A version from the future (a client that outlived a wiped server) sees only later events.
    const after = (event: StoredEvent): void => {
      if (event.rv > fromRv) listener(event);
    };
    this.listeners.add(after);
    return () => this.listeners.delete(after);
  }

  /**
   * Forgets all history: the current resourceVersion is advanced past every event, so any watch
   * or exact read from an earlier version is answered 410 Expired.
   */
  compact(): void {
    this.rv += 1;
    this.compactedRv = this.rv;
    this.history = [];
    this.persistSnapshot();
  }

  /** Writes the whole state atomically and empties the log. */
  persistSnapshot(): void {
    if (!this.snapshotPath || !this.logPath) return;
    const snapshot: Snapshot = {
      resourceVersion: this.rv,
      compactedRv: this.compactedRv,
      objects: [...this.objects].flatMap(([resource, b]) =>
        [...b.values()].map((object) => ({ resource, object })),
      ),
      history: this.history,
    };
    writeFileSync(`${this.snapshotPath}.tmp`, JSON.stringify(snapshot));
    renameSync(`${this.snapshotPath}.tmp`, this.snapshotPath);
    writeFileSync(this.logPath, '');
  }

  private load(): void {
    if (!this.snapshotPath || !this.logPath) return;
    if (existsSync(this.snapshotPath)) {
      const snapshot = JSON.parse(readFileSync(this.snapshotPath, 'utf8')) as Snapshot;
      this.rv = snapshot.resourceVersion;
      this.compactedRv = snapshot.compactedRv;
      this.history = snapshot.history;
      for (const { resource, object } of snapshot.objects)
        this.bucket(resource).set(objectKey(object), object);
    }
    if (existsSync(this.logPath)) {
      for (const line of readFileSync(this.logPath, 'utf8').split('\n')) {
        let event: StoredEvent;
        try {
          event = JSON.parse(line) as StoredEvent;
        } catch {
          continue; // an empty line, or the last one cut short by a crash
        }
        if (event.rv <= this.rv) continue;
        this.rv = event.rv;
        const b = this.bucket(event.resource);
        if (event.type === 'DELETED') b.delete(objectKey(event.object));
        else b.set(objectKey(event.object), event.object);
        this.history.push(event);
      }
      const excess = this.history.length - this.options.historyLimit;
      if (excess > 0) {
        this.compactedRv = this.history[excess - 1]!.rv;
        this.history = this.history.slice(excess);
      }
    }
    this.persistSnapshot();
  }
}
