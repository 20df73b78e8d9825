// List and watch over the store, with kube's resourceVersion semantics, label/field selectors,
// limit/continue pagination and the watch event stream (bookmarks, timeouts, 410 as an ERROR event).
import type { ServerResponse } from 'node:http';
import { ApiError, badRequest, expired } from './errors.js';
import { isObject, type JsonObject } from './json.js';
import { asVersion } from './rest.js';
import { apiVersionOf, CRD_TYPE, resourceKey, type ResourceType } from './resources.js';
import {
  matchFields,
  matchLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelRequirement,
} from './selectors.js';
import { objectKey, type Store, type StoredEvent } from './store.js';

export interface Filter {
  namespace: string | undefined;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

export function parseFilter(t: ResourceType, namespace: string | undefined, query: URLSearchParams): Filter {
  const supported = ['metadata.name', ...(t.namespaced ? ['metadata.namespace'] : []), ...t.fieldLabels];
  return {
    namespace,
    labels: parseLabelSelector(query.get('labelSelector') ?? undefined),
    fields: parseFieldSelector(query.get('fieldSelector') ?? undefined, supported),
  };
}

export function matches(filter: Filter, obj: JsonObject): boolean {
  const m = isObject(obj.metadata) ? obj.metadata : {};
  if (filter.namespace !== undefined && m.namespace !== filter.namespace) return false;
  return (
    matchLabels(filter.labels, isObject(m.labels) ? m.labels : undefined) && matchFields(filter.fields, obj)
  );
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(value: string): ContinueToken {
  try {
    const token = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as ContinueToken;
    if (typeof token.rv === 'number' && typeof token.start === 'string') return token;
  } catch {
    // reported below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

function parseRv(value: string | null, what = 'resourceVersion'): number | undefined {
  if (value === null || value === '') return undefined;
  if (!/^\d+$/.test(value)) throw badRequest(`invalid ${what}: ${value}`);
  return Number(value);
}

export interface ListResult {
  items: JsonObject[];
  metadata: JsonObject;
}

/** GET on a collection: the state at the version asked for, filtered, one page at a time. */
export function list(store: Store, t: ResourceType, filter: Filter, query: URLSearchParams): ListResult {
  const limit = parseRv(query.get('limit'), 'limit') ?? 0;
  const continueParam = query.get('continue');
  const rvParam = parseRv(query.get('resourceVersion'));
  const match = query.get('resourceVersionMatch');
  let atRv: number | undefined;
  let start = '';
  if (continueParam) {
    if (rvParam !== undefined && rvParam !== 0)
      throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(continueParam);
    if (token.rv < store.oldestAvailable) {
      throw expired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
    atRv = token.rv;
    start = token.start;
  } else if (rvParam !== undefined && rvParam !== 0) {
    if (rvParam > store.resourceVersion) {
      throw new ApiError(
        504,
        'Timeout',
        `Timeout: Too large resource version: ${rvParam}, current: ${store.resourceVersion}`,
      );
    }
    // Exact reads: asked for, or (legacy) a paginated list from a given version.
    if (match === 'Exact' || (match === null && limit > 0)) atRv = rvParam;
  }
  const snapshotRv = atRv ?? store.resourceVersion;
  const all = store.list(resourceKey(t), filter.namespace, atRv).filter((o) => matches(filter, o));
  const remaining = all.filter((o) => start === '' || objectKey(o) > start);
  const page = limit > 0 ? remaining.slice(0, limit) : remaining;
  const metadata: JsonObject = { resourceVersion: String(snapshotRv) };
  if (limit > 0 && remaining.length > page.length) {
    metadata.continue = encodeContinue({ rv: snapshotRv, start: objectKey(page[page.length - 1]!) });
    if (filter.labels.length === 0 && filter.fields.length === 0)
      metadata.remainingItemCount = remaining.length - page.length;
  }
  return { items: page.map((o) => asVersion(t, o)), metadata };
}

function isDeletionOfCrd(event: StoredEvent, t: ResourceType): boolean {
  return (
    t.crdName !== undefined &&
    event.type === 'DELETED' &&
    event.resource === resourceKey(CRD_TYPE) &&
    isObject(event.object.metadata) &&
    event.object.metadata.name === t.crdName
  );
}

export type WatchFormat = (type: string, obj: JsonObject, first: boolean) => JsonObject;

export interface WatchOptions {
  bookmarkIntervalMs: number;
  defaultTimeoutSeconds: number;
  format: WatchFormat;
}

/**
 * A watch: the response is a chunked stream of `{"type":...,"object":...}\n` lines, as the real
 * server writes them. Returns a function that ends the stream (server stop, compaction).
 */
export function watch(
  store: Store,
  t: ResourceType,
  filter: Filter,
  query: URLSearchParams,
  res: ServerResponse,
  options: WatchOptions,
): () => void {
  const rv = parseRv(query.get('resourceVersion'));
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  const sendInitialEvents = query.get('sendInitialEvents');
  const timeoutSeconds =
    parseRv(query.get('timeoutSeconds'), 'timeoutSeconds') ?? options.defaultTimeoutSeconds;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  let first = true;
  let ended = false;
  const send = (type: string, obj: JsonObject): void => {
    if (ended) return;
    res.write(`${JSON.stringify({ type, object: options.format(type, obj, first) })}\n`);
    first = false;
  };
  const bookmark = (annotations?: JsonObject): void =>
    send('BOOKMARK', {
      kind: t.kind,
      apiVersion: apiVersionOf(t),
      metadata: { resourceVersion: String(store.resourceVersion), ...(annotations ? { annotations } : {}) },
    });
  let unsubscribe: () => void = () => undefined;
  const timers: NodeJS.Timeout[] = [];
  const end = (): void => {
    if (ended) return;
    ended = true;
    unsubscribe();
    for (const timer of timers) clearTimeout(timer);
    res.end();
  };
  res.on('close', end);
  const onEvent = (event: StoredEvent): void => {
    if (isDeletionOfCrd(event, t)) {
      // The kind is no longer served: the real server ends its watches too.
      queueMicrotask(end);
      return;
    }
    if (event.resource !== resourceKey(t)) return;
    const now = matches(filter, event.object);
    const before = event.previous !== undefined && matches(filter, event.previous);
    const object = asVersion(t, event.object);
    if (event.type === 'DELETED') {
      if (before) send('DELETED', object);
    } else if (now && before) send('MODIFIED', object);
    else if (now) send('ADDED', object);
    else if (before) send('DELETED', object);
  };
  try {
    if (rv === undefined || rv === 0) {
      const from = store.resourceVersion;
      if (sendInitialEvents !== 'false') {
        for (const obj of store.list(resourceKey(t), filter.namespace))
          if (matches(filter, obj)) send('ADDED', asVersion(t, obj));
      }
      if (sendInitialEvents === 'true' && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
      unsubscribe = store.watch(from, onEvent);
    } else {
      unsubscribe = store.watch(rv, onEvent);
    }
  } catch (err) {
    if (err instanceof ApiError) {
      send('ERROR', err.toStatus());
      end();
      return end;
    }
    throw err;
  }
  if (bookmarks) {
    const tick = (): void => {
      bookmark();
      timers[0] = setTimeout(tick, options.bookmarkIntervalMs);
    };
    timers[0] = setTimeout(tick, options.bookmarkIntervalMs);
  }
  timers.push(setTimeout(end, timeoutSeconds * 1000));
  return end;
}
