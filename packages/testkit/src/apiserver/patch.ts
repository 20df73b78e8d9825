// The three patch formats of kube-apiserver: JSON merge patch (RFC 7386), JSON patch (RFC 6902)
// and strategic merge patch, whose lists of objects merge by a key (Node conditions by `type`,
// containers by `name`) as k8s.io/apimachinery/pkg/util/strategicpatch does.
import { ApiError, badRequest } from './errors.js';
import { clone, deepEqual, isObject, type JsonObject, type JsonValue } from './json.js';

export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function patchFailed(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchFailed(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = JsonObject | JsonValue[];

/** The container that holds the pointer's last segment, and that segment. */
function locate(doc: JsonValue, pointer: string): { parent: Container; key: string } {
  const parts = parsePointer(pointer);
  const key = parts.pop();
  if (key === undefined) throw patchFailed('a JSON patch cannot replace the whole document');
  let current: JsonValue | undefined = doc;
  for (const part of parts) {
    if (Array.isArray(current)) current = current[Number(part)];
    else if (isObject(current)) current = current[part];
    else current = undefined;
    if (current === undefined) throw patchFailed(`doc is missing path: "${pointer}": missing value`);
  }
  if (!Array.isArray(current) && !isObject(current)) {
    throw patchFailed(`doc is missing path: "${pointer}": missing value`);
  }
  return { parent: current, key };
}

function arrayIndex(list: JsonValue[], key: string, forInsert: boolean, pointer: string): number {
  if (forInsert && key === '-') return list.length;
  const index = Number(key);
  const bound = forInsert ? list.length : list.length - 1;
  if (!/^(0|[1-9][0-9]*)$/.test(key) || index > bound) {
    throw patchFailed(`unable to access invalid index: ${key} in "${pointer}"`);
  }
  return index;
}

function getAt(doc: JsonValue, pointer: string): JsonValue {
  if (pointer === '') return doc;
  const { parent, key } = locate(doc, pointer);
  const value = Array.isArray(parent) ? parent[arrayIndex(parent, key, false, pointer)] : parent[key];
  if (value === undefined) throw patchFailed(`doc is missing path: "${pointer}": missing value`);
  return value;
}

function addAt(doc: JsonValue, pointer: string, value: JsonValue): void {
  const { parent, key } = locate(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, pointer), 0, clone(value));
  else parent[key] = clone(value);
}

function removeAt(doc: JsonValue, pointer: string): void {
  const { parent, key } = locate(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false, pointer), 1);
  else {
    if (!(key in parent)) throw patchFailed(`doc is missing path: "${pointer}": missing value`);
    delete parent[key];
  }
}

