// The registry of resource types the server serves: the built-in core, events and RBAC kinds, and
// one entry per served version of every CustomResourceDefinition.
import { badRequest, invalid } from './errors.js';
import { isObject, type JsonObject, type JsonValue } from './json.js';
import type { PatchStrategies } from './patch.js';
import { compileSchema, type CompiledSchema } from './schema.js';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority: number;
  jsonPath: string;
  /** Built-in kinds: the cell as kubectl's printers for core kinds compute it (instead of jsonPath). */
  compute?: (obj: JsonObject) => JsonValue;
}

function list(value: JsonValue | undefined): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function field(obj: JsonObject, ...path: string[]): JsonValue | undefined {
  let v: JsonValue | undefined = obj;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return v;
}

/** `Ready`, `NotReady` or `Unknown`, plus `,SchedulingDisabled`, as `kubectl get nodes` shows it. */
function nodeStatus(node: JsonObject): string {
  const ready = list(field(node, 'status', 'conditions')).find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
  return field(node, 'spec', 'unschedulable') === true ? `${status},SchedulingDisabled` : status;
}

function nodeRoles(node: JsonObject): string {
  const labels = field(node, 'metadata', 'labels');
  const roles = Object.keys(isObject(labels) ? labels : {})
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length))
    .sort();
  return roles.length > 0 ? roles.join(',') : '<none>';
}

/** An event's object as `kubectl get events` shows it: `node/node-a`. */
function eventObject(field: 'involvedObject' | 'regarding'): (event: JsonObject) => string {
  return (event) => {
    const ref = event[field];
    if (!isObject(ref)) return '';
    return `${String(ref.kind ?? '').toLowerCase()}/${String(ref.name ?? '')}`;
  };
}

function podReady(pod: JsonObject): string {
  const statuses = list(field(pod, 'status', 'containerStatuses'));
  return `${statuses.filter((c) => c.ready === true).length}/${list(field(pod, 'spec', 'containers')).length}`;
}

function podRestarts(pod: JsonObject): number {
  return list(field(pod, 'status', 'containerStatuses')).reduce(
    (sum, c) => sum + (typeof c.restartCount === 'number' ? c.restartCount : 0),
    0,
  );
}

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** The object has a status subresource: the main resource ignores status, status ignores the rest. */
  hasStatus: boolean;
  /** metadata.generation is kept and bumped on changes outside metadata and status. */
  tracksGeneration: boolean;
  /** Strategic merge patch list strategies; undefined for custom resources (kube refuses SMP there). */
  patchStrategies: PatchStrategies | undefined;
  /** Field selector labels beyond metadata.name and metadata.namespace. */
  fieldLabels: string[];
  /** Printer columns after NAME (custom resources: additionalPrinterColumns). */
  columns: PrinterColumn[];
  /** NAME is the last column, shown only with -o wide (Events, as kube prints them). */
  nameLast?: boolean;
  /** The validation schema of this version (custom resources only). */
  schema: CompiledSchema | undefined;
  /** The raw OpenAPI v3 schema (for /openapi and explain), when there is one. */
  openApiSchema: JsonObject | undefined;
  /** The CRD this type comes from. */
  crdName: string | undefined;
  /** Objects are stored under this version; requests for other versions are converted (None strategy). */
  storageVersion: string;
}

export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}

