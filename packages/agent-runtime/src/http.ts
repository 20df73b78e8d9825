import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** Liveness of a backend (FRR's vty, OVSDB, the API server): resolves when reachable, throws why not. */
export type HealthCheck = () => Promise<void>;

export interface Readiness {
  readonly ready: boolean;
  /** Why not (empty when ready): `source not synced`, `last apply failed: ...`. */
  readonly reasons: readonly string[];
}

export interface EndpointsOptions {
  /** `host:port` for `/metrics`; omitted: no metrics endpoint. `:0` picks a free port. */
  readonly metricsAddress?: string;
  /** `host:port` for `/healthz` and `/readyz`; may equal metricsAddress (one server serves all). */
  readonly healthAddress?: string;
  readonly registry: Registry;
  readonly healthChecks: Readonly<Record<string, HealthCheck>>;
  readonly readiness: () => Readiness;
  /** A check that takes longer counts as failed. Default: 2000 ms. */
  readonly checkTimeoutMs?: number;
}

export interface Endpoints {
  /** Bound addresses, `host:port`, in the order metrics, health (one entry when they share a server). */
  readonly addresses: readonly string[];
  close(): Promise<void>;
}

/** Splits `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = Number(m?.[3]);
  if (!m || port > 65535)
    throw new TypeError(`invalid listen address ${JSON.stringify(address)} (want host:port)`);
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

/** Starts the HTTP endpoints: `/metrics` (Prometheus text), `/healthz` (backends reachable), `/readyz`. */
export async function startEndpoints(options: EndpointsOptions): Promise<Endpoints> {
  const plans: { address: string; serves: Set<'metrics' | 'health'> }[] = [];
  const want = (address: string | undefined, what: 'metrics' | 'health') => {
    if (address === undefined) return;
    // Equal addresses share a server; port 0 asks for a fresh port each time.
    const shared = parseListenAddress(address).port !== 0 && plans.find((p) => p.address === address);
    if (shared) shared.serves.add(what);
    else plans.push({ address, serves: new Set([what]) });
  };
  want(options.metricsAddress, 'metrics');
  want(options.healthAddress, 'health');
  const servers: Server[] = [];
  const addresses: string[] = [];
  try {
    for (const { address, serves } of plans) {
      const server = createServer((req, res) => {
        void handle(options, serves, req, res).catch(() => {
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
      });
      const { host, port } = parseListenAddress(address);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      servers.push(server);
      const bound = server.address() as AddressInfo;
      addresses.push(`${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`);
    }
  } catch (e) {
    await Promise.all(servers.map(closeServer));
    throw e;
  }
  return { addresses, close: () => Promise.all(servers.map(closeServer)).then(() => undefined) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function handle(
  options: EndpointsOptions,
  serves: ReadonlySet<'metrics' | 'health'>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'method not allowed\n');
  if (path === '/metrics' && serves.has('metrics')) {
    const body = await options.registry.metrics();
    return reply(res, 200, body, options.registry.contentType);
  }
  if (path === '/healthz' && serves.has('health')) {
    const failed = await runChecks(options.healthChecks, options.checkTimeoutMs ?? 2000);
    return failed.length === 0 ? reply(res, 200, 'ok\n') : reply(res, 503, `${failed.join('\n')}\n`);
  }
  if (path === '/readyz' && serves.has('health')) {
    const r = options.readiness();
    return r.ready ? reply(res, 200, 'ok\n') : reply(res, 503, `${r.reasons.join('\n')}\n`);
  }
  return reply(res, 404, 'not found\n');
}

/** Runs every check in parallel; returns `name: reason` of each failed one. */
export async function runChecks(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<string[]> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return undefined;
      } catch (e) {
        return `${name}: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}

function reply(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
