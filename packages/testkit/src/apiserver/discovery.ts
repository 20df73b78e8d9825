// Discovery documents (/api, /apis, /apis/<group>[/<version>]) and OpenAPI (v3 per group-version,
// v2 in JSON) generated from the served resource types, so kubectl can map kinds to resources,
// validate with fieldValidation and `explain`.
import { createHash } from 'node:crypto';
import { isObject, type JsonObject, type JsonValue } from './json.js';
import type { ResourceRegistry, ResourceType } from './resources.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.23.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function apiResources(types: ResourceType[]): JsonObject[] {
  return types.flatMap((t) => {
    const main: JsonObject = {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: VERBS,
      ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length ? { categories: t.categories } : {}),
      storageVersionHash: createHash('sha256').update(`${t.group}/${t.plural}`).digest('base64').slice(0, 11),
    };
    const status: JsonObject = {
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    };
    return t.hasStatus ? [main, status] : [main];
  });
}

export function coreVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(g: { group: string; versions: string[]; preferred: string }): JsonObject {
  const gv = (v: string): JsonObject => ({ groupVersion: `${g.group}/${v}`, version: v });
  return { name: g.group, versions: g.versions.map(gv), preferredVersion: gv(g.preferred) };
}

export function groupList(registry: ResourceRegistry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry
      .groups()
      .filter((g) => g.group !== '')
      .map(groupDoc),
  };
}

export function group(registry: ResourceRegistry, name: string): JsonObject | undefined {
  const g = registry.groups().find((x) => x.group === name && name !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) } : undefined;
}

export function resourceList(
  registry: ResourceRegistry,
  groupName: string,
  version: string,
): JsonObject | undefined {
  const types = registry.all().filter((t) => t.group === groupName && t.version === version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupName === '' ? version : `${groupName}/${version}`,
    resources: apiResources(types),
  };
}

export const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Aggregated discovery (apidiscovery.k8s.io/v2), what kubectl >= 1.30 asks /api and /apis for
 * first: every group, version and resource in one document.
 */