/** Storage key of a resource regardless of version: `<group>/<plural>`. */
export function resourceKey(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${t.group}/${t.plural}`;
}

const metaStrategies: PatchStrategies = {
  'metadata.finalizers': { primitiveSet: true },
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

const podStrategies: PatchStrategies = {
  ...metaStrategies,
  'spec.containers': { mergeKey: 'name' },
  'spec.initContainers': { mergeKey: 'name' },
  'spec.ephemeralContainers': { mergeKey: 'name' },
  'spec.containers.env': { mergeKey: 'name' },
  'spec.initContainers.env': { mergeKey: 'name' },
  'spec.containers.ports': { mergeKey: 'containerPort' },
  'spec.initContainers.ports': { mergeKey: 'containerPort' },
  'spec.containers.volumeMounts': { mergeKey: 'mountPath' },
  'spec.initContainers.volumeMounts': { mergeKey: 'mountPath' },
  'spec.volumes': { mergeKey: 'name' },
  'spec.imagePullSecrets': { mergeKey: 'name' },
  'status.conditions': { mergeKey: 'type' },
  'status.podIPs': { mergeKey: 'ip' },
};

// Node spec.taints has no patch strategy in k8s.io/api (it is replaced whole), as in the real server.
const nodeStrategies: PatchStrategies = {
  ...metaStrategies,
  'status.conditions': { mergeKey: 'type' },
  'status.addresses': { mergeKey: 'type' },
  'status.volumesAttached': { mergeKey: 'name' },
};

const rbacStrategies: PatchStrategies = { ...metaStrategies };

/** DaemonSets and Deployments: their Pod template merges as a Pod's spec does. */
const workloadStrategies: PatchStrategies = {
  ...metaStrategies,
  'spec.template.metadata.finalizers': { primitiveSet: true },
  ...Object.fromEntries(
    Object.entries(podStrategies)
      .filter(([path]) => path.startsWith('spec.'))
      .map(([path, strategy]) => [`spec.template.${path}`, strategy]),
  ),
  'status.conditions': { mergeKey: 'type' },
};

function workload(
  kind: 'DaemonSet' | 'Deployment',
  shortName: string,
  columns: PrinterColumn[],
): ResourceType {
  return builtin({
    group: 'apps',
    version: 'v1',
    kind,
    plural: `${kind.toLowerCase()}s`,
    namespaced: true,
    shortNames: [shortName],
    categories: ['all'],
    hasStatus: true,
    tracksGeneration: true,
    patchStrategies: workloadStrategies,
    columns,
  });
}

function builtin(
  fields: Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural' | 'namespaced'> & Partial<ResourceType>,
): ResourceType {
  return {
    listKind: `${fields.kind}List`,
    singular: fields.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    hasStatus: false,
    tracksGeneration: false,
    patchStrategies: metaStrategies,
    fieldLabels: [],
    columns: [],
    schema: undefined,
    openApiSchema: undefined,
    crdName: undefined,
    storageVersion: fields.version,
    ...fields,
  };
}

const age: PrinterColumn = {
  name: 'Age',
  type: 'date',
  priority: 0,
  jsonPath: '.metadata.creationTimestamp',
};

export const CRD_TYPE: ResourceType = builtin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  hasStatus: true,
  tracksGeneration: true,
  columns: [{ name: 'Created At', type: 'date', priority: 0, jsonPath: '.metadata.creationTimestamp' }],
});

const BUILTIN_TYPES: readonly ResourceType[] = [
  builtin({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    hasStatus: true,
    fieldLabels: ['status.phase'],
    columns: [{ name: 'Status', type: 'string', priority: 0, jsonPath: '.status.phase' }, age],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    hasStatus: true,
    patchStrategies: nodeStrategies,
    fieldLabels: ['spec.unschedulable'],
    columns: [
      { name: 'Status', type: 'string', priority: 0, jsonPath: '.status.conditions', compute: nodeStatus },
      { name: 'Roles', type: 'string', priority: 0, jsonPath: '.metadata.labels', compute: nodeRoles },
      age,
      { name: 'Version', type: 'string', priority: 0, jsonPath: '.status.nodeInfo.kubeletVersion' },
    ],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    hasStatus: true,
    tracksGeneration: true,
    patchStrategies: podStrategies,
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    columns: [
      {
        name: 'Ready',
        type: 'string',
        priority: 0,
        jsonPath: '.status.containerStatuses',
        compute: podReady,
      },
      { name: 'Status', type: 'string', priority: 0, jsonPath: '.status.phase' },
      {
        name: 'Restarts',
        type: 'integer',
        priority: 0,
        jsonPath: '.status.containerStatuses',
        compute: podRestarts,
      },
      age,
      { name: 'IP', type: 'string', priority: 1, jsonPath: '.status.podIP' },
      { name: 'Node', type: 'string', priority: 1, jsonPath: '.spec.nodeName' },
    ],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    nameLast: true,
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
    columns: [
      { name: 'Last Seen', type: 'date', priority: 0, jsonPath: '.lastTimestamp' },
      { name: 'Type', type: 'string', priority: 0, jsonPath: '.type' },
      { name: 'Reason', type: 'string', priority: 0, jsonPath: '.reason' },
      {
        name: 'Object',
        type: 'string',
        priority: 0,
        jsonPath: '.involvedObject',
        compute: eventObject('involvedObject'),
      },
      { name: 'Message', type: 'string', priority: 0, jsonPath: '.message' },
    ],
  }),
  // Stored only: no controller creates their Pods (the lab runs the agents itself).
  workload('DaemonSet', 'ds', [
    { name: 'Desired', type: 'integer', priority: 0, jsonPath: '.status.desiredNumberScheduled' },
    { name: 'Current', type: 'integer', priority: 0, jsonPath: '.status.currentNumberScheduled' },
    { name: 'Ready', type: 'integer', priority: 0, jsonPath: '.status.numberReady' },
    age,
  ]),
  workload('Deployment', 'deploy', [
    { name: 'Ready', type: 'integer', priority: 0, jsonPath: '.status.readyReplicas' },
    { name: 'Available', type: 'integer', priority: 0, jsonPath: '.status.availableReplicas' },
    age,
  ]),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
    columns: [age],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    shortNames: ['cm'],
    columns: [age],
  }),
  builtin({
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    fieldLabels: ['type'],
    columns: [{ name: 'Type', type: 'string', priority: 0, jsonPath: '.type' }, age],
  }),
  builtin({
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    nameLast: true,
    patchStrategies: undefined,
    fieldLabels: [
      'reason',
      'type',
      'regarding.kind',
      'regarding.name',
      'regarding.namespace',
      'reportingController',
    ],
    columns: [
      { name: 'Last Seen', type: 'date', priority: 0, jsonPath: '.eventTime' },
      { name: 'Type', type: 'string', priority: 0, jsonPath: '.type' },
      { name: 'Reason', type: 'string', priority: 0, jsonPath: '.reason' },
      {
        name: 'Object',
        type: 'string',
        priority: 0,
        jsonPath: '.regarding',
        compute: eventObject('regarding'),
      },
      { name: 'Message', type: 'string', priority: 0, jsonPath: '.note' },
    ],
  }),
  ...(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'] as const).map((kind) =>
    builtin({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind,
      plural: `${kind.toLowerCase()}s`,
      namespaced: !kind.startsWith('Cluster'),
      patchStrategies: rbacStrategies,
      columns: [{ name: 'Created At', type: 'date', priority: 0, jsonPath: '.metadata.creationTimestamp' }],
    }),
  ),
  CRD_TYPE,
];

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The resource types a CRD defines, one per served version. Throws (BadRequest naming the field)
 * when the CRD is not one the server can serve, including a CEL rule it cannot evaluate.
 */
export function typesFromCrd(crd: JsonObject): ResourceType[] {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const group = spec.group;
  const crdName = isObject(crd.metadata) ? crd.metadata.name : undefined;
  if (typeof group !== 'string' || typeof names.plural !== 'string' || typeof names.kind !== 'string') {
    throw badRequest(
      `CustomResourceDefinition ${String(crdName)}: spec.group, spec.names.plural and spec.names.kind are required`,
    );
  }
  if (crdName !== `${names.plural}.${group}`) {
    throw badRequest(
      `metadata.name: Invalid value: ${JSON.stringify(crdName)}: must be spec.names.plural+"."+spec.group`,
    );
  }
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObject) : [];
  const storage = versions.find((v) => v.storage === true);
  if (!storage || typeof storage.name !== 'string')
    throw badRequest(`spec.versions: Invalid value: one version must be the storage version`);
  return versions
    .map((v, index) => ({ v, index }))
    .filter(({ v }) => v.served !== false && typeof v.name === 'string')
    .map(({ v, index }) => {
      const validation =
        isObject(v.schema) && isObject(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
      const subresources = isObject(v.subresources) ? v.subresources : {};
      const columns = (
        Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns.filter(isObject) : []
      ).map((c): PrinterColumn => ({
        name: String(c.name),
        type: String(c.type ?? 'string'),
        ...(typeof c.format === 'string' ? { format: c.format } : {}),
        ...(typeof c.description === 'string' ? { description: c.description } : {}),
        priority: typeof c.priority === 'number' ? c.priority : 0,
        jsonPath: String(c.jsonPath),
      }));
      const selectable = (Array.isArray(v.selectableFields) ? v.selectableFields.filter(isObject) : []).map(
        (f) => String(f.jsonPath).replace(/^\./, ''),
      );
      let schema: CompiledSchema | undefined;
      try {
        schema = validation ? compileSchema(validation) : undefined;
      } catch (err) {
        const field = `spec.versions[${index}].schema.openAPIV3Schema`;
        throw invalid('CustomResourceDefinition', 'apiextensions.k8s.io', String(crdName), [
          { type: 'FieldValueInvalid', field, body: `Invalid value: "object": ${(err as Error).message}` },
        ]);
      }
      return {
        group,
        version: v.name as string,
        kind: names.kind as string,
        listKind: typeof names.listKind === 'string' ? names.listKind : `${names.kind as string}List`,
        plural: names.plural as string,
        singular: typeof names.singular === 'string' ? names.singular : (names.kind as string).toLowerCase(),
        namespaced: spec.scope === 'Namespaced',
        shortNames: stringList(names.shortNames),
        categories: stringList(names.categories),
        hasStatus: isObject(subresources.status),
        tracksGeneration: true,
        patchStrategies: undefined,
        fieldLabels: selectable,
        columns: columns.length > 0 ? columns : [age],
        schema,
        openApiSchema: validation,
        crdName,
        storageVersion: storage.name as string,
      };
    });
}

/** Looks resource types up by URL path segments and by kind. */
export class ResourceRegistry {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const t of BUILTIN_TYPES) this.add(t);
  }

  private static key(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }

  add(t: ResourceType): void {
    this.types.set(ResourceRegistry.key(t.group, t.version, t.plural), t);
  }

  /** Removes every version served for a CRD. */
  removeCrd(crdName: string): void {
    for (const [key, t] of this.types) if (t.crdName === crdName) this.types.delete(key);
  }

  get(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(ResourceRegistry.key(group, version, plural));
  }

  /** Any served version of a group/plural (for storage-level operations). */
  anyVersion(group: string, plural: string): ResourceType | undefined {
    for (const t of this.types.values()) if (t.group === group && t.plural === plural) return t;
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Groups with their versions, preferred (storage) version first, in registration order. */
  groups(): { group: string; versions: string[]; preferred: string }[] {
    const byGroup = new Map<string, { versions: string[]; preferred: string }>();
    for (const t of this.types.values()) {
      const entry = byGroup.get(t.group) ?? { versions: [], preferred: t.storageVersion };
      if (!entry.versions.includes(t.version)) entry.versions.push(t.version);
      byGroup.set(t.group, entry);
    }
    return [...byGroup].map(([group, e]) => ({ group, ...e }));
  }
}
