import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffPolicy } from './backoff.js';
import { apiErrorFor, GoneError, isGoneError } from './errors.js';
import { stderrLogger, type KubeLogger } from './logger.js';
import {
  collectionPath,
  metadataOf,
  objectKey,
  parserFunction,
  type GroupVersionResource,
  type Parser,
} from './resource.js';
import { isRecord, restClientFor, statusFromBody, transportError } from './rest.js';
import { formatLabelSelector, type LabelSelector } from './selector.js';

// A supervised, typed informer: list, then watch from the list's resourceVersion, over client-node's
// Watch. client-node's own ListWatch stops for good on any error but 410, has no resync, no
// inactivity timeout, and lets a throwing handler become an unhandled rejection; this one replaces it
// (see README.md, "Informers").

export interface InformerOptions<T> extends GroupVersionResource {
  readonly kc: KubeConfig;
  /** Watch one namespace; default: all namespaces (and cluster-scoped resources). */
  readonly namespace?: string;
  /** Server-side label filter: the API's syntax (`a=b,c in (x)`) or a LabelSelector. */
  readonly labelSelector?: string | LabelSelector;
  /** Server-side field filter, for example `metadata.name=node-1` to watch one Node. */
  readonly fieldSelector?: string;
  /** Turns the server's JSON into T; objects it refuses stay out of the cache and go to `onInvalid`. */
  readonly parse: Parser<T>;
  /**
   * Called with the key (`name` or `namespace/name`) of every object whose cached state changed
   * (added, modified, deleted, became invalid or valid again), and for every cached key on resync.
   * Level-triggered: read the cache for the current state, never branch on what happened.
   * Errors (thrown or rejected) are caught and logged.
   */
  readonly onChange?: (key: string) => void | Promise<void>;
  /** Called when an object is refused by `parse` (before `onChange` for that key). */
  readonly onInvalid?: (key: string, error: unknown) => void | Promise<void>;
  /** Re-emit every cached key to `onChange` this often (0: never). Default 10 minutes. */
  readonly resyncIntervalMs?: number;
  /**
   * Restart the watch (from the last resourceVersion) when no event and no bookmark arrived for this
   * long: a connection the server or the network dropped silently. Default 5 minutes.
   */
  readonly staleAfterMs?: number;
  /** Ask the server to end each watch after this long (it is resumed at once). Default 5-10 min, random. */
  readonly watchTimeoutSeconds?: number;
  /** Objects per list page (`limit`). Default 500. */
  readonly pageSize?: number;
  /** Delays between failed attempts (list or watch). Default {@link DEFAULT_BACKOFF}. */
  readonly backoff?: BackoffPolicy;
  readonly log?: KubeLogger;
  /** Name in log lines. Default: the plural. */
  readonly name?: string;
}

export interface InformerStats {
  /** Lists that succeeded (the first one included). */
  readonly lists: number;
  /** Lists done because the server answered 410 Gone to a watch. */
  readonly relistsAfterGone: number;
  /** Watches opened. */
  readonly watches: number;
  /** Watches restarted by the staleness watchdog. */
  readonly staleRestarts: number;
  /** Failed lists and watches (each followed by a backoff). */
  readonly failures: number;
  /** The last resourceVersion seen (list, event or bookmark). */
  readonly resourceVersion: string;
  /** A watch is open and has answered. */
  readonly watching: boolean;
}

export interface InvalidObject {
  readonly error: unknown;
  readonly resourceVersion?: string;
}

export interface Informer<T> {
  /** True once a first list succeeded (and ever after); don't reconcile before. */
  hasSynced(): boolean;
  /** Resolves once synced; rejects if the informer is stopped before. */
  waitForSync(): Promise<void>;
  /** The cached object (only objects `parse` accepted). */
  get(name: string, namespace?: string): T | undefined;
  list(): T[];
  keys(): string[];
  /** Objects refused by `parse`, by key. */
  invalid(): ReadonlyMap<string, InvalidObject>;
  stats(): InformerStats;
  /** Stops watching; resolves when nothing runs any more. Handlers are not called after. */
  stop(): Promise<void>;
}

