import { OvsdbInvalidInputError, OvsdbProtocolError } from '../errors.js';
import type { AtomicType, ColumnType, TableColumns } from '../model/columns.js';
import type { Atom, NamedUuid, OvsMap, OvsSet, Uuid, Value, WireRow } from './types.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `s` is a real UUID (as opposed to a uuid-name). */
export const isUuidString = (s: string): boolean => UUID_RE.test(s);

export const uuid = (s: string): Uuid => ['uuid', s];
export const namedUuid = (name: string): NamedUuid => {
  if (!UUID_NAME_RE.test(name))
    throw new OvsdbInvalidInputError('uuid-name', `${JSON.stringify(name)} is not an OVSDB <id>`);
  return ['named-uuid', name];
};
export const set = (atoms: readonly Atom[]): OvsSet => ['set', atoms];
export const map = (entries: Iterable<readonly [Atom, Atom]>): OvsMap => ['map', [...entries]];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);

/**
 * Encodes one atom of `type`. A uuid that is not a real UUID becomes a named-uuid, so one
 * transaction can insert a row and reference it by the name given to the insert.
 */
export function encodeAtom(type: AtomicType, v: unknown, field: string): Atom {
  switch (type) {
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      break;
    case 'real':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'uuid':
      if (typeof v === 'string') return isUuidString(v) ? uuid(v) : namedUuid(v);
      if (Array.isArray(v) && (v[0] === 'uuid' || v[0] === 'named-uuid') && typeof v[1] === 'string')
        return v as unknown as Uuid;
      break;
  }
  throw new OvsdbInvalidInputError(
    field,
    `expected ${type === 'integer' ? 'an integer' : `a ${type}`}, got ${JSON.stringify(v)}`,
  );
}

/**
 * Encodes a column value from its decoded form: an atom, `null`/`undefined` (the empty set of an
 * optional column), an array (a set), or a record/Map (a map). An array given for a map column
 * is a set of keys (what a map `delete` mutation takes).
 */
export function encodeValue(type: ColumnType, v: unknown, field: string): Value {
  if (type.kind === 'map') {
    if (Array.isArray(v)) return set(v.map((k, i) => encodeAtom(type.key, k, `${field}[${i}]`)));
    const entries: [unknown, unknown][] =
      v instanceof Map ? [...v.entries()] : isPlainObject(v) ? Object.entries(v) : [];
    if (!(v instanceof Map) && !isPlainObject(v))
      throw new OvsdbInvalidInputError(field, `expected a map, got ${JSON.stringify(v)}`);
    return map(
      entries.map(([k, val]) => {
        const key = type.key !== 'string' && typeof k === 'string' ? Number(k) : k;
        return [
          encodeAtom(type.key, key, `${field}.${String(k)}`),
          encodeAtom(type.value, val, `${field}.${String(k)}`),
        ] as const;
      }),
    );
  }
  if (v === null || v === undefined) {
    if (type.kind === 'atom') throw new OvsdbInvalidInputError(field, 'is required');
    return set([]);
  }
  if (Array.isArray(v) && !(type.key === 'uuid' && (v[0] === 'uuid' || v[0] === 'named-uuid'))) {
    if (type.kind === 'atom' && v.length !== 1)
      throw new OvsdbInvalidInputError(field, 'expected exactly one value');
    if (type.kind === 'optional' && v.length > 1)
      throw new OvsdbInvalidInputError(field, 'expected at most one value');
    return set(v.map((a, i) => encodeAtom(type.key, a, `${field}[${i}]`)));
  }
  return encodeAtom(type.key, v, field);
}

/** Encodes a row (decoded form) for `insert`/`update`; `undefined` members are left out. */
export function encodeRow(
  columns: TableColumns,
  table: string,
  row: Readonly<Record<string, unknown>>,
): WireRow {
  const out: Record<string, Value> = {};
  for (const [name, v] of Object.entries(row)) {
    if (v === undefined) continue;
    const type = columns[name];
    if (!type) throw new OvsdbInvalidInputError(`${table}.${name}`, 'no such column');
    out[name] = encodeValue(type, v, `${table}.${name}`);
  }
  return out;
}

/** A decoded atom: uuids become plain strings. */
export type DecodedAtom = string | number | boolean;

function protocolError(field: string, type: string, v: unknown): never {
  throw new OvsdbProtocolError(`${field}: expected ${type}, got ${JSON.stringify(v)?.slice(0, 200)}`);
}

/** Decodes one atom received from the server. */
export function decodeAtom(type: AtomicType, v: unknown, field: string): DecodedAtom {
  switch (type) {
    case 'string':
      if (typeof v === 'string') return v;
      break;
    case 'integer':
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      break;
    case 'real':
      if (typeof v === 'number') return v;
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'uuid':
      if (Array.isArray(v) && v.length === 2 && v[0] === 'uuid' && typeof v[1] === 'string') return v[1];
      break;
  }
  return protocolError(field, type, v);
}

