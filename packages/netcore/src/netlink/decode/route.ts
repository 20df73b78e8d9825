import { z } from 'zod';
import { parseIpJson } from './parse.js';
import { ROUTE_SCOPES, type RouteScopeName } from '../objects.js';

/** A route as observed (`ip -j route show table all`), normalised for comparison. */
export interface ObservedRoute {
  /** `unicast`, `blackhole`, `local`, ... */
  readonly type: string;
  /** `default` or `ADDRESS/LEN` (host routes get /32 or /128). */
  readonly dst: string;
  /** Numeric table id (main = 254, local = 255). */
  readonly table: number;
  readonly protocol: string;
  readonly dev: string | undefined;
  readonly via: string | undefined;
  readonly src: string | undefined;
  readonly metric: number | undefined;
  /** Numeric scope (0 = global, what iproute2 leaves out of its dump). */
  readonly scope: number;
  /** The `mtu` and `advmss` route metrics, when set. */
  readonly mtu: number | undefined;
  readonly advmss: number | undefined;
  /** From the dump it came from: JSON routes carry no family, and `default` needs one. */
  readonly family: 'inet' | 'inet6';
}

const RouteJson = z.object({
  type: z.string().optional(),
  dst: z.string(),
  table: z.string().optional(),
  protocol: z.string().optional(),
  dev: z.string().optional(),
  gateway: z.string().optional(),
  prefsrc: z.string().optional(),
  metric: z.number().optional(),
  scope: z.union([z.string(), z.number()]).optional(),
  // A locked metric prints as ["lock", N].
  metrics: z.array(z.record(z.string(), z.unknown())).optional(),
});

const NAMED_TABLES: Readonly<Record<string, number>> = { main: 254, local: 255, default: 253 };

export function tableId(table: string | undefined): number {
  if (table === undefined) return 254;
  return NAMED_TABLES[table] ?? Number(table);
}

/** A scope as `ip -j` prints it (a name from rt_scopes, or a number it has no name for). */
function scopeId(scope: string | number | undefined): number {
  if (scope === undefined) return 0;
  if (typeof scope === 'number') return scope;
  return scope in ROUTE_SCOPES ? ROUTE_SCOPES[scope as RouteScopeName] : Number(scope);
}

function routeMetric(
  metrics: ReadonlyArray<Record<string, unknown>> | undefined,
  key: string,
): number | undefined {
  const v = metrics?.find((m) => key in m)?.[key];
  const n = Array.isArray(v) ? v[v.length - 1] : v;
  return typeof n === 'number' ? n : undefined;
}

/** Adds the implied prefix length to host routes so that `10.0.0.1` and `10.0.0.1/32` compare equal. */
export function normaliseDst(dst: string): string {
  if (dst === 'default' || dst.includes('/')) return dst;
  return `${dst}/${dst.includes(':') ? 128 : 32}`;
}

/** Decodes `ip -j -4 route show table all` (family `inet`) or `ip -j -6 ...` (`inet6`). */
export const decodeRouteDump = (stdout: string, family: 'inet' | 'inet6'): ObservedRoute[] =>
  parseIpJson('ip -j route dump', stdout, z.array(RouteJson)).map((r) => ({
    type: r.type ?? 'unicast',
    dst: normaliseDst(r.dst),
    table: tableId(r.table),
    protocol: r.protocol ?? 'boot',
    dev: r.dev,
    via: r.gateway,
    src: r.prefsrc,
    metric: r.metric,
    scope: scopeId(r.scope),
    mtu: routeMetric(r.metrics, 'mtu'),
    advmss: routeMetric(r.metrics, 'advmss'),
    family,
  }));