interface CacheEntry<T> {
  readonly object: T;
  readonly resourceVersion?: string;
}

/** How a watch ended. */
type WatchEnd =
  | { kind: 'closed'; events: number }
  | { kind: 'gone'; error: unknown }
  | { kind: 'failed'; error: unknown; events: number }
  | { kind: 'stale' }
  | { kind: 'stopped' };

const DEFAULT_RESYNC_MS = 10 * 60_000;
const DEFAULT_STALE_MS = 5 * 60_000;
const DEFAULT_PAGE_SIZE = 500;
/** A watch that lasted this long is healthy even without events: no backoff before the next one. */
const HEALTHY_WATCH_MS = 1_000;

/** Starts an informer; it lists and watches in the background until `stop()`. */
export function startInformer<T>(options: InformerOptions<T>): Informer<T> {
  return new SupervisedInformer(options);
}

class SupervisedInformer<T> implements Informer<T> {
  private readonly parse: (raw: unknown) => T;
  private readonly log: KubeLogger;
  private readonly name: string;
  private readonly path: string;
  private readonly labelSelector: string | undefined;
  private readonly backoff: BackoffPolicy;
  private readonly stopController = new AbortController();
  private cache = new Map<string, CacheEntry<T>>();
  private invalidObjects = new Map<string, InvalidObject>();
  private resourceVersion = '';
  private synced = false;
  private watching = false;
  private counters = { lists: 0, relistsAfterGone: 0, watches: 0, staleRestarts: 0, failures: 0 };
  private abortWatch: (() => void) | undefined;
  private readonly syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly resyncTimer: NodeJS.Timeout | undefined;
  private readonly loop: Promise<void>;

  constructor(private readonly options: InformerOptions<T>) {
    this.parse = parserFunction(options.parse);
    this.log = options.log ?? stderrLogger;
    this.name = options.name ?? options.plural;
    this.path = collectionPath(options, options.namespace);
    this.labelSelector =
      typeof options.labelSelector === 'object'
        ? formatLabelSelector(options.labelSelector, 'labelSelector') || undefined
        : options.labelSelector;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    const resyncMs = options.resyncIntervalMs ?? DEFAULT_RESYNC_MS;
    if (resyncMs > 0) {
      this.resyncTimer = setInterval(() => this.resync(), resyncMs);
      this.resyncTimer.unref();
    }
    this.loop = this.run();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopController.signal.aborted) return Promise.reject(this.stoppedError());
    return new Promise((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
  }

  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(objectKey(name, namespace))?.object;
  }

  list(): T[] {
    return [...this.cache.values()].map((e) => e.object);
  }

  keys(): string[] {
    return [...this.cache.keys()];
  }

  invalid(): ReadonlyMap<string, InvalidObject> {
    return new Map(this.invalidObjects);
  }

  stats(): InformerStats {
    return { ...this.counters, resourceVersion: this.resourceVersion, watching: this.watching };
  }

