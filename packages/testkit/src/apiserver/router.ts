// HTTP front of the test API server: authentication, RBAC, routing of kube's URL layout to
// discovery, OpenAPI, list/watch and the registry operations, content negotiation (JSON, Table,
// PartialObjectMetadata) and Status bodies for errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import {
  authorize,
  forbiddenMessage,
  type RbacSource,
  type RequestAttributes,
  type TokenAuthenticator,
  type UserInfo,
} from './auth.js';
import {
  AGGREGATED_DISCOVERY,
  aggregatedDiscovery,
  coreVersions,
  group,
  groupList,
  openApiV2,
  openApiV3,
  openApiV3Index,
  resourceList,
  SERVER_VERSION,
} from './discovery.js';
import { ApiError, badRequest, isApiError, statusObject } from './errors.js';
import { OPENAPI_V2_PROTOBUF, openApiV2Protobuf } from './openapi-proto.js';
import { isObject, type JsonObject, type JsonValue } from './json.js';
import { list, matches, parseFilter, watch, type WatchFormat } from './list.js';
import { apiVersionOf, resourceKey, type ResourceRegistry, type ResourceType } from './resources.js';
import type { FieldValidation, PatchType, RestStorage, WriteOptions } from './rest.js';
import type { Store } from './store.js';
import { partialMetadata, table, tableRow, tableColumns, type IncludeObject } from './table.js';

export interface RouterOptions {
  store: Store;
  registry: ResourceRegistry;
  rest: RestStorage;
  authenticator: TokenAuthenticator;
  rbac: RbacSource | undefined;
  bookmarkIntervalMs: number;
  /** Every open watch registers its closer here (cut on stop and compaction). */
  watches: Set<() => void>;
}

interface ResourcePath {
  type: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

type Route =
  | {
      kind: 'document';
      body: () => JsonObject | undefined;
      /** The aggregated form of /api and /apis, for clients that ask for it. */
      aggregated?: () => JsonObject;
      protobuf?: (doc: JsonObject) => Buffer;
    }
  | { kind: 'resource'; path: ResourcePath }
  | { kind: 'notFound' };

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The `as=` form asked for in Accept (Table, PartialObjectMetadata[List]), when JSON. */
function acceptedAs(accept: string | undefined): string | undefined {
  for (const part of (accept ?? '').split(',')) {
    const params = new Map(
      part
        .split(';')
        .slice(1)
        .map((p) => p.trim().split('=') as [string, string]),
    );
    const type = mediaType(part);
    if (type !== 'application/json') continue;
    const as = params.get('as');
    if (as === undefined) return undefined;
    if (params.get('g') === 'meta.k8s.io' && params.get('v') === 'v1') return as;
  }
  return undefined;
}

/** What a watch event carries in the form the client asked for (Table rows, metadata only, objects). */
function watchEventFormat(t: ResourceType, as: string | undefined, include: IncludeObject): WatchFormat {
  return (eventType, obj, first) => {
    if (eventType === 'ERROR' || eventType === 'BOOKMARK') return obj;
    if (as === 'Table') {
      const resourceVersion = isObject(obj.metadata) ? obj.metadata.resourceVersion : '';
      return {
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { resourceVersion: String(resourceVersion) },
        // The real server sends the column definitions with the first event only.
        ...(first ? { columnDefinitions: tableColumns(t) } : {}),
        rows: [tableRow(t, obj, include)],
      };
    }
    return as === 'PartialObjectMetadata' ? partialMetadata(obj) : obj;
  };
}

/** The RBAC verb of a request on a resource path; undefined when kube would answer 405. */
function requestVerb(method: string, named: boolean, isWatch: boolean): string | undefined {
  switch (method) {
    case 'GET':
      return named ? 'get' : isWatch ? 'watch' : 'list';
    case 'POST':
      return named ? undefined : 'create';
    case 'PUT':
      return named ? 'update' : undefined;
    case 'PATCH':
      return named ? 'patch' : undefined;
    case 'DELETE':
      return named ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => {
    const params = part.split(';').map((p) => p.trim());
    return (
      params.includes('g=apidiscovery.k8s.io') &&
      params.includes('v=v2') &&
      params.includes('as=APIGroupDiscoveryList')
    );
  });
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((p) => ['application/json', 'application/*', '*/*'].includes(mediaType(p)));
}

export class Router {
  constructor(private readonly o: RouterOptions) {}