export function aggregatedDiscovery(registry: ResourceRegistry, core: boolean): JsonObject {
  const items = registry
    .groups()
    .filter((g) => (g.group === '') === core)
    .map((g) => ({
      metadata: { name: g.group },
      versions: [g.preferred, ...g.versions.filter((v) => v !== g.preferred)].map((version) => ({
        version,
        freshness: 'Current',
        resources: registry
          .all()
          .filter((t) => t.group === g.group && t.version === version)
          .map((t) => {
            const responseKind = { group: t.group, version: t.version, kind: t.kind };
            return {
              resource: t.plural,
              responseKind,
              scope: t.namespaced ? 'Namespaced' : 'Cluster',
              singularResource: t.singular,
              verbs: VERBS,
              ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
              ...(t.categories.length ? { categories: t.categories } : {}),
              ...(t.hasStatus
                ? {
                    subresources: [
                      { subresource: 'status', responseKind, verbs: ['get', 'patch', 'update'] },
                    ],
                  }
                : {}),
            };
          }),
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}

/** OpenAPI definition name as kube writes it: group reversed (`dev.fabrik.network.v1alpha1.VRF`). */
function definitionName(t: ResourceType): string {
  if (t.group === '') return `io.k8s.api.core.v1.${t.kind}`;
  const known: Record<string, string> = {
    'rbac.authorization.k8s.io': 'io.k8s.api.rbac',
    'events.k8s.io': 'io.k8s.api.events',
    'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  };
  const prefix = known[t.group] ?? t.group.split('.').reverse().join('.');
  return `${prefix}.${t.version}.${t.kind}`;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const stringMap: JsonObject = { type: 'object', additionalProperties: { type: 'string' } };

/** Every field of ObjectMeta, so clients that validate against the schema accept real manifests. */
const objectMetaSchema: JsonObject = {
  description: 'ObjectMeta is metadata that all persisted resources must have.',
  type: 'object',
  properties: {
    annotations: { ...stringMap, description: 'Annotations is an unstructured key value map.' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    finalizers: { type: 'array', items: { type: 'string' } },
    generateName: { type: 'string' },
    generation: { type: 'integer', format: 'int64' },
    labels: {
      ...stringMap,
      description: 'Map of string keys and values that can be used to organize and categorize objects.',
    },
    managedFields: { type: 'array', items: { type: 'object' } },
    name: { type: 'string', description: 'Name must be unique within a namespace.' },
    namespace: { type: 'string' },
    ownerReferences: { type: 'array', items: { type: 'object' } },
    resourceVersion: { type: 'string' },
    selfLink: { type: 'string' },
    uid: { type: 'string' },
  },
};

/**
 * A structural schema as kube publishes it in OpenAPI v2: no nullable, int-or-string and
 * preserve-unknown-fields nodes without a type (anything goes there), no oneOf/anyOf/not.
 */
function toV2Schema(schema: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(schema)) return schema;
  const out: JsonObject = { ...schema };
  for (const key of ['nullable', 'oneOf', 'anyOf', 'not']) delete out[key];
  if (out['x-kubernetes-int-or-string'] === true) delete out.type;
  if (out['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out.type;
    delete out.properties;
    delete out.items;
  }
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, toV2Schema(v) ?? null]),
    );
  }
  if (isObject(out.items)) out.items = toV2Schema(out.items);
  if (isObject(out.additionalProperties)) out.additionalProperties = toV2Schema(out.additionalProperties);
  return out;
}

/** The kind's schema with apiVersion/kind/metadata described, and the strategic merge keys. */
function kindSchema(t: ResourceType, ref: (name: string) => JsonObject): JsonObject {
  const base: JsonObject = t.openApiSchema
    ? structuredClone(t.openApiSchema)
    : {
        type: 'object',
        description: `${t.kind} (served by the fabrik test API server)`,
        'x-kubernetes-preserve-unknown-fields': true,
      };
  const properties: JsonObject = isObject(base.properties) ? base.properties : {};
  properties.apiVersion = {
    type: 'string',
    description: 'APIVersion defines the versioned schema of this representation of an object.',
  };
  properties.kind = {
    type: 'string',
    description: 'Kind is a string value representing the REST resource this object represents.',
  };
  properties.metadata = { allOf: [ref(OBJECT_META)], description: "Standard object's metadata." };
  for (const [path, strategy] of Object.entries(t.patchStrategies ?? {})) {
    let node: JsonObject = base;
    const parts = path.split('.');
    for (const [i, part] of parts.entries()) {
      if (part === 'metadata') break;
      const props: JsonObject = isObject(node.properties) ? node.properties : (node.properties = {});
      const child: JsonObject = isObject(props[part])
        ? (props[part] as JsonObject)
        : (props[part] = { type: i === parts.length - 1 ? 'array' : 'object' });
      if (i === parts.length - 1) {
        child.type = 'array';
        child.items = isObject(child.items)
          ? child.items
          : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
        child['x-kubernetes-patch-strategy'] = 'merge';
        if ('mergeKey' in strategy) child['x-kubernetes-patch-merge-key'] = strategy.mergeKey;
      }
      node = child.type === 'array' && isObject(child.items) ? child.items : child;
    }
  }
  base.properties = properties;
  base['x-kubernetes-group-version-kind'] = [{ group: t.group, version: t.version, kind: t.kind }];
  return base;
}

function paths(t: ResourceType, schemaRef: JsonObject, v3: boolean): JsonObject {
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const prefix = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  const base = t.namespaced ? `${prefix}/namespaces/{namespace}/${t.plural}` : `${prefix}/${t.plural}`;
  const query = (name: string): JsonObject =>
    v3
      ? { name, in: 'query', schema: { type: 'string', uniqueItems: true } }
      : { name, in: 'query', type: 'string', uniqueItems: true };
  const patchTypes = [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(t.patchStrategies ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
  ];
  const body = v3
    ? {
        requestBody: {
          content: Object.fromEntries(patchTypes.map((c) => [c, { schema: { type: 'object' } }])),
          required: true,
        },
      }
    : { consumes: patchTypes };
  const response = v3
    ? { responses: { '200': { description: 'OK', content: { 'application/json': { schema: schemaRef } } } } }
    : { responses: { '200': { description: 'OK', schema: schemaRef } } };
  const op = (action: string, extra: JsonObject = {}): JsonObject => ({
    operationId: `${action}${t.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
    ...response,
    ...extra,
  });
  const writeParams = { parameters: [query('dryRun'), query('fieldManager'), query('fieldValidation')] };
  const item: JsonObject = {
    get: op('get'),
    put: op('put', writeParams),
    delete: op('delete'),
    patch: op('patch', { ...writeParams, ...body, parameters: [...writeParams.parameters, query('force')] }),
    parameters: [
      {
        name: 'name',
        in: 'path',
        required: true,
        ...(v3 ? { schema: { type: 'string' } } : { type: 'string' }),
      },
    ],
  };
  const out: JsonObject = {
    [base]: { get: op('list'), post: op('post', writeParams), delete: op('deletecollection') },
    [`${base}/{name}`]: item,
  };
  if (t.hasStatus) out[`${base}/{name}/status`] = item;
  return out;
}

/** `/openapi/v3`: one entry per group-version, each with a hash so clients cache it. */
export function openApiV3Index(registry: ResourceRegistry): JsonObject {
  const entries: JsonObject = {};
  for (const g of registry.groups()) {
    for (const v of g.versions) {
      const key = g.group === '' ? `api/${v}` : `apis/${g.group}/${v}`;
      const hash = createHash('sha512')
        .update(JSON.stringify(openApiV3(registry, g.group, v)))
        .digest('hex')
        .slice(0, 32)
        .toUpperCase();
      entries[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
    }
  }
  return { paths: entries };
}

export function openApiV3(
  registry: ResourceRegistry,
  groupName: string,
  version: string,
): JsonObject | undefined {
  const types = registry.all().filter((t) => t.group === groupName && t.version === version);
  if (types.length === 0) return undefined;
  const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
  const schemas: JsonObject = { [OBJECT_META]: objectMetaSchema };
  let allPaths: JsonObject = {};
  for (const t of types) {
    schemas[definitionName(t)] = kindSchema(t, ref);
    allPaths = { ...allPaths, ...paths(t, ref(definitionName(t)), true) };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths: allPaths,
    components: { schemas },
  };
}

export function openApiV2(registry: ResourceRegistry): JsonObject {
  const ref = (name: string): JsonObject => ({ $ref: `#/definitions/${name}` });
  const definitions: JsonObject = { [OBJECT_META]: objectMetaSchema };
  let allPaths: JsonObject = {};
  for (const t of registry.all()) {
    definitions[definitionName(t)] = toV2Schema(kindSchema(t, ref));
    allPaths = { ...allPaths, ...paths(t, ref(definitionName(t)), false) };
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: SERVER_VERSION.gitVersion },
    paths: allPaths,
    definitions,
  };
}
