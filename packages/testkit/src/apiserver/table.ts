// meta.k8s.io/v1 Table responses, what `kubectl get` asks for (Accept: ...;as=Table): NAME plus
// the CRD's additionalPrinterColumns (or the built-in kinds' usual columns), cells computed from
// each column's JSONPath.
import { isObject, type JsonObject, type JsonValue } from './json.js';
import type { PrinterColumn, ResourceType } from './resources.js';

type Step = { field: string } | { index: number | '*' } | { filter: { path: string[]; value: string } };

function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+|\*)\]|\[\?\(@\.([A-Za-z0-9_.-]+)\s*==\s*["']([^"']*)["']\)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path.replace(/^\{|\}$/g, ''))) !== null) {
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) steps.push({ index: m[2] === '*' ? '*' : Number(m[2]) });
    else steps.push({ filter: { path: m[3]!.split('.'), value: m[4]! } });
  }
  return steps;
}

/** The values a simple JSONPath selects: `.a.b`, `[0]`, `[*]`, `[?(@.type=="Ready")]`. */
export function jsonPathValues(obj: JsonValue, path: string): JsonValue[] {
  let current: JsonValue[] = [obj];
  for (const step of parseJsonPath(path)) {
    const next: JsonValue[] = [];
    for (const value of current) {
      if ('field' in step) {
        if (isObject(value) && value[step.field] !== undefined) next.push(value[step.field]!);
      } else if ('index' in step) {
        if (!Array.isArray(value)) continue;
        if (step.index === '*') next.push(...value);
        else if (value[step.index] !== undefined) next.push(value[step.index]!);
      } else if (Array.isArray(value)) {
        for (const item of value) {
          let v: JsonValue | undefined = item;
          for (const p of step.filter.path) v = isObject(v) ? v[p] : undefined;
          if (v !== undefined && String(v) === step.filter.value) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

/** apimachinery's duration.HumanDuration, which the server uses for `date` columns ("5m", "3d4h"). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  const withRest = (big: number, bigUnit: string, small: number, smallUnit: string): string =>
    small === 0 ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`;
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

function cell(obj: JsonObject, column: PrinterColumn): JsonValue {
  if (column.compute) return column.compute(obj);
  const values = jsonPathValues(obj, column.jsonPath);
  if (values.length === 0) return null;
  if (column.type === 'date' && typeof values[0] === 'string') {
    const time = Date.parse(values[0]);
    return Number.isNaN(time) ? values[0] : humanDuration(Date.now() - time);
  }
  if (values.length > 1) return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
  const value = values[0]!;
  if (column.type === 'string' && typeof value !== 'string')
    return isObject(value) || Array.isArray(value) ? JSON.stringify(value) : String(value);
  return value;
}

export function partialMetadata(obj: JsonObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata ?? {} };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function tableColumns(t: ResourceType): JsonObject[] {
  const name: JsonObject = {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace.',
    priority: t.nameLast ? 1 : 0,
  };
  const columns = t.columns.map((c) => ({
    name: c.name,
    type: c.type,
    format: c.format ?? '',
    description: c.description ?? '',
    priority: c.priority,
  }));
  return t.nameLast ? [...columns, name] : [name, ...columns];
}

export function tableRow(t: ResourceType, obj: JsonObject, include: IncludeObject): JsonObject {
  const name = isObject(obj.metadata) ? (obj.metadata.name ?? '') : '';
  const cells = t.columns.map((c) => cell(obj, c));
  const row: JsonObject = { cells: t.nameLast ? [...cells, name] : [name, ...cells] };
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') row.object = partialMetadata(obj);
  return row;
}

export function table(
  t: ResourceType,
  objects: JsonObject[],
  listMeta: JsonObject,
  include: IncludeObject,
  withColumns = true,
): JsonObject {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    ...(withColumns ? { columnDefinitions: tableColumns(t) } : {}),
    rows: objects.map((o) => tableRow(t, o, include)),
  };
}