  private route(pathname: string): Route {
    const seg = pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
    const { registry } = this.o;
    const doc = (body: () => JsonObject | undefined): Route => ({ kind: 'document', body });
    if (seg[0] === 'version' && seg.length === 1) return doc(() => SERVER_VERSION);
    if (['healthz', 'livez', 'readyz'].includes(seg[0] ?? '')) return doc(() => undefined);
    if (seg[0] === 'openapi') {
      if (seg[1] === 'v2' && seg.length === 2) {
        return { kind: 'document', body: () => openApiV2(registry), protobuf: openApiV2Protobuf };
      }
      if (seg[1] === 'v3' && seg.length === 2) return doc(() => openApiV3Index(registry));
      if (seg[1] === 'v3' && seg[2] === 'api' && seg.length === 4)
        return doc(() => openApiV3(registry, '', seg[3]!));
      if (seg[1] === 'v3' && seg[2] === 'apis' && seg.length === 5)
        return doc(() => openApiV3(registry, seg[3]!, seg[4]!));
      return { kind: 'notFound' };
    }
    let groupName: string;
    let version: string | undefined;
    let rest: string[];
    if (seg[0] === 'api') {
      if (seg.length === 1) {
        return {
          kind: 'document',
          body: () => coreVersions(''),
          aggregated: () => aggregatedDiscovery(registry, true),
        };
      }
      groupName = '';
      version = seg[1];
      rest = seg.slice(2);
    } else if (seg[0] === 'apis') {
      if (seg.length === 1) {
        return {
          kind: 'document',
          body: () => groupList(registry),
          aggregated: () => aggregatedDiscovery(registry, false),
        };
      }
      if (seg.length === 2) return doc(() => group(registry, seg[1]!));
      groupName = seg[1]!;
      version = seg[2];
      rest = seg.slice(3);
    } else return { kind: 'notFound' };
    if (version === undefined) return { kind: 'notFound' };
    if (rest.length === 0) return doc(() => resourceList(registry, groupName, version));
    let namespace: string | undefined;
    if (
      rest[0] === 'namespaces' &&
      rest.length >= 3 &&
      registry.get(groupName, version, rest[2]!)?.namespaced
    ) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const type = registry.get(groupName, version, rest[0]!);
    if (!type || rest.length > 3 || (type.namespaced && namespace === undefined && rest.length > 1))
      return { kind: 'notFound' };
    return { kind: 'resource', path: { type, namespace, name: rest[1], subresource: rest[2] } };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://apiserver');
    const user = this.o.authenticator.authenticate(req.headers.authorization);
    try {
      if (!user) {
        this.send(res, 401, statusObject('Failure', 'Unauthorized', 'Unauthorized', 401));
        return;
      }
      const route = this.route(url.pathname);
      if (route.kind === 'notFound')
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
      if (route.kind === 'document') {
        this.authorizeOrThrow(user, {
          verb: req.method === 'GET' ? 'get' : String(req.method).toLowerCase(),
          path: url.pathname,
        });
        if (req.method !== 'GET') {
          throw new ApiError(
            405,
            'MethodNotAllowed',
            'the server does not allow this method on the requested resource',
          );
        }
        if (route.aggregated && wantsAggregatedDiscovery(req.headers.accept)) {
          res
            .writeHead(200, { 'Content-Type': AGGREGATED_DISCOVERY })
            .end(JSON.stringify(route.aggregated()));
          return;
        }
        const body = route.body();
        if (route.protobuf && body && (req.headers.accept ?? '').includes(OPENAPI_V2_PROTOBUF)) {
          // kube-openapi serves the protobuf form as octet-stream (Go's mime parser refuses the '@' type).
          res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(route.protobuf(body));
          return;
        }
        if (!acceptsJson(req.headers.accept)) {
          throw new ApiError(406, 'NotAcceptable', 'only application/json is served');
        }
        if (body === undefined && !['/healthz', '/livez', '/readyz'].includes(url.pathname)) {
          throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
        }
        if (body === undefined) {
          res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
          return;
        }
        this.send(res, 200, body);
        return;
      }
      await this.handleResource(req, res, url, user, route.path);
    } catch (err) {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (isApiError(err)) this.send(res, err.code, err.toStatus());
      else this.send(res, 500, statusObject('Failure', (err as Error).message, 'InternalError', 500));
    }
  }

  private authorizeOrThrow(user: UserInfo, a: RequestAttributes): void {
    if (!this.o.rbac || authorize(this.o.rbac, user, a)) return;
    throw new ApiError(403, 'Forbidden', forbiddenMessage(user, a), {
      ...(a.name ? { name: a.name } : {}),
      ...(a.apiGroup !== undefined ? { group: a.apiGroup } : {}),
      ...(a.resource ? { kind: a.resource } : {}),
    });
  }

  private send(res: ServerResponse, code: number, body: JsonObject, warnings: string[] = []): void {
    const headers: Record<string, string | string[]> = {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    };
    if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    res.writeHead(code, headers).end(JSON.stringify(body));
  }

