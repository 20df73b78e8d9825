import { z } from 'zod';
import { InvalidArgumentError } from './errors.js';

/** A resource of the API: `group` is `''` for the core group (`/api/v1/nodes`). */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  /** The resource's plural name, as in the URL: `vrfs`, `nodes`, `nodenetworkstatuses`. */
  readonly plural: string;
}

/** The Node resource (core group). */
export const NODES: GroupVersionResource = { group: '', version: 'v1', plural: 'nodes' };
/** Core v1 Events. */
export const EVENTS: GroupVersionResource = { group: '', version: 'v1', plural: 'events' };

/**
 * Turns raw JSON from the server into a typed object, throwing when it does not fit: a function, or
 * anything with a `parse` method (a zod schema).
 */
export type Parser<T> = ((raw: unknown) => T) | { parse(raw: unknown): T };

export function parserFunction<T>(parser: Parser<T>): (raw: unknown) => T {
  return typeof parser === 'function' ? parser : (raw) => parser.parse(raw);
}

/** The metadata fields this package reads from every object (others pass through untouched). */
export const ObjectMeta = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  deletionTimestamp: z.string().optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

/** What every Kubernetes object has: its metadata. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

const RawObject = z.looseObject({ metadata: ObjectMeta });

/** The metadata of a raw object, or undefined when it has none usable (no name). */
export function metadataOf(raw: unknown): ObjectMeta | undefined {
  const parsed = RawObject.safeParse(raw);
  return parsed.success ? parsed.data.metadata : undefined;
}

/** The cache key of an object: `name` for cluster-scoped objects, `namespace/name` otherwise (client-go's). */
export function objectKey(name: string, namespace?: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** The inverse of {@link objectKey}. */
export function splitObjectKey(key: string): { name: string; namespace?: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

// A path segment must never smuggle in `/` or `..`: names of objects are DNS subdomains (or at
// least path segment names, for custom resources) as the API server validates them.
const PATH_SEGMENT = /^[A-Za-z0-9]([-A-Za-z0-9_.:]*[A-Za-z0-9])?$/;

function segment(value: string, field: string): string {
  if (!PATH_SEGMENT.test(value) || value === '.' || value === '..') {
    throw new InvalidArgumentError(field, `${JSON.stringify(value)} is not a valid name`);
  }
  return value;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
function groupVersionPath(gvr: GroupVersionResource): string {
  const version = segment(gvr.version, 'version');
  return gvr.group === '' ? `/api/${version}` : `/apis/${segment(gvr.group, 'group')}/${version}`;
}

/** The collection path (list, watch, create) of a resource, in a namespace or cluster-wide. */
export function collectionPath(gvr: GroupVersionResource, namespace?: string): string {
  const ns = namespace === undefined ? '' : `/namespaces/${segment(namespace, 'namespace')}`;
  return `${groupVersionPath(gvr)}${ns}/${segment(gvr.plural, 'plural')}`;
}

/** The path of one object, or of its subresource (`status`). */
export function objectPath(
  gvr: GroupVersionResource,
  name: string,
  namespace?: string,
  subresource?: 'status',
): string {
  return `${collectionPath(gvr, namespace)}/${segment(name, 'name')}${subresource ? `/${subresource}` : ''}`;
}

/** `network.fabrik.dev/v1alpha1`, or `v1` for the core group. */
export function apiVersionOf(gvr: GroupVersionResource): string {
  return gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`;
}
