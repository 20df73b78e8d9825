import { OvsdbConnectionError, OvsdbOperationError, OvsdbProtocolError } from '../errors.js';
import { VSWITCH_DATABASE } from '../model/index.js';
import type { VswitchTables } from '../model/index.js';
import type { Operation, OperationResult } from '../wire/index.js';
import { CACHED_TABLES, TableCache, type CachedTable, type OvsdbCache, type RowChange } from './cache.js';
import {
  openSocket,
  parseEndpoint,
  RpcConnection,
  silentLogger,
  type Endpoint,
  type OvsdbLogger,
} from './connection.js';

/** Backoff between reconnect attempts: doubles from `initialDelayMs` up to `maxDelayMs`. */
export interface ReconnectOptions {
  /** Default 100 ms. */
  readonly initialDelayMs?: number;
  /** Default 5000 ms. */
  readonly maxDelayMs?: number;
}

/** Options of {@link connectOvsdb}. */
export interface ConnectOptions {
  /** Connect timeout and default timeout of every request. Default 10 000 ms. */
  readonly timeoutMs?: number;
  /**
   * Reconnect after the connection drops (ovsdb-server restarted), with capped exponential
   * backoff, and re-run the monitor so the cache matches the new server. Requests made while
   * reconnecting wait for the connection (up to their timeout). The first connect is never
   * retried: an unreachable endpoint rejects at once. Default false.
   */
  readonly reconnect?: boolean | ReconnectOptions;
  /** pino-compatible logger. Default: silent. */
  readonly logger?: OvsdbLogger;
  /** Database name. Default `Open_vSwitch`. */
  readonly database?: string;
  /**
   * When nothing arrived for this long, send an `echo`; when that gets no reply within
   * `timeoutMs`, drop the connection (and reconnect, if enabled). Detects a peer that vanished
   * without closing the TCP connection. Default 0: off (ovsdb-server probes idle clients itself).
   */
  readonly probeIntervalMs?: number;
}

/** Options of one request. */
export interface RequestOptions {
  /** Overrides the client's default timeout for this request. */
  readonly timeoutMs?: number;
}

/** Which columns of which tables {@link OvsdbClient.monitor} keeps; omitted columns: all of them. */
export type MonitorTables = {
  readonly [T in CachedTable]?: { readonly columns?: readonly (keyof VswitchTables[T] & string)[] };
};

/** Connection state as reported to {@link OvsdbClient.onStateChange}. */
export type ConnectionState = 'connected' | 'reconnecting' | 'closed';

/** A connection to one OVSDB database. */
export interface OvsdbClient {
  readonly endpoint: string;
  readonly database: string;
  /** Rows of Open_vSwitch, Bridge, Port and Interface, once {@link OvsdbClient.monitor} has been called. */
  readonly cache: OvsdbCache;
  readonly state: ConnectionState;
  /**
   * Runs `ops` as one transaction. Resolves with one result per operation; throws
   * {@link OvsdbOperationError} when any operation, or the commit, failed (the database is then
   * unchanged). A timed-out transaction may still have been committed.
   */
  transact(ops: readonly Operation[], options?: RequestOptions): Promise<OperationResult[]>;
  /**
   * Starts (or replaces) the `monitor_cond` that fills {@link OvsdbClient.cache}; resolves once the
   * initial contents are in. Default: every column of the four cached tables.
   */
  monitor(tables?: MonitorTables, options?: RequestOptions): Promise<void>;
  /** Calls `listener` after each batch of cache changes; returns the unsubscribe function. */
  onCacheUpdate(listener: (changes: readonly RowChange[]) => void): () => void;
  /** Calls `listener` when the connection state changes; returns the unsubscribe function. */
  onStateChange(listener: (state: ConnectionState) => void): () => void;
  /** Sends any JSON-RPC method (`list_dbs`, `get_schema`, `echo`, ...) and resolves with its result. */
  call(method: string, params: unknown, options?: RequestOptions): Promise<unknown>;
  /** Closes the connection and stops reconnecting; pending requests fail with OvsdbConnectionError. */
  close(): Promise<void>;
}

const MONITOR_ID = 'fabrik-cache';