export function jsonPatch(target: JsonValue, operations: JsonValue): JsonValue {
  if (!Array.isArray(operations)) throw badRequest('json patch must be a list of operations');
  const doc = clone(target);
  for (const op of operations) {
    if (!isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw badRequest(`invalid JSON patch operation: ${JSON.stringify(op)}`);
    }
    const path = op.path;
    const value = op.value;
    const from = typeof op.from === 'string' ? op.from : undefined;
    switch (op.op) {
      case 'add':
        if (value === undefined) throw badRequest(`missing value for "add" at "${path}"`);
        addAt(doc, path, value);
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'replace':
        if (value === undefined) throw badRequest(`missing value for "replace" at "${path}"`);
        getAt(doc, path);
        removeAt(doc, path);
        addAt(doc, path, value);
        break;
      case 'move': {
        if (from === undefined) throw badRequest(`missing from for "move" to "${path}"`);
        const moved = getAt(doc, from);
        removeAt(doc, from);
        addAt(doc, path, moved);
        break;
      }
      case 'copy':
        if (from === undefined) throw badRequest(`missing from for "copy" to "${path}"`);
        addAt(doc, path, getAt(doc, from));
        break;
      case 'test':
        if (!deepEqual(getAt(doc, path), value ?? null)) {
          throw patchFailed(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw badRequest(`Unexpected kind: ${op.op}`);
    }
  }
  return doc;
}

/** How a list field merges under a strategic merge patch; fields not listed are replaced whole. */
export type ListMergeStrategy = { mergeKey: string } | { primitiveSet: true };

/** Dotted field path (list items add no segment) -> merge strategy, e.g. `status.conditions`. */
export type PatchStrategies = Readonly<Record<string, ListMergeStrategy>>;

const directivePrefixes = ['$setElementOrder/', '$deleteFromPrimitiveList/', '$retainKeys', '$patch'];

function isDirective(key: string): boolean {
  return directivePrefixes.some((p) => key.startsWith(p));
}

function withoutDirectives(value: JsonValue): JsonValue {
  if (Array.isArray(value))
    return value.filter((v) => !(isObject(v) && v.$patch === 'delete')).map(withoutDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null || isDirective(k)) continue;
    out[k] = withoutDirectives(v);
  }
  return out;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function mergeListByKey(
  original: JsonValue | undefined,
  patch: JsonValue[],
  mergeKey: string,
  path: string,
  strategies: PatchStrategies,
): JsonValue[] {
  if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
    return patch.filter((item) => !(isObject(item) && item.$patch === 'replace')).map(withoutDirectives);
  }
  const result: JsonValue[] = Array.isArray(original) ? clone(original) : [];
  for (const item of patch) {
    if (!isObject(item))
      throw badRequest(`${path}: list item ${JSON.stringify(item)} has no merge key ${mergeKey}`);
    const key = item[mergeKey];
    if (key === undefined)
      throw badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const index = result.findIndex((existing) => isObject(existing) && deepEqual(existing[mergeKey], key));
    if (item.$patch === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = strategicMergeObject(result[index], item, path, strategies);
    } else {
      result.push(strategicMergeObject(undefined, item, path, strategies));
    }
  }
  return result;
}

function orderBy(list: JsonValue[], order: JsonValue[], mergeKey: string | undefined): JsonValue[] {
  const keyOf = (v: JsonValue): JsonValue | undefined =>
    mergeKey !== undefined && isObject(v) ? v[mergeKey] : v;
  const position = (v: JsonValue): number => {
    const i = order.findIndex((o) => deepEqual(keyOf(o), keyOf(v)));
    return i < 0 ? order.length : i;
  };
  return list
    .map((v, i) => ({ v, i }))
    .sort((a, b) => position(a.v) - position(b.v) || a.i - b.i)
    .map((x) => x.v);
}

function strategicMergeObject(
  original: JsonValue | undefined,
  patch: JsonObject,
  path: string,
  strategies: PatchStrategies,
): JsonObject {
  if (patch.$patch === 'replace') return withoutDirectives(patch) as JsonObject;
  const result: JsonObject = isObject(original) ? clone(original) : {};
  const retainKeys = patch.$retainKeys;
  if (Array.isArray(retainKeys)) {
    for (const key of Object.keys(result))
      if (!retainKeys.includes(key) && !(key in patch)) delete result[key];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (
      value === undefined ||
      key === '$patch' ||
      key === '$retainKeys' ||
      key.startsWith('$setElementOrder/')
    ) {
      continue;
    }
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((v) => !value.some((d) => deepEqual(d, v)));
      }
      continue;
    }
    const fieldPath = join(path, key);
    const strategy = strategies[fieldPath];
    if (value === null) delete result[key];
    else if (Array.isArray(value) && strategy !== undefined && 'mergeKey' in strategy) {
      result[key] = mergeListByKey(result[key], value, strategy.mergeKey, fieldPath, strategies);
    } else if (Array.isArray(value) && strategy !== undefined) {
      const current = Array.isArray(result[key]) ? (result[key] as JsonValue[]) : [];
      result[key] = [...current, ...value.filter((v) => !current.some((c) => deepEqual(c, v)))];
    } else if (isObject(value)) {
      if (value.$patch === 'delete') delete result[key];
      else result[key] = strategicMergeObject(result[key], value, fieldPath, strategies);
    } else {
      result[key] = clone(value);
    }
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith('$setElementOrder/') || !Array.isArray(order)) continue;
    const field = key.slice('$setElementOrder/'.length);
    const list = result[field];
    const strategy = strategies[join(path, field)];
    if (Array.isArray(list)) {
      result[field] = orderBy(
        list,
        order,
        strategy && 'mergeKey' in strategy ? strategy.mergeKey : undefined,
      );
    }
  }
  return result;
}

export function strategicMergePatch(
  target: JsonObject,
  patch: JsonValue,
  strategies: PatchStrategies,
): JsonObject {
  if (!isObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  return strategicMergeObject(target, patch, '', strategies);
}
