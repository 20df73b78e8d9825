import type { Logger } from '@fabrik/agent-runtime';
import { OVS_STATE_COLUMNS, connectOvsdb, type OvsdbClient, type RowChange } from '@fabrik/netcore/ovsdb';

// The one OVSDB connection agent-host holds: connected in the background (ovsdb-server may start
// after the agent), then kept by the client's own reconnect, with a monitor_cond cache of the
// Bridge, Port, Interface and Open_vSwitch tables that every reconcile plans from.

export interface OvsConnection {
  /** The client once connected and monitoring; undefined before. */
  client(): OvsdbClient | undefined;
  /** Connected, and the cache holds the server's current contents. */
  ready(): boolean;
  /** Why not ready, for status and health. */
  problem(): string | undefined;
  /** The client once it is ready (at once when it is), or undefined after `timeoutMs` without. */
  readyClient(timeoutMs: number): Promise<OvsdbClient | undefined>;
  close(): Promise<void>;
}

export interface OvsConnectionOptions {
  readonly endpoint: string;
  readonly logger: Logger;
  /** Every batch of cache changes (including the resync after a reconnect). */
  readonly onCacheUpdate: (changes: readonly RowChange[]) => void;
  /** The connection came up (first time, or again after ovsdb-server restarted). */
  readonly onConnected: () => void;
  /** Backoff of the first connection attempts. */
  readonly retry?: { readonly initialMs: number; readonly maxMs: number };
}

export function openOvsConnection(options: OvsConnectionOptions): OvsConnection {
  const { logger } = options;
  const retry = options.retry ?? { initialMs: 100, maxMs: 5000 };
  let client: OvsdbClient | undefined;
  let lastError = 'not connected yet';
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const isReady = () => client !== undefined && client.state === 'connected' && client.cache.synced;
  /** Callers of readyClient waiting for the connection (and its cache) to come up. */
  const readyWaiters = new Set<() => void>();
  const wakeReadyWaiters = () => {
    for (const wake of readyWaiters) wake();
  };

  const attempt = async (delayMs: number): Promise<void> => {
    if (closed) return;
    let c: OvsdbClient | undefined;
    try {
      c = await connectOvsdb(options.endpoint, {
        reconnect: { initialDelayMs: retry.initialMs, maxDelayMs: retry.maxMs },
        logger,
        timeoutMs: 10_000,
      });
      c.onCacheUpdate((changes) => {
        options.onCacheUpdate(changes);
        wakeReadyWaiters();
      });
      c.onStateChange((state) => {
        if (state === 'connected') options.onConnected();
        else lastError = `ovsdb ${state}`;
        wakeReadyWaiters();
      });
      // The columns the planner reads: not the statistics ovs-vswitchd rewrites every few seconds.
      await c.monitor(OVS_STATE_COLUMNS);
    } catch (e) {
      await c?.close();
      lastError = e instanceof Error ? e.message : String(e);
      logger.debug({ err: e, retryInMs: delayMs }, 'ovsdb: not reachable yet');
      timer = setTimeout(() => void attempt(Math.min(delayMs * 2, retry.maxMs)), delayMs);
      return;
    }
    if (closed) {
      await c.close();
      return;
    }
    client = c;
    logger.info({ endpoint: options.endpoint }, 'ovsdb: connected');
    options.onConnected();
    wakeReadyWaiters();
  };
  void attempt(retry.initialMs);

  return {
    client: () => client,
    ready: isReady,
    problem: () =>
      client === undefined
        ? `ovsdb ${options.endpoint}: ${lastError}`
        : client.state !== 'connected' || !client.cache.synced
          ? `ovsdb ${options.endpoint}: ${client.state}, cache ${client.cache.synced ? 'synced' : 'not synced'}`
          : undefined,
    readyClient: (timeoutMs) =>
      new Promise((resolve) => {
        const settle = () => {
          if (!isReady() && !closed) return;
          readyWaiters.delete(settle);
          clearTimeout(expiry);
          resolve(isReady() ? client : undefined);
        };
        const expiry = setTimeout(() => {
          readyWaiters.delete(settle);
          resolve(undefined);
        }, timeoutMs);
        readyWaiters.add(settle);
        settle();
      }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      wakeReadyWaiters();
      await client?.close();
    },
  };
}

/**
 * For one-shot commands (`plan`, `cleanup`): connect now (no retry) and read the tables once. An
 * unreachable OVSDB gives a connection that is not ready (`problem()` says why): a node without
 * Open vSwitch has nothing there to plan or clean.
 */
export async function connectOvsOnce(endpoint: string, logger: Logger): Promise<OvsConnection> {
  let client: OvsdbClient;
  try {
    client = await connectOvsdb(endpoint, { logger, timeoutMs: 10_000 });
  } catch (e) {
    const why = `ovsdb ${endpoint}: ${e instanceof Error ? e.message : String(e)}`;
    return {
      client: () => undefined,
      ready: () => false,
      problem: () => why,
      readyClient: async () => undefined,
      close: async () => {},
    };
  }
  try {
    await client.monitor(OVS_STATE_COLUMNS);
  } catch (e) {
    await client.close();
    throw e;
  }
  const ready = () => client.state === 'connected' && client.cache.synced;
  return {
    client: () => client,
    ready,
    problem: () => (client.state === 'connected' ? undefined : `ovsdb ${endpoint}: ${client.state}`),
    readyClient: async () => (ready() ? client : undefined),
    close: () => client.close(),
  };
}
