// Operation builders (libovsdb's `Create`/`Where(...).Update`): they only build RFC 7047
// operations from decoded values; nothing here talks to a server. Concatenate the arrays they
// return and pass them to one `client.transact(ops)` to make them one atomic transaction.
import type { ColumnType, TableColumns, TableName, VswitchTables } from '../model/index.js';
import { vswitchColumns } from '../model/index.js';
import { OvsdbInvalidInputError } from '../errors.js';
import { decodeRow, encodeRow, encodeValue, namedUuid } from '../wire/index.js';
import type {
  Condition,
  ConditionFunction,
  Mutation,
  Mutator,
  Operation,
  OperationResult,
  Value,
  WireRow,
} from '../wire/index.js';

type Row<T extends TableName> = VswitchTables[T];
/** A column name of table `T`, `_uuid` included. */
export type ColumnName<T extends TableName> = keyof Row<T> & string;

/** What a column accepts when writing: arrays for sets, records (or Maps) for maps, `null` clears an optional column. */
type InputOf<V> = V extends readonly (infer E)[]
  ? readonly E[]
  : V extends ReadonlyMap<infer K, infer W>
    ? ReadonlyMap<K, W>
    : undefined extends V
      ? Exclude<V, undefined> | null
      : V;

/**
 * A row to insert or the columns to update, in decoded form. A uuid column takes a real UUID or
 * the uuid-name of a row inserted earlier in the same transaction.
 */
export type RowInput<T extends TableName> = {
  readonly [C in Exclude<ColumnName<T>, '_uuid'>]?: InputOf<Row<T>[C]>;
};

/** `[column, function, value]` with a decoded value (an array for a set, a record for a map). */
export type ConditionInput<T extends TableName> = readonly [
  column: ColumnName<T>,
  fn: ConditionFunction,
  value: unknown,
];
/** `[column, mutator, value]`; for a map `delete`, the value may be an array of keys. */
export type MutationInput<T extends TableName> = readonly [
  column: Exclude<ColumnName<T>, '_uuid'>,
  mutator: Mutator,
  value: unknown,
];

function columnType(table: TableName, column: string): ColumnType {
  const type = (vswitchColumns[table] as TableColumns)[column];
  if (!type) throw new OvsdbInvalidInputError(`${table}.${column}`, 'no such column');
  return type;
}

function encodeCondition<T extends TableName>(table: T, [column, fn, value]: ConditionInput<T>): Condition {
  return [column, fn, encodeValue(columnType(table, column), value, `${table}.${column}`)];
}

/**
 * The value of a mutation: `insert`/`delete` take a set of elements (a single element is
 * accepted) or, for a map column, a map (`delete` also takes an array of keys); arithmetic
 * mutators take one atom.
 */
function encodeMutationValue(table: TableName, column: string, mutator: Mutator, value: unknown): Value {
  const type = columnType(table, column);
  const field = `${table}.${column}`;
  if (type.kind === 'map') return encodeValue(type, value, field);
  if (mutator === 'insert' || mutator === 'delete')
    return encodeValue({ kind: 'set', key: type.key }, Array.isArray(value) ? value : [value], field);
  return encodeValue({ kind: 'atom', key: type.key }, value, field);
}

/**
 * `insert` of one row. Pass `uuidName` to reference the new row from later operations of the
 * same transaction (give the name wherever a uuid is expected).
 */
export function insert<T extends TableName>(table: T, row: RowInput<T>, uuidName?: string): Operation[] {
  const wire = encodeRow(vswitchColumns[table], table, row as Readonly<Record<string, unknown>>);
  if (uuidName === undefined) return [{ op: 'insert', table, row: wire }];
  namedUuid(uuidName);
  return [{ op: 'insert', table, row: wire, 'uuid-name': uuidName }];
}

/** Options of {@link TableQuery.wait}. */
export interface WaitOptions<T extends TableName> {
  /** Columns compared against `rows`. */
  readonly columns: readonly ColumnName<T>[];
  /** `==`: wait until the selected rows equal `rows`; `!=`: until they differ. */
  readonly until: '==' | '!=';
  /** Expected rows (decoded form, only `columns`). */
  readonly rows: readonly RowInput<T>[];
  /** 0 fails at once when the condition does not hold; omitted waits without limit. */
  readonly timeoutMs?: number;
}

/** Operations on the rows of one table that match every condition. */
export interface TableQuery<T extends TableName> {
  update(row: RowInput<T>): Operation[];
  mutate(...mutations: MutationInput<T>[]): Operation[];
  delete(): Operation[];
  select(...columns: ColumnName<T>[]): Operation[];
  wait(options: WaitOptions<T>): Operation[];
}

/** Selects the rows of `table` matching all `conditions` (none: every row), for the operation that follows. */
export function where<T extends TableName>(table: T, ...conditions: ConditionInput<T>[]): TableQuery<T> {
  const w = conditions.map((c) => encodeCondition(table, c));
  const columns = vswitchColumns[table];
  return {
    update: (row) => [
      {
        op: 'update',
        table,
        where: w,
        row: encodeRow(columns, table, row as Readonly<Record<string, unknown>>),
      },
    ],
    mutate: (...mutations) => [
      {
        op: 'mutate',
        table,
        where: w,
        mutations: mutations.map(([column, mutator, value]): Mutation => [
          column,
          mutator,
          encodeMutationValue(table, column, mutator, value),
        ]),
      },
    ],
    delete: () => [{ op: 'delete', table, where: w }],
    select: (...cols) => [
      cols.length === 0
        ? { op: 'select', table, where: w }
        : { op: 'select', table, where: w, columns: cols },
    ],
    wait: (o) => {
      const rows: WireRow[] = o.rows.map((r) =>
        encodeRow(columns, table, r as Readonly<Record<string, unknown>>),
      );
      return [
        o.timeoutMs === undefined
          ? { op: 'wait', table, where: w, columns: o.columns, until: o.until, rows }
          : { op: 'wait', table, where: w, columns: o.columns, until: o.until, rows, timeout: o.timeoutMs },
      ];
    },
  };
}

/** A `comment` operation: ovsdb-server writes it to its log with the transaction. */
export const comment = (text: string): Operation[] => [{ op: 'comment', comment: text }];

/** Decodes the rows a `select` returned (only the selected columns are present). */
export function selectedRows<T extends TableName>(
  table: T,
  result: OperationResult | undefined,
): Partial<Row<T>>[] {
  return (result?.rows ?? []).map((r) => decodeRow(vswitchColumns[table], table, r) as Partial<Row<T>>);
}

/** The uuid of the row an `insert` created. */
export const insertedUuid = (result: OperationResult | undefined): string | undefined => result?.uuid?.[1];
