import { OvsdbProtocolError } from '../errors.js';
import { vswitchColumns } from '../model/index.js';
import type {
  BridgeRow,
  InterfaceRow,
  OpenVSwitchRow,
  PortRow,
  TableColumns,
  VswitchTables,
} from '../model/index.js';
import { applyColumnDiff, decodeRow, defaultValue } from '../wire/index.js';

/** The tables the client can keep in its in-memory cache. */
export const CACHED_TABLES = ['Open_vSwitch', 'Bridge', 'Port', 'Interface'] as const;
export type CachedTable = (typeof CACHED_TABLES)[number];

/**
 * One row change applied to the cache, typed by table. `initial` rows come from the monitor's
 * first reply and from the resync after a reconnect (rows that vanished meanwhile then come as
 * `delete`).
 */
export type RowChange = {
  readonly [T in CachedTable]: {
    readonly table: T;
    readonly uuid: string;
    readonly kind: 'initial' | 'insert' | 'modify' | 'delete';
    /** The row before the change (modify, delete). */
    readonly old?: VswitchTables[T];
    /** The row after the change (initial, insert, modify). */
    readonly new?: VswitchTables[T];
  };
}[CachedTable];

/**
 * Typed, read-only view of the monitored tables, kept current by `monitor_cond` updates. Rows
 * are immutable objects replaced on every change; columns left out of the monitor are absent.
 */
export interface OvsdbCache {
  readonly Open_vSwitch: ReadonlyMap<string, OpenVSwitchRow>;
  readonly Bridge: ReadonlyMap<string, BridgeRow>;
  readonly Port: ReadonlyMap<string, PortRow>;
  readonly Interface: ReadonlyMap<string, InterfaceRow>;
  /** True once the monitor's initial contents are in (and again after each resync). */
  readonly synced: boolean;
}

type Rows = Map<string, Record<string, unknown>>;

/** The mutable cache behind {@link OvsdbCache}; only the client writes to it. */
export class TableCache implements OvsdbCache {
  private readonly tables: Record<CachedTable, Rows> = {
    Open_vSwitch: new Map(),
    Bridge: new Map(),
    Port: new Map(),
    Interface: new Map(),
  };
  synced = false;

  get Open_vSwitch(): ReadonlyMap<string, OpenVSwitchRow> {
    return this.tables.Open_vSwitch as unknown as ReadonlyMap<string, OpenVSwitchRow>;
  }
  get Bridge(): ReadonlyMap<string, BridgeRow> {
    return this.tables.Bridge as unknown as ReadonlyMap<string, BridgeRow>;
  }
  get Port(): ReadonlyMap<string, PortRow> {
    return this.tables.Port as unknown as ReadonlyMap<string, PortRow>;
  }
  get Interface(): ReadonlyMap<string, InterfaceRow> {
    return this.tables.Interface as unknown as ReadonlyMap<string, InterfaceRow>;
  }

  /** Monitored columns per table (undefined: all); rows get defaults for the columns updates leave out. */
  private columns: Partial<Record<CachedTable, readonly string[] | undefined>> = {};

  /** Replaces the whole contents with a monitor's initial reply (`table-updates2`). */
  reset(updates: unknown, columns: Partial<Record<CachedTable, readonly string[] | undefined>>): RowChange[] {
    this.columns = columns;
    const before = new Map(CACHED_TABLES.map((t) => [t, new Map(this.tables[t])] as const));
    for (const rows of Object.values(this.tables)) rows.clear();
    const changes = this.apply(updates);
    for (const [table, rows] of before) {
      for (const [uuid, old] of rows) {
        if (!this.tables[table].has(uuid))
          changes.push({ table, uuid, kind: 'delete', old } as unknown as RowChange);
      }
    }
    this.synced = true;
    return changes;
  }

  /**
   * Applies `table-updates2` (ovsdb-server(7), monitor_cond): per row one of `initial`,
   * `insert`, `delete` or `modify` (a diff).
   */
  apply(updates: unknown): RowChange[] {
    if (typeof updates !== 'object' || updates === null)
      throw new OvsdbProtocolError('update2: table-updates is not an object');
    const changes: RowChange[] = [];
    for (const [table, rowUpdates] of Object.entries(updates as Record<string, unknown>)) {
      if (!(CACHED_TABLES as readonly string[]).includes(table)) continue;
      const t = table as CachedTable;
      const rows = this.tables[t];
      const columns: TableColumns = vswitchColumns[t];
      if (typeof rowUpdates !== 'object' || rowUpdates === null)
        throw new OvsdbProtocolError(`update2: ${table} updates is not an object`);
      for (const [uuid, u] of Object.entries(rowUpdates as Record<string, unknown>)) {
        const update = u as {
          initial?: unknown;
          insert?: unknown;
          delete?: unknown;
          modify?: unknown;
        } | null;
        if (typeof update !== 'object' || update === null)
          throw new OvsdbProtocolError(`update2: ${table} ${uuid}: not a row-update2`);
        const old = rows.get(uuid) as VswitchTables[CachedTable] | undefined;
        if ('initial' in update || 'insert' in update) {
          const kind = 'initial' in update ? 'initial' : 'insert';
          const row = this.withDefaults(t, decodeRow(columns, table, update[kind], uuid));
          rows.set(uuid, Object.freeze(row));
          changes.push({ table: t, uuid, kind, new: row } as unknown as RowChange);
        } else if ('delete' in update) {
          rows.delete(uuid);
          changes.push({ table: t, uuid, kind: 'delete', ...(old ? { old } : {}) } as RowChange);
        } else if ('modify' in update) {
          if (!old) throw new OvsdbProtocolError(`update2: modify of unknown ${table} row ${uuid}`);
          const diff = update.modify as Record<string, unknown>;
          const row: Record<string, unknown> = { ...(old as unknown as Record<string, unknown>) };
          for (const [column, value] of Object.entries(diff ?? {})) {
            const type = columns[column];
            if (type) row[column] = applyColumnDiff(type, row[column], value, `${table}.${column}`);
          }
          rows.set(uuid, Object.freeze(row));
          changes.push({ table: t, uuid, kind: 'modify', old, new: row } as unknown as RowChange);
        } else {
          throw new OvsdbProtocolError(
            `update2: ${table} ${uuid}: unknown row update ${JSON.stringify(update).slice(0, 100)}`,
          );
        }
      }
    }
    return changes;
  }

  private withDefaults(table: CachedTable, row: Record<string, unknown>): Record<string, unknown> {
    const columns: TableColumns = vswitchColumns[table];
    for (const name of this.columns[table] ?? Object.keys(columns)) {
      const type = columns[name];
      if (type && !(name in row)) row[name] = defaultValue(type);
    }
    return row;
  }
}