class Client implements OvsdbClient {
  readonly cache = new TableCache();
  state: ConnectionState = 'connected';
  private conn: RpcConnection | undefined;
  private monitorTables: MonitorTables | undefined;
  private readonly cacheListeners = new Set<(changes: readonly RowChange[]) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  /** Requests waiting for a reconnect. */
  private readonly connectWaiters = new Set<{
    resolve: (c: RpcConnection) => void;
    reject: (e: Error) => void;
  }>();
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly timeoutMs: number;
  private readonly reconnect: Required<ReconnectOptions> | undefined;
  private readonly logger: OvsdbLogger;
  private readonly probeIntervalMs: number;

  constructor(
    readonly endpoint: string,
    private readonly parsed: Endpoint,
    readonly database: string,
    options: ConnectOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.logger = options.logger ?? silentLogger;
    this.probeIntervalMs = options.probeIntervalMs ?? 0;
    const r = options.reconnect;
    this.reconnect = r
      ? {
          initialDelayMs: (r === true ? undefined : r.initialDelayMs) ?? 100,
          maxDelayMs: (r === true ? undefined : r.maxDelayMs) ?? 5000,
        }
      : undefined;
  }

  async open(): Promise<void> {
    this.conn = await this.newConnection();
  }

  private async newConnection(): Promise<RpcConnection> {
    const socket = await openSocket(this.endpoint, this.parsed, this.timeoutMs);
    const conn: RpcConnection = new RpcConnection(
      this.endpoint,
      socket,
      {
        onNotification: (method, params) => this.onNotification(method, params),
        onClose: (error) => this.onConnectionClosed(conn, error),
      },
      this.logger,
      { probeIntervalMs: this.probeIntervalMs, probeTimeoutMs: this.timeoutMs },
    );
    return conn;
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private onConnectionClosed(conn: RpcConnection, error: Error | undefined): void {
    if (conn !== this.conn || this.state === 'closed') return;
    this.conn = undefined;
    // Lost during a reconnect attempt (before it finished re-monitoring): that attempt fails and retries.
    if (this.state === 'reconnecting') return;
    this.logger.warn({ endpoint: this.endpoint, err: error }, 'ovsdb: connection lost');
    this.cache.synced = false;
    if (!this.reconnect) {
      this.setState('closed');
      return;
    }
    this.setState('reconnecting');
    this.scheduleReconnect(this.reconnect.initialDelayMs);
  }

  private scheduleReconnect(delayMs: number): void {
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.tryReconnect(delayMs);
    }, delayMs);
  }

  private async tryReconnect(lastDelayMs: number): Promise<void> {
    if (this.state !== 'reconnecting' || !this.reconnect) return;
    let conn: RpcConnection | undefined;
    try {
      conn = await this.newConnection();
      if (this.state !== 'reconnecting') {
        conn.close();
        return;
      }
      this.conn = conn;
      if (this.monitorTables) await this.startMonitor(conn, this.monitorTables, this.timeoutMs);
    } catch (e) {
      if (conn && this.conn === conn) {
        this.conn = undefined;
        conn.close();
      }
      if (this.state !== 'reconnecting') return;
      const next = Math.min(lastDelayMs * 2, this.reconnect.maxDelayMs);
      this.logger.debug({ endpoint: this.endpoint, err: e, retryInMs: next }, 'ovsdb: reconnect failed');
      this.scheduleReconnect(next);
      return;
    }
    this.logger.info({ endpoint: this.endpoint }, 'ovsdb: reconnected');
    this.setState('connected');
    for (const w of this.connectWaiters) w.resolve(conn);
    this.connectWaiters.clear();
  }

  /** The live connection, waiting for a reconnect in progress (up to `timeoutMs`). */
  private connection(timeoutMs: number): Promise<RpcConnection> {
    if (this.state === 'connected' && this.conn && !this.conn.isClosed) return Promise.resolve(this.conn);
    if (this.state !== 'reconnecting')
      return Promise.reject(new OvsdbConnectionError(this.endpoint, 'the client is closed'));
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (c: RpcConnection) => {
          clearTimeout(timer);
          resolve(c);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.connectWaiters.delete(waiter);
        reject(
          new OvsdbConnectionError(
            this.endpoint,
            `not connected: reconnecting for longer than ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.connectWaiters.add(waiter);
    });
  }

  async call(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    if (this.state === 'connected' && this.conn && !this.conn.isClosed)
      return this.conn.request(method, params, timeoutMs);
    // Waiting for a reconnect counts against the request's timeout.
    const started = Date.now();
    const conn = await this.connection(timeoutMs);
    return conn.request(method, params, Math.max(1, timeoutMs - (Date.now() - started)));
  }

  async transact(ops: readonly Operation[], options: RequestOptions = {}): Promise<OperationResult[]> {
    const result = await this.call('transact', [this.database, ...ops], options);
    return checkTransactResult(ops, result);
  }

  async monitor(tables: MonitorTables = defaultMonitorTables(), options: RequestOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const conn = await this.connection(timeoutMs);
    if (this.monitorTables)
      await conn.request('monitor_cancel', [MONITOR_ID], timeoutMs).catch(() => undefined);
    this.monitorTables = tables;
    await this.startMonitor(conn, tables, timeoutMs);
  }

  private async startMonitor(conn: RpcConnection, tables: MonitorTables, timeoutMs: number): Promise<void> {
    const requests: Record<string, { columns?: readonly string[] }[]> = {};
    const columns: Partial<Record<CachedTable, readonly string[] | undefined>> = {};
    for (const [table, spec] of Object.entries(tables) as [
      CachedTable,
      { readonly columns?: readonly string[] } | undefined,
    ][]) {
      requests[table] = [spec?.columns ? { columns: spec.columns } : {}];
      columns[table] = spec?.columns;
    }
    const initial = await conn.request('monitor_cond', [this.database, MONITOR_ID, requests], timeoutMs);
    this.emit(this.cache.reset(initial, columns));
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== 'update2') {
      this.logger.debug({ endpoint: this.endpoint, method }, 'ovsdb: ignoring notification');
      return;
    }
    if (!Array.isArray(params) || params.length !== 2)
      throw new OvsdbProtocolError('update2: params is not [monitor-id, table-updates2]');
    if (params[0] !== MONITOR_ID) return;
    this.emit(this.cache.apply(params[1]));
  }

  private emit(changes: readonly RowChange[]): void {
    if (changes.length === 0) return;
    for (const l of this.cacheListeners) {
      try {
        l(changes);
      } catch (e) {
        this.logger.error({ err: e }, 'ovsdb: cache listener threw');
      }
    }
  }

  onCacheUpdate(listener: (changes: readonly RowChange[]) => void): () => void {
    this.cacheListeners.add(listener);
    return () => this.cacheListeners.delete(listener);
  }

  onStateChange(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.setState('closed');
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const w of this.connectWaiters)
      w.reject(new OvsdbConnectionError(this.endpoint, 'the client was closed'));
    this.connectWaiters.clear();
    this.conn?.close();
    this.conn = undefined;
  }
}

const defaultMonitorTables = (): MonitorTables => Object.fromEntries(CACHED_TABLES.map((t) => [t, {}]));

/**
 * Validates a `transact` reply and throws {@link OvsdbOperationError} for the first failed
 * operation, including the extra trailing element that reports a commit failure.
 */
export function checkTransactResult(ops: readonly Operation[], result: unknown): OperationResult[] {
  if (!Array.isArray(result))
    throw new OvsdbProtocolError(
      `transact: result is not an array: ${JSON.stringify(result)?.slice(0, 200)}`,
    );
  if (result.length < ops.length) {
    // ovsdb-server answers every operation up to the failing one; a shorter reply without an error is malformed.
    const failed = result.findIndex((r) => r && typeof r === 'object' && 'error' in r);
    if (failed < 0)
      throw new OvsdbProtocolError(`transact: ${result.length} results for ${ops.length} operations`);
  }
  for (let i = 0; i < result.length; i++) {
    const r = result[i] as unknown;
    if (r === null) continue; // not executed because an earlier operation failed
    if (typeof r !== 'object' || Array.isArray(r))
      throw new OvsdbProtocolError(`transact: result ${i} is not an object`);
    const { error, details } = r as { error?: unknown; details?: unknown };
    if (error !== undefined && error !== null) {
      throw new OvsdbOperationError(
        i,
        ops[i],
        String(error),
        typeof details === 'string' ? details : details === undefined ? undefined : JSON.stringify(details),
      );
    }
  }
  return result as OperationResult[];
}

/**
 * Connects to ovsdb-server at `endpoint` (`unix:/path` or `tcp:host:port`). Rejects with
 * {@link OvsdbConnectionError} when nothing listens there.
 */
export async function connectOvsdb(endpoint: string, options: ConnectOptions = {}): Promise<OvsdbClient> {
  const client = new Client(endpoint, parseEndpoint(endpoint), options.database ?? VSWITCH_DATABASE, options);
  await client.open();
  return client;
}