/** The elements of a set value; a bare atom is a one-element set (RFC 7047 5.1). */
export function setElements(v: unknown, field: string): readonly unknown[] {
  if (Array.isArray(v) && v[0] === 'set') {
    if (v.length !== 2 || !Array.isArray(v[1])) protocolError(field, 'a set', v);
    return v[1] as unknown[];
  }
  return [v];
}

function mapPairs(v: unknown, field: string): readonly (readonly [unknown, unknown])[] {
  if (!Array.isArray(v) || v[0] !== 'map' || v.length !== 2 || !Array.isArray(v[1]))
    protocolError(field, 'a map', v);
  const pairs = v[1] as unknown[];
  for (const p of pairs)
    if (!Array.isArray(p) || p.length !== 2) protocolError(field, 'a [key, value] pair', p);
  return pairs as [unknown, unknown][];
}

/** A decoded map column: a record for string keys, a Map for any other key type. */
type DecodedMap = Readonly<Record<string, DecodedAtom>> | ReadonlyMap<DecodedAtom, DecodedAtom>;

function buildMap(
  type: ColumnType & { kind: 'map' },
  entries: Iterable<readonly [DecodedAtom, DecodedAtom]>,
): DecodedMap {
  return type.key === 'string' ? Object.fromEntries(entries) : new Map(entries);
}

function mapEntries(m: unknown): [DecodedAtom, DecodedAtom][] {
  if (m instanceof Map) return [...(m as Map<DecodedAtom, DecodedAtom>).entries()];
  return Object.entries(m as Record<string, DecodedAtom>);
}

/** Decodes a column value received from the server into its decoded form. */
export function decodeValue(type: ColumnType, v: unknown, field: string): unknown {
  switch (type.kind) {
    case 'atom':
      return decodeAtom(type.key, v, field);
    case 'optional': {
      const el = setElements(v, field);
      if (el.length > 1) protocolError(field, 'at most one value', v);
      return el.length === 0 ? undefined : decodeAtom(type.key, el[0], field);
    }
    case 'set':
      return setElements(v, field).map((a) => decodeAtom(type.key, a, field));
    case 'map':
      return buildMap(
        type,
        mapPairs(v, field).map(
          ([k, val]) => [decodeAtom(type.key, k, field), decodeAtom(type.value, val, field)] as const,
        ),
      );
  }
}

/** Decodes the columns present in `row`; columns the schema does not know are skipped. */
export function decodeRow(
  columns: TableColumns,
  table: string,
  row: unknown,
  uuidOfRow?: string,
): Record<string, unknown> {
  if (!isPlainObject(row)) protocolError(table, 'a row object', row);
  const out: Record<string, unknown> = uuidOfRow === undefined ? {} : { _uuid: uuidOfRow };
  for (const [name, v] of Object.entries(row)) {
    const type = columns[name];
    if (type) out[name] = decodeValue(type, v, `${table}.${name}`);
  }
  return out;
}

/** The value a column has when a row update leaves it out (`initial`/`insert` omit default values). */
export function defaultValue(type: ColumnType): unknown {
  switch (type.kind) {
    case 'atom':
      return type.key === 'string' || type.key === 'uuid' ? '' : type.key === 'boolean' ? false : 0;
    case 'optional':
      return undefined;
    case 'set':
      return [];
    case 'map':
      return buildMap(type, []);
  }
}

/**
 * Applies the `modify` of a monitor_cond `update2` notification (ovsdb-server(7)) to one decoded
 * column value: a set with more than one element allowed gets the symmetric difference, a map
 * gets per-key insert/update/delete, scalar and optional columns (max 1) get the new value (an
 * optional column being cleared arrives as `["set",[]]`).
 */
export function applyColumnDiff(type: ColumnType, current: unknown, diff: unknown, field: string): unknown {
  switch (type.kind) {
    case 'atom':
    case 'optional':
      return decodeValue(type, diff, field);
    case 'set': {
      const els = new Set<DecodedAtom>(current as DecodedAtom[]);
      for (const raw of setElements(diff, field)) {
        const a = decodeAtom(type.key, raw, field);
        if (els.has(a)) els.delete(a);
        else els.add(a);
      }
      return [...els];
    }
    case 'map': {
      const entries = new Map(mapEntries(current));
      for (const [rk, rv] of mapPairs(diff, field)) {
        const k = decodeAtom(type.key, rk, field);
        const v = decodeAtom(type.value, rv, field);
        if (entries.has(k) && entries.get(k) === v) entries.delete(k);
        else entries.set(k, v);
      }
      return buildMap(type, entries);
    }
  }
}
