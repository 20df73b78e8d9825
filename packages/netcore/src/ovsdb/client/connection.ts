import { createConnection, type Socket } from 'node:net';
import {
  OvsdbConnectionError,
  OvsdbInvalidInputError,
  OvsdbProtocolError,
  OvsdbRpcError,
  OvsdbTimeoutError,
} from '../errors.js';
import { JsonStreamDecoder } from '../wire/index.js';

/** Where ovsdb-server listens, in ovs-vsctl syntax. */
export type Endpoint =
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

/** Parses `unix:/path`, `tcp:host:port` or `tcp:[v6addr]:port`. */
export function parseEndpoint(endpoint: string): Endpoint {
  if (endpoint.startsWith('unix:')) {
    const path = endpoint.slice('unix:'.length);
    if (path) return { kind: 'unix', path };
  } else if (endpoint.startsWith('tcp:')) {
    const m = /^tcp:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(endpoint);
    const port = Number(m?.[3]);
    if (m && port >= 1 && port <= 65535) return { kind: 'tcp', host: (m[1] ?? m[2])!, port };
  }
  throw new OvsdbInvalidInputError(
    'endpoint',
    `${JSON.stringify(endpoint)} is not unix:PATH or tcp:HOST:PORT`,
  );
}

/** The logger shape fabrik uses everywhere (pino-compatible): structured object first, then the message. */
export interface OvsdbLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: OvsdbLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

interface PendingRequest {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

interface ConnectionHandlers {
  /** A JSON-RPC notification or request from the server other than `echo`. */
  onNotification(method: string, params: unknown): void;
  /** The socket closed; `error` is why (undefined after {@link RpcConnection.close}). */
  onClose(error: Error | undefined): void;
}

/** Opens a socket to `endpoint`, rejecting with {@link OvsdbConnectionError} when it is unreachable. */
export function openSocket(endpointText: string, endpoint: Endpoint, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket =
      endpoint.kind === 'unix'
        ? createConnection({ path: endpoint.path })
        : createConnection({ host: endpoint.host, port: endpoint.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new OvsdbConnectionError(endpointText, `connect timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      if (endpoint.kind === 'tcp') {
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 10_000);
      }
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new OvsdbConnectionError(endpointText, `cannot connect: ${e.code ?? e.message}`, { cause: e }));
    });
  });
}

/**
 * One JSON-RPC 1.0 session over one socket (RFC 7047 section 4): request ids, per-request
 * timeouts, answers to the server's `echo`, notifications handed to the owner. It never
 * reconnects; the client does that by opening a new one.
 */
export class RpcConnection {
  private readonly decoder = new JsonStreamDecoder();
  private readonly pending = new Map<number, PendingRequest>();
  private nextId = 1;
  private closed = false;
  private lastReceived = Date.now();
  private probeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly endpoint: string,
    private readonly socket: Socket,
    private readonly handlers: ConnectionHandlers,
    private readonly logger: OvsdbLogger,
    probe: { probeIntervalMs: number; probeTimeoutMs: number } = { probeIntervalMs: 0, probeTimeoutMs: 0 },
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.lastReceived = Date.now();
      this.onData(chunk);
    });
    if (probe.probeIntervalMs > 0) this.startProbe(probe.probeIntervalMs, probe.probeTimeoutMs);
    socket.on('error', (e: NodeJS.ErrnoException) =>
      this.shutdown(new OvsdbConnectionError(endpoint, `socket error: ${e.code ?? e.message}`, { cause: e })),
    );
    socket.on('close', () =>
      this.shutdown(new OvsdbConnectionError(endpoint, 'connection closed by the server')),
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a request and resolves with its `result`; rejects with a typed error on failure or timeout. */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new OvsdbConnectionError(this.endpoint, 'connection is closed'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new OvsdbTimeoutError(`${method} request ${id} to ${this.endpoint} got no reply`, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve, reject, timer });
      this.send({ method, params, id });
    });
  }

  /** Closes the socket; pending requests fail with {@link OvsdbConnectionError}. */
  close(): void {
    this.shutdown(new OvsdbConnectionError(this.endpoint, 'connection closed by the client'), true);
  }

  /** Sends an `echo` after `intervalMs` of silence; no answer within `timeoutMs` drops the connection. */
  private startProbe(intervalMs: number, timeoutMs: number): void {
    let probing = false;
    this.probeTimer = setInterval(
      () => {
        if (probing || Date.now() - this.lastReceived < intervalMs) return;
        probing = true;
        this.request('echo', ['fabrik-probe'], timeoutMs).then(
          () => (probing = false),
          (e: unknown) => {
            this.logger.warn(
              { endpoint: this.endpoint, err: e },
              'ovsdb: no answer to the inactivity probe, dropping the connection',
            );
            this.shutdown(
              new OvsdbConnectionError(
                this.endpoint,
                `no answer to the inactivity probe within ${timeoutMs} ms`,
                { cause: e },
              ),
            );
          },
        );
      },
      Math.max(10, Math.floor(intervalMs / 2)),
    );
    // The probe alone must not keep a process alive.
    this.probeTimer.unref();
  }

  private send(message: object): void {
    this.socket.write(JSON.stringify(message));
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    try {
      this.decoder.push(chunk, (m) => {
        if (!this.closed) this.dispatch(m);
      });
    } catch (e) {
      // The byte stream cannot be resynchronised after garbage: drop the connection.
      this.logger.error(
        { endpoint: this.endpoint, err: e },
        'ovsdb: malformed data from the server, closing the connection',
      );
      this.shutdown(e as Error);
    }
  }

  private dispatch(m: unknown): void {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) {
      this.logger.warn(
        { endpoint: this.endpoint, message: m },
        'ovsdb: ignoring a JSON value that is not a JSON-RPC message',
      );
      return;
    }
    const msg = m as { method?: unknown; params?: unknown; id?: unknown; result?: unknown; error?: unknown };
    if (typeof msg.method === 'string') {
      if (msg.method === 'echo' && msg.id !== undefined && msg.id !== null) {
        this.send({ id: msg.id, result: msg.params ?? [], error: null });
      } else {
        try {
          this.handlers.onNotification(msg.method, msg.params);
        } catch (e) {
          // A notification the cache cannot apply leaves it out of step with the server: start over.
          this.logger.error(
            { endpoint: this.endpoint, err: e, method: msg.method },
            'ovsdb: cannot apply a notification, closing the connection',
          );
          this.shutdown(e instanceof Error ? e : new OvsdbProtocolError(String(e)));
        }
      }
      return;
    }
    const pending = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined;
    if (!pending) {
      this.logger.debug(
        { endpoint: this.endpoint, id: msg.id },
        'ovsdb: reply to no pending request (timed out?)',
      );
      return;
    }
    this.pending.delete(msg.id as number);
    clearTimeout(pending.timer);
    if (!('result' in msg) && !('error' in msg)) {
      pending.reject(new OvsdbProtocolError(`${pending.method}: reply has neither result nor error`));
    } else if (msg.error !== null && msg.error !== undefined) {
      pending.reject(new OvsdbRpcError(pending.method, msg.error));
    } else {
      pending.resolve(msg.result);
    }
  }

  private shutdown(error: Error, byClient = false): void {
    if (this.closed) return;
    this.closed = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.socket.destroy();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
    this.handlers.onClose(byClient ? undefined : error);
  }
}