  async stop(): Promise<void> {
    if (!this.stopController.signal.aborted) {
      this.stopController.abort();
      clearInterval(this.resyncTimer);
      this.abortWatch?.();
      for (const waiter of this.syncWaiters.splice(0)) waiter.reject(this.stoppedError());
    }
    await this.loop;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private stoppedError(): Error {
    return new Error(`informer ${this.name} stopped before its first list succeeded`);
  }

  // The supervisor: list when there is no resourceVersion to resume from, then watch; every failure
  // is followed by a jittered, capped backoff; nothing ends the loop but stop().
  private async run(): Promise<void> {
    let failures = 0;
    let goneInARow = 0;
    const fail = async (error: unknown, what: string): Promise<void> => {
      this.counters.failures++;
      const delayMs = backoffDelay(failures++, this.backoff);
      this.log.warn({ informer: this.name, err: error, delayMs }, `${what} failed; retrying`);
      await sleep(delayMs, this.stopController.signal);
    };
    while (!this.stopped) {
      if (this.resourceVersion === '') {
        try {
          await this.relist();
          failures = 0;
        } catch (error) {
          if (this.stopped) break;
          await fail(error, 'list');
          continue;
        }
      }
      const started = Date.now();
      const end = await this.watchOnce();
      switch (end.kind) {
        case 'stopped':
          break;
        case 'stale':
          this.counters.staleRestarts++;
          this.log.warn(
            { informer: this.name, resourceVersion: this.resourceVersion },
            'watch silent too long; re-watching',
          );
          break;
        case 'gone':
          this.counters.relistsAfterGone++;
          this.log.info(
            { informer: this.name, resourceVersion: this.resourceVersion },
            'resourceVersion gone (410); relisting',
          );
          this.resourceVersion = '';
          // 410s in a row without a working watch in between: back off like any failure.
          if (goneInARow++ > 0) await fail(end.error, 'watch');
          break;
        case 'closed':
        case 'failed':
          if (end.events > 0 || (end.kind === 'closed' && Date.now() - started >= HEALTHY_WATCH_MS)) {
            failures = 0;
            goneInARow = 0;
            if (end.kind === 'failed')
              this.log.info({ informer: this.name, err: end.error }, 'watch dropped; resuming');
          } else {
            await fail(
              end.kind === 'failed' ? end.error : new Error('watch closed without an event'),
              'watch',
            );
          }
          break;
      }
    }
    this.watching = false;
  }

  private async relist(): Promise<void> {
    const rest = restClientFor(this.options.kc);
    const items: unknown[] = [];
    let continueToken: string | undefined;
    let listVersion = '';
    do {
      const page = await rest.request({
        method: 'GET',
        path: this.path,
        query: {
          labelSelector: this.labelSelector,
          fieldSelector: this.options.fieldSelector,
          limit: this.options.pageSize ?? DEFAULT_PAGE_SIZE,
          continue: continueToken,
        },
        signal: this.stopController.signal,
      });
      if (!isRecord(page) || !Array.isArray(page.items)) throw new Error(`list ${this.path}: not a list`);
      items.push(...page.items);
      const meta = isRecord(page.metadata) ? page.metadata : {};
      continueToken = typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
      listVersion = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
    } while (continueToken !== undefined);
    if (this.stopped) return;
    this.replaceAll(items);
    this.resourceVersion = listVersion;
    this.counters.lists++;
    if (!this.synced) {
      this.synced = true;
      for (const waiter of this.syncWaiters.splice(0)) waiter.resolve();
    }
  }

  /** Replaces the cache with a list's items; notifies only keys whose state changed. */
  private replaceAll(items: unknown[]): void {
    const cache = new Map<string, CacheEntry<T>>();
    const invalid = new Map<string, InvalidObject>();
    const changed: string[] = [];
    const newlyInvalid: string[] = [];
    for (const raw of items) {
      const meta = metadataOf(raw);
      if (!meta) continue;
      const key = objectKey(meta.name, meta.namespace);
      const rv = meta.resourceVersion;
      const old = this.cache.get(key);
      try {
        const object = this.parse(raw);
        cache.set(key, { object, ...(rv !== undefined && { resourceVersion: rv }) });
        if (!old || old.resourceVersion === undefined || old.resourceVersion !== rv) changed.push(key);
      } catch (error) {
        invalid.set(key, { error, ...(rv !== undefined && { resourceVersion: rv }) });
        const wasInvalid = this.invalidObjects.get(key);
        if (!wasInvalid || wasInvalid.resourceVersion !== rv) {
          newlyInvalid.push(key);
          changed.push(key);
        }
      }
    }
    for (const key of new Set([...this.cache.keys(), ...this.invalidObjects.keys()])) {
      if (!cache.has(key) && !invalid.has(key)) changed.push(key);
    }
    this.cache = cache;
    this.invalidObjects = invalid;
    for (const key of newlyInvalid) this.callHandler('onInvalid', key, invalid.get(key)!.error);
    for (const key of changed) this.callHandler('onChange', key);
  }

  private applyEvent(type: string, raw: unknown): void {
    const meta = metadataOf(raw);
    if (!meta) {
      this.log.warn({ informer: this.name, type }, 'watch event without object metadata; ignored');
      return;
    }
    const key = objectKey(meta.name, meta.namespace);
    const rv = meta.resourceVersion;
    if (type === 'DELETED') {
      const wasValid = this.cache.delete(key);
      const wasInvalid = this.invalidObjects.delete(key);
      if (wasValid || wasInvalid) this.callHandler('onChange', key);
      return;
    }
    const old = this.cache.get(key);
    if (old && rv !== undefined && old.resourceVersion === rv) return;
    try {
      const object = this.parse(raw);
      this.cache.set(key, { object, ...(rv !== undefined && { resourceVersion: rv }) });
      this.invalidObjects.delete(key);
    } catch (error) {
      this.cache.delete(key);
      this.invalidObjects.set(key, { error, ...(rv !== undefined && { resourceVersion: rv }) });
      this.callHandler('onInvalid', key, error);
    }
    this.callHandler('onChange', key);
  }

  /** One watch from the current resourceVersion, until it ends one way or another. */
  private watchOnce(): Promise<WatchEnd> {
    return new Promise<WatchEnd>((resolve) => {
      let settled = false;
      let events = 0;
      let controller: AbortController | undefined;
      let watchdog: NodeJS.Timeout | undefined;
      const staleAfterMs = this.options.staleAfterMs ?? DEFAULT_STALE_MS;
      const finish = (end: WatchEnd): void => {
        if (settled) return;
        settled = true;
        clearTimeout(watchdog);
        this.watching = false;
        this.abortWatch = undefined;
        controller?.abort();
        resolve(end);
      };
      const armWatchdog = (): void => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => finish({ kind: 'stale' }), staleAfterMs);
        watchdog.unref();
      };
      this.abortWatch = () => finish({ kind: 'stopped' });
      if (this.stopped) return finish({ kind: 'stopped' });
      armWatchdog();
      this.counters.watches++;
      const timeoutSeconds = this.options.watchTimeoutSeconds ?? Math.floor(300 + Math.random() * 300);
      const onEvent = (type: string, obj: unknown): void => {
        if (settled) return;
        this.watching = true;
        armWatchdog();
        if (type === 'ERROR') {
          const status = statusFromBody(isRecord(obj) && typeof obj.code === 'number' ? obj.code : 500, obj);
          const error = apiErrorFor(`WATCH ${this.path}`, status);
          finish(isGoneError(error) ? { kind: 'gone', error } : { kind: 'failed', error, events });
          return;
        }
        events++;
        // Bookmarks carry only metadata.resourceVersion (no name).
        const rv = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata.resourceVersion : undefined;
        if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') this.applyEvent(type, obj);
        if (typeof rv === 'string' && rv !== '') this.resourceVersion = rv;
      };
      const onDone = (err: unknown): void => {
        if (settled) return;
        if (!err) return finish({ kind: 'closed', events });
        const code = (err as { statusCode?: unknown }).statusCode;
        const error =
          typeof code === 'number'
            ? apiErrorFor(`WATCH ${this.path}`, { code, message: (err as Error).message })
            : transportError(`WATCH ${this.path}`, err);
        finish(error instanceof GoneError ? { kind: 'gone', error } : { kind: 'failed', error, events });
      };
      new Watch(this.options.kc)
        .watch(
          this.path,
          {
            resourceVersion: this.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds,
            labelSelector: this.labelSelector,
            fieldSelector: this.options.fieldSelector,
          },
          onEvent,
          onDone,
        )
        .then(
          (c) => {
            controller = c;
            if (settled) c.abort();
            else this.watching = true;
          },
          (error: unknown) => onDone(error ?? new Error('watch failed')),
        );
    });
  }

  private resync(): void {
    if (!this.synced || this.stopped) return;
    for (const key of this.cache.keys()) this.callHandler('onChange', key);
  }

  private callHandler(handler: 'onChange' | 'onInvalid', key: string, error?: unknown): void {
    if (this.stopped) return;
    const report = (err: unknown): void =>
      this.log.error({ informer: this.name, key, handler, err }, 'informer handler failed');
    try {
      const result =
        handler === 'onChange' ? this.options.onChange?.(key) : this.options.onInvalid?.(key, error);
      if (result && typeof (result as Promise<void>).then === 'function')
        (result as Promise<void>).then(undefined, report);
    } catch (err) {
      report(err);
    }
  }
}
