// The semantics of kube-apiserver's generic registry for every resource: create, update, patch
// and delete with resourceVersion preconditions, generation, the status subresource, finalizers,
// admission by the CRD schema, and the side effects of CRDs and namespaces. No HTTP here.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  statusObject,
  type FieldError,
} from './errors.js';
import { clone, deepEqual, isObject, type JsonObject, type JsonValue } from './json.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import {
  apiVersionOf,
  CRD_TYPE,
  resourceKey,
  typesFromCrd,
  type ResourceRegistry,
  type ResourceType,
} from './resources.js';
import { applyDefaults, prune, validate } from './schema.js';
import type { Store } from './store.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Warnings for the response's Warning headers (unknown fields under fieldValidation=Warn). */
  warnings?: string[];
}

const NAMESPACES = resourceKey({ group: '', plural: 'namespaces' });
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function metadataOf(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as JsonObject;
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Everything but metadata and status: what a generation counts. */
function specPart(obj: JsonObject, withStatus: boolean): JsonObject {
  const rest: JsonObject = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (withStatus) delete rest.status;
  return rest;
}

/** The object as served in `t`'s version (conversion strategy None: only apiVersion changes). */
export function asVersion(t: ResourceType, obj: JsonObject): JsonObject {
  // A copy: callers may change what they get, stored objects and their history never change.
  return { ...clone(obj), apiVersion: apiVersionOf(t) };
}

export class RestStorage {
  constructor(
    private readonly store: Store,
    private readonly registry: ResourceRegistry,
  ) {}

  get(t: ResourceType, namespace: string, name: string): JsonObject {
    const obj = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!obj) throw notFound(t.group, t.plural, name);
    return asVersion(t, obj);
  }

  private requireNamespace(t: ResourceType, namespace: string): void {
    if (t.namespaced && !this.store.get(NAMESPACES, '', namespace))
      throw notFound('', 'namespaces', namespace);
  }

  private checkIdentity(t: ResourceType, body: JsonObject, namespace: string): void {
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(t)) {
      throw badRequest(
        `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersionOf(t)})`,
      );
    }
    if (body.kind !== undefined && body.kind !== t.kind) {
      throw badRequest(
        `the kind in the data (${String(body.kind)}) does not match the expected kind (${t.kind})`,
      );
    }
    const m = metadataOf(body);
    if (t.namespaced && m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
  }

  /** Schema admission of custom resources plus the metadata rules every object follows. */
  private admit(t: ResourceType, obj: JsonObject, old: JsonObject | undefined, opts: WriteOptions): void {
    const m = metadataOf(obj);
    const name = typeof m.name === 'string' ? m.name : '';
    const errors: FieldError[] = [];
    const nameRule = t.plural === 'namespaces' ? dns1123Label : dns1123Subdomain;
    if (name === '')
      errors.push({
        type: 'FieldValueRequired',
        field: 'metadata.name',
        body: 'Required value: name or generateName is required',
      });
    else if (!nameRule.test(name) || name.length > 253) {
      errors.push({
        type: 'FieldValueInvalid',
        field: 'metadata.name',
        body: `Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 ${t.plural === 'namespaces' ? 'label' : 'subdomain'} must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (t.schema) {
      const dropped = prune(t.schema, obj);
      if (dropped.length > 0 && opts.fieldValidation === 'Strict') {
        throw badRequest(
          `${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${dropped
            .map((p) => `unknown field "${p}"`)
            .join(', ')}`,
        );
      }
      if (opts.fieldValidation !== 'Ignore')
        opts.warnings?.push(...dropped.map((p) => `unknown field "${p}"`));
      applyDefaults(t.schema, obj);
      errors.push(...validate(t.schema, obj, old));
    }
    if (errors.length > 0) throw invalid(t.kind, t.group, name, errors);
  }

  create(t: ResourceType, namespace: string, body: JsonValue, opts: WriteOptions = {}): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request must be a JSON object');
    const obj = clone(body);
    this.checkIdentity(t, obj, namespace);
    const m = metadataOf(obj);
    if (m.resourceVersion !== undefined && m.resourceVersion !== '') {
      throw badRequest('resourceVersion should not be set on objects to be created');
    }
    if ((m.name === undefined || m.name === '') && typeof m.generateName === 'string') {
      m.name = m.generateName + randomBytes(3).toString('hex').slice(0, 5);
    }
    if (t.namespaced) m.namespace = namespace;
    else delete m.namespace;
    this.requireNamespace(t, namespace);
    obj.apiVersion = apiVersionOf(t);
    obj.kind = t.kind;
    if (t.hasStatus && t.crdName !== undefined) delete obj.status;
    if (t.plural === 'pods') obj.status = { phase: 'Pending', ...(isObject(obj.status) ? obj.status : {}) };
    if (t.plural === 'namespaces') obj.status = { phase: 'Active' };
    this.admit(t, obj, undefined, opts);
    if (t === CRD_TYPE) this.prepareCrd(obj);
    const name = String(m.name);
    if (this.store.get(resourceKey(t), t.namespaced ? namespace : '', name))
      throw alreadyExists(t.group, t.plural, name);
    m.uid = randomUUID();
    m.creationTimestamp = now();
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (t.tracksGeneration) m.generation = 1;
    else delete m.generation;
    if (opts.dryRun) return obj;
    const stored = this.store.commit('ADDED', resourceKey(t), {
      ...obj,
      apiVersion: this.storageApiVersion(t),
    });
    if (t === CRD_TYPE) this.registerCrd(stored);
    return asVersion(t, stored);
  }

  private storageApiVersion(t: ResourceType): string {
    return t.group === '' ? t.storageVersion : `${t.group}/${t.storageVersion}`;
  }

  /**
   * PUT: replaces the object (or, for subresource "status", only its status). A resourceVersion in
   * the body is a precondition: 409 when stale.
   */
  update(
    t: ResourceType,
    namespace: string,
    name: string,
    body: JsonValue,
    subresource: string | undefined,
    opts: WriteOptions = {},
  ): JsonObject {
    if (!isObject(body)) throw badRequest('the body of the request must be a JSON object');
    const current = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!current) throw notFound(t.group, t.plural, name);
    const incoming = clone(body);
    this.checkIdentity(t, incoming, namespace);
    const m = metadataOf(incoming);
    if (m.name !== undefined && m.name !== name) {
      throw badRequest(
        `the name of the object (${String(m.name)}) does not match the name on the URL (${name})`,
      );
    }
    const currentMeta = metadataOf(current);
    if (
      typeof m.resourceVersion === 'string' &&
      m.resourceVersion !== '' &&
      m.resourceVersion !== currentMeta.resourceVersion
    ) {
      throw conflict(
        t.group,
        t.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    if (typeof m.uid === 'string' && m.uid !== '' && m.uid !== currentMeta.uid) {
      throw conflict(
        t.group,
        t.plural,
        name,
        `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${String(currentMeta.uid)}`,
      );
    }
    return this.write(t, current, incoming, subresource, opts);
  }

  /** Applies a patch of `type` to the current object and writes the result as update() does. */
  patch(
    t: ResourceType,
    namespace: string,
    name: string,
    type: PatchType,
    patchBody: JsonValue,
    subresource: string | undefined,
    opts: WriteOptions = {},
  ): JsonObject {
    const current = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!current) {
      if (type === 'apply' && subresource === undefined) {
        if (!isObject(patchBody)) throw badRequest('the apply configuration must be an object');
        return this.create(
          t,
          namespace,
          { ...patchBody, metadata: { ...metadataOf(clone(patchBody)), name } },
          opts,
        );
      }
      throw notFound(t.group, t.plural, name);
    }
    const served = asVersion(t, current);
    let patched: JsonValue;
    switch (type) {
      case 'json':
        patched = jsonPatch(served, patchBody);
        break;
      case 'merge':
      case 'apply':
        if (!isObject(patchBody)) throw badRequest('a merge patch must be a JSON object');
        patched = mergePatch(served, patchBody);
        break;
      case 'strategic':
        if (t.patchStrategies === undefined) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
          );
        }
        patched = strategicMergePatch(served, patchBody, t.patchStrategies);
        break;
    }
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    const m = metadataOf(patched);
    const currentMeta = metadataOf(current);
    if (
      m.resourceVersion !== currentMeta.resourceVersion &&
      typeof m.resourceVersion === 'string' &&
      m.resourceVersion !== ''
    ) {
      throw conflict(
        t.group,
        t.plural,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    if (m.name !== name)
      throw badRequest(`metadata.name: Invalid value: ${JSON.stringify(m.name ?? null)}: field is immutable`);
    return this.write(t, current, patched, subresource, opts);
  }

  private write(
    t: ResourceType,
    current: JsonObject,
    incoming: JsonObject,
    subresource: string | undefined,
    opts: WriteOptions,
  ): JsonObject {
    const currentMeta = metadataOf(current);
    // Patches share untouched subtrees with the stored object: work on a copy of them.
    incoming = clone(incoming);
    let next: JsonObject;
    if (subresource === 'status') {
      if (!t.hasStatus) throw notFound(t.group, `${t.plural}/status`, String(currentMeta.name));
      next = clone(current);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else if (subresource !== undefined) {
      throw notFound(t.group, `${t.plural}/${subresource}`, String(currentMeta.name));
    } else {
      next = incoming;
      if (t.hasStatus) {
        if (current.status === undefined) delete next.status;
        else next.status = clone(current.status);
      }
      const m = metadataOf(next);
      for (const field of [
        'uid',
        'creationTimestamp',
        'deletionTimestamp',
        'deletionGracePeriodSeconds',
        'generation',
      ]) {
        if (currentMeta[field] === undefined) delete m[field];
        else m[field] = currentMeta[field];
      }
    }
    const m = metadataOf(next);
    m.name = currentMeta.name;
    if (t.namespaced) m.namespace = currentMeta.namespace;
    else delete m.namespace;
    next.apiVersion = apiVersionOf(t);
    next.kind = t.kind;
    this.admit(t, next, asVersion(t, current), opts);
    if (t === CRD_TYPE) this.prepareCrd(next);
    if (
      t.tracksGeneration &&
      !deepEqual(specPart(next, t.hasStatus), specPart(asVersion(t, current), t.hasStatus))
    ) {
      m.generation = (typeof currentMeta.generation === 'number' ? currentMeta.generation : 0) + 1;
    }
    m.resourceVersion = currentMeta.resourceVersion;
    next.apiVersion = this.storageApiVersion(t);
    const terminating = currentMeta.deletionTimestamp !== undefined;
    const finalizersLeft = Array.isArray(m.finalizers) && m.finalizers.length > 0;
    if (deepEqual(next, current)) return asVersion(t, current);
    if (opts.dryRun) return asVersion(t, next);
    if (terminating && !finalizersLeft) {
      this.removeNow(t, next);
      return asVersion(t, next);
    }
    const stored = this.store.commit('MODIFIED', resourceKey(t), next);
    if (t === CRD_TYPE) this.registerCrd(stored);
    return asVersion(t, stored);
  }

  /**
   * DELETE: with finalizers the object only gets a deletionTimestamp (and goes when they are
   * emptied); otherwise it goes now. Returns the object while it stays, a Success Status once gone.
   */
  delete(
    t: ResourceType,
    namespace: string,
    name: string,
    options: JsonValue | undefined,
    dryRun = false,
  ): JsonObject {
    const current = this.store.get(resourceKey(t), t.namespaced ? namespace : '', name);
    if (!current) throw notFound(t.group, t.plural, name);
    const m = metadataOf(current);
    const preconditions = isObject(options) && isObject(options.preconditions) ? options.preconditions : {};
    if (typeof preconditions.uid === 'string' && preconditions.uid !== m.uid) {
      throw conflict(
        t.group,
        t.plural,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(m.uid)}`,
      );
    }
    if (
      typeof preconditions.resourceVersion === 'string' &&
      preconditions.resourceVersion !== m.resourceVersion
    ) {
      throw conflict(
        t.group,
        t.plural,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${String(m.resourceVersion)}`,
      );
    }
    const policy = isObject(options) ? options.propagationPolicy : undefined;
    if (policy !== undefined && policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
      throw invalid('DeleteOptions', 'meta.k8s.io', '', [
        {
          type: 'FieldValueNotSupported',
          field: 'propagationPolicy',
          body: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
        },
      ]);
    }
    const finalizers = Array.isArray(m.finalizers) ? m.finalizers : [];
    const success = statusObject('Success', undefined, undefined, 200, {
      name,
      group: t.group,
      kind: t.plural,
      ...(typeof m.uid === 'string' ? { uid: m.uid } : {}),
    });
    if (dryRun) return finalizers.length > 0 ? asVersion(t, current) : success;
    if (finalizers.length > 0) {
      if (m.deletionTimestamp !== undefined) return asVersion(t, current);
      const next = clone(current);
      const nm = metadataOf(next);
      nm.deletionTimestamp = now();
      nm.deletionGracePeriodSeconds = 0;
      return asVersion(t, this.store.commit('MODIFIED', resourceKey(t), next));
    }
    this.removeNow(t, current);
    return success;
  }

  private removeNow(t: ResourceType, obj: JsonObject): void {
    const name = String(metadataOf(obj).name);
    if (t === CRD_TYPE) {
      const types = this.registry.all().filter((x) => x.crdName === name);
      const first = types[0];
      if (first) {
        for (const cr of this.store.allOf(resourceKey(first)))
          this.store.commit('DELETED', resourceKey(first), clone(cr));
      }
      this.registry.removeCrd(name);
    }
    if (t.plural === 'namespaces' && t.group === '') {
      for (const nt of this.registry.all().filter((x) => x.namespaced && x.version === x.storageVersion)) {
        for (const child of this.store.list(resourceKey(nt), name))
          this.store.commit('DELETED', resourceKey(nt), clone(child));
      }
    }
    this.store.commit('DELETED', resourceKey(t), clone(obj));
  }

  /** Restores the served types of every stored CRD (after a restart). */
  restoreCrds(): void {
    for (const crd of this.store.allOf(resourceKey(CRD_TYPE))) this.registerCrd(crd);
  }

  /** Checks a CRD and fills its status the way the apiextensions controllers do. */
  private prepareCrd(crd: JsonObject): void {
    const types = typesFromCrd(crd);
    const spec = isObject(crd.spec) ? crd.spec : {};
    const names = isObject(spec.names) ? clone(spec.names) : {};
    const first = types[0];
    if (first) {
      names.singular = first.singular;
      names.listKind = first.listKind;
    }
    const time = now();
    crd.status = {
      conditions: [
        {
          type: 'NamesAccepted',
          status: 'True',
          reason: 'NoConflicts',
          message: 'no conflicts found',
          lastTransitionTime: time,
        },
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
          lastTransitionTime: time,
        },
      ],
      acceptedNames: names,
      storedVersions: [first?.storageVersion ?? ''],
    };
  }

  private registerCrd(crd: JsonObject): void {
    const name = String(metadataOf(crd).name);
    this.registry.removeCrd(name);
    for (const t of typesFromCrd(crd)) this.registry.add(t);
  }

  /** Creates or updates a CRD read from a file at start (kept when unchanged). */
  ensureCrd(crd: JsonObject): void {
    const name = String(metadataOf(crd).name);
    const existing = this.store.get(resourceKey(CRD_TYPE), '', name);
    if (!existing) {
      this.create(CRD_TYPE, '', crd);
      return;
    }
    if (!deepEqual(existing.spec, crd.spec)) {
      this.update(
        CRD_TYPE,
        '',
        name,
        {
          ...crd,
          metadata: { ...metadataOf(clone(crd)), resourceVersion: metadataOf(existing).resourceVersion },
        },
        undefined,
      );
    }
  }
}
