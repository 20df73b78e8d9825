import type { KubeConfig } from '@kubernetes/client-node';
import { ObjectSchemaError } from './errors.js';
import {
  collectionPath,
  metadataOf,
  objectKey,
  objectPath,
  parserFunction,
  type GroupVersionResource,
  type KubeObject,
  type Parser,
} from './resource.js';
import { isRecord, PATCH_CONTENT_TYPE, restClientFor, type PatchType } from './rest.js';
import { formatLabelSelector, type LabelSelector } from './selector.js';

// Typed get/list/create/replace/patch/delete of one resource. Every object the server returns goes
// through the caller's `parse`; a resourceVersion in a replaced object is a precondition (409 ->
// ConflictError), which is how fabrik-ipam updates IPPool status without losing a concurrent
// allocation.

export interface CustomObjectsOptions {
  /** Per-request timeout (default 30 s); an expired request fails with UnreachableError. */
  readonly timeoutMs?: number;
  /** Sent as `fieldManager` on writes (server-side field ownership). */
  readonly fieldManager?: string;
  /**
   * Reuse one connection (one TLS handshake) for the requests of this client, instead of one per
   * request; GET, PUT and DELETE that meet a connection the server has closed are sent once more.
   * Default false.
   */
  readonly keepAlive?: boolean;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string | LabelSelector;
  readonly fieldSelector?: string;
}

export interface ListResult<T> {
  readonly items: T[];
  /** Objects `parse` refused, by key, with the error. */
  readonly invalid: { key: string; error: unknown }[];
  readonly resourceVersion: string;
}

export interface PatchOptions {
  readonly namespace?: string;
  /**
   * `merge` (default: works for every resource), `json`, `strategic` (built-in kinds only), or
   * `apply` (server-side apply, with the client's fieldManager).
   */
  readonly type?: PatchType;
  /** Server-side apply: take over the fields other managers own instead of failing with 409. */
  readonly force?: boolean;
}

export interface DeleteOptions {
  readonly namespace?: string;
  /** Delete only if the object is still at this resourceVersion (409 otherwise). */
  readonly resourceVersion?: string;
  /** Delete only if the object is still this one (not a re-created namesake). */
  readonly uid?: string;
}

export interface CustomObjects<T> {
  /** The object; NotFoundError when there is none. */
  get(name: string, namespace?: string): Promise<T>;
  /** Every object (all pages). */
  list(options?: ListOptions): Promise<ListResult<T>>;
  /** AlreadyExistsError when the name is taken. */
  create(object: KubeObject): Promise<T>;
  /** PUT of the whole object; its `metadata.resourceVersion` is a precondition (ConflictError). */
  replace(object: KubeObject): Promise<T>;
  /** PUT of the status subresource; `metadata.resourceVersion` is a precondition (ConflictError). */
  replaceStatus(object: KubeObject): Promise<T>;
  patch(name: string, patch: unknown, options?: PatchOptions): Promise<T>;
  patchStatus(name: string, patch: unknown, options?: PatchOptions): Promise<T>;
  /** Deletes; NotFoundError when there is none. */
  delete(name: string, options?: DeleteOptions): Promise<void>;
}

/**
 * Typed access to one resource (`group: ''` for core kinds such as nodes). Errors are the typed
 * errors of this package (NotFoundError, ConflictError, InvalidError with field causes,
 * UnreachableError, ...); a returned object that `parse` refuses is an ObjectSchemaError.
 */
export function customObjects<T>(
  kc: KubeConfig,
  gvr: GroupVersionResource,
  parse: Parser<T>,
  options: CustomObjectsOptions = {},
): CustomObjects<T> {
  const rest = restClientFor(kc, { keepAlive: options.keepAlive ?? false });
  const parseFn = parserFunction(parse);
  const timeoutMs = options.timeoutMs;
  const writeQuery = { fieldManager: options.fieldManager };

  const typed = (raw: unknown): T => {
    const meta = metadataOf(raw);
    try {
      return parseFn(raw);
    } catch (error) {
      throw new ObjectSchemaError(meta ? objectKey(meta.name, meta.namespace) : '(unnamed)', {
        cause: error,
      });
    }
  };
  const request = async (req: Parameters<typeof rest.request>[0]): Promise<unknown> =>
    rest.request({ ...req, ...(timeoutMs !== undefined && { timeoutMs }) });
  const pathOf = (object: KubeObject, subresource?: 'status'): string =>
    objectPath(gvr, object.metadata.name, object.metadata.namespace, subresource);

  return {
    get: async (name, namespace) =>
      typed(await request({ method: 'GET', path: objectPath(gvr, name, namespace) })),

    list: async (listOptions = {}) => {
      const labelSelector =
        typeof listOptions.labelSelector === 'object'
          ? formatLabelSelector(listOptions.labelSelector, 'labelSelector')
          : listOptions.labelSelector;
      const items: T[] = [];
      const invalid: { key: string; error: unknown }[] = [];
      let continueToken: string | undefined;
      let resourceVersion = '';
      do {
        const page = await request({
          method: 'GET',
          path: collectionPath(gvr, listOptions.namespace),
          query: {
            labelSelector: labelSelector || undefined,
            fieldSelector: listOptions.fieldSelector,
            limit: 500,
            continue: continueToken,
          },
        });
        if (!isRecord(page) || !Array.isArray(page.items))
          throw new Error(`list ${collectionPath(gvr)}: not a list`);
        for (const raw of page.items) {
          const meta = metadataOf(raw);
          try {
            items.push(parseFn(raw));
          } catch (error) {
            invalid.push({ key: meta ? objectKey(meta.name, meta.namespace) : '(unnamed)', error });
          }
        }
        const meta = isRecord(page.metadata) ? page.metadata : {};
        continueToken = typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined;
        resourceVersion = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
      } while (continueToken !== undefined);
      return { items, invalid, resourceVersion };
    },

    create: async (object) =>
      typed(
        await request({
          method: 'POST',
          path: collectionPath(gvr, object.metadata.namespace),
          query: writeQuery,
          body: object,
        }),
      ),

    replace: async (object) =>
      typed(await request({ method: 'PUT', path: pathOf(object), query: writeQuery, body: object })),

    replaceStatus: async (object) =>
      typed(
        await request({ method: 'PUT', path: pathOf(object, 'status'), query: writeQuery, body: object }),
      ),

    patch: async (name, patch, patchOptions = {}) =>
      typed(
        await request({
          method: 'PATCH',
          path: objectPath(gvr, name, patchOptions.namespace),
          query: { ...writeQuery, force: patchOptions.force },
          body: patch,
          contentType: PATCH_CONTENT_TYPE[patchOptions.type ?? 'merge'],
        }),
      ),

    patchStatus: async (name, patch, patchOptions = {}) =>
      typed(
        await request({
          method: 'PATCH',
          path: objectPath(gvr, name, patchOptions.namespace, 'status'),
          query: writeQuery,
          body: patch,
          contentType: PATCH_CONTENT_TYPE[patchOptions.type ?? 'merge'],
        }),
      ),

    delete: async (name, deleteOptions = {}) => {
      const preconditions = {
        ...(deleteOptions.resourceVersion !== undefined && {
          resourceVersion: deleteOptions.resourceVersion,
        }),
        ...(deleteOptions.uid !== undefined && { uid: deleteOptions.uid }),
      };
      await request({
        method: 'DELETE',
        path: objectPath(gvr, name, deleteOptions.namespace),
        ...(Object.keys(preconditions).length > 0 && {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions },
        }),
      });
    },
  };
}