  private async readBody(req: IncomingMessage): Promise<{ text: string; value: JsonValue | undefined }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return { text, value: undefined };
    const type = mediaType(req.headers['content-type']);
    if (type.includes('protobuf') || type.includes('cbor')) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
      );
    }
    try {
      return { text, value: (type.includes('yaml') ? parseYaml(text) : JSON.parse(text)) as JsonValue };
    } catch (err) {
      throw badRequest(`the body of the request could not be decoded: ${(err as Error).message}`);
    }
  }

  private async handleResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    user: UserInfo,
    p: ResourcePath,
  ): Promise<void> {
    const { type: t, name, subresource } = p;
    const q = url.searchParams;
    const namespace = p.namespace ?? '';
    const method = req.method ?? 'GET';
    const isWatch = q.get('watch') === 'true' || q.get('watch') === '1';
    const verb = requestVerb(method, name !== undefined, isWatch);
    if (verb === undefined) {
      throw new ApiError(
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
    }
    let fieldName = name;
    if (name === undefined && verb !== 'create') {
      const selected = /(^|,)metadata\.name=([^,]+)/.exec(q.get('fieldSelector') ?? '');
      fieldName = selected?.[2];
    }
    this.authorizeOrThrow(user, {
      verb,
      apiGroup: t.group,
      resource: t.plural,
      ...(subresource ? { subresource } : {}),
      ...(fieldName !== undefined ? { name: fieldName } : {}),
      ...(p.namespace !== undefined ? { namespace: p.namespace } : {}),
    });
    const as = acceptedAs(req.headers.accept);
    if (!acceptsJson(req.headers.accept))
      throw new ApiError(406, 'NotAcceptable', 'only application/json is served');
    const include = (q.get('includeObject') ?? 'Metadata') as IncludeObject;
    const respondObject = (code: number, obj: JsonObject, warnings: string[] = []): void => {
      if (as === 'Table' && obj.kind !== 'Status')
        this.send(res, code, table(t, [obj], { resourceVersion: '' }, include), warnings);
      else if (as === 'PartialObjectMetadata') this.send(res, code, partialMetadata(obj));
      else this.send(res, code, obj, warnings);
    };
    const writeOptions = (): WriteOptions => ({
      dryRun: q.get('dryRun') === 'All',
      fieldValidation: (q.get('fieldValidation') ?? 'Warn') as FieldValidation,
      warnings: [],
    });
    const { rest, store } = this.o;

    switch (verb) {
      case 'get':
        respondObject(200, rest.get(t, namespace, name!));
        return;
      case 'list': {
        const filter = parseFilter(t, p.namespace, q);
        const result = list(store, t, filter, q);
        if (as === 'Table') this.send(res, 200, table(t, result.items, result.metadata, include));
        else if (as === 'PartialObjectMetadataList') {
          this.send(res, 200, {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: result.metadata,
            items: result.items.map(partialMetadata),
          });
        } else
          this.send(res, 200, {
            kind: t.listKind,
            apiVersion: apiVersionOf(t),
            metadata: result.metadata,
            items: result.items,
          });
        return;
      }
      case 'watch': {
        const filter = parseFilter(t, p.namespace, q);
        const close = watch(store, t, filter, q, res, {
          bookmarkIntervalMs: this.o.bookmarkIntervalMs,
          defaultTimeoutSeconds: 1800,
          format: watchEventFormat(t, as, include),
        });
        this.o.watches.add(close);
        res.on('close', () => this.o.watches.delete(close));
        return;
      }
      case 'create': {
        const { value } = await this.readBody(req);
        const opts = writeOptions();
        respondObject(201, rest.create(t, namespace, value ?? null, opts), opts.warnings);
        return;
      }
      case 'update': {
        const { value } = await this.readBody(req);
        const opts = writeOptions();
        respondObject(200, rest.update(t, namespace, name!, value ?? null, subresource, opts), opts.warnings);
        return;
      }
      case 'patch': {
        const patchType = PATCH_TYPES[mediaType(req.headers['content-type'])];
        if (!patchType) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: ${Object.keys(PATCH_TYPES).join(', ')}`,
          );
        }
        const { value } = await this.readBody(req);
        const opts = writeOptions();
        if (patchType === 'apply')
          opts.fieldValidation = (q.get('fieldValidation') ?? 'Strict') as FieldValidation;
        const created =
          patchType === 'apply' && !store.get(resourceKey(t), t.namespaced ? namespace : '', name!);
        respondObject(
          created ? 201 : 200,
          rest.patch(t, namespace, name!, patchType, value ?? {}, subresource, opts),
          opts.warnings,
        );
        return;
      }
      case 'delete': {
        const { value } = await this.readBody(req);
        const options: JsonObject = isObject(value) ? value : {};
        for (const key of ['propagationPolicy', 'gracePeriodSeconds'] as const) {
          const v = q.get(key);
          if (v !== null && options[key] === undefined)
            options[key] = key === 'gracePeriodSeconds' ? Number(v) : v;
        }
        respondObject(200, rest.delete(t, namespace, name!, options, q.get('dryRun') === 'All'));
        return;
      }
      case 'deletecollection': {
        const { value } = await this.readBody(req);
        const filter = parseFilter(t, p.namespace, q);
        const victims = store.list(resourceKey(t), p.namespace).filter((o) => matches(filter, o));
        for (const obj of victims) {
          const m = isObject(obj.metadata) ? obj.metadata : {};
          rest.delete(
            t,
            typeof m.namespace === 'string' ? m.namespace : '',
            String(m.name),
            value,
            q.get('dryRun') === 'All',
          );
        }
        this.send(res, 200, statusObject('Success', undefined, undefined, 200, {}));
        return;
      }
    }
  }
}
