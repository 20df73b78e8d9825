import { z } from 'zod';
import { NetlinkDecodeError } from '../errors.js';
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
  /** Type of service (DS field); 0 when the dump shows none. */
  readonly tos: number;
  /** Numeric scope (0 = global, what iproute2 leaves out of its dump). */
  readonly scope: number;
  /** The `mtu` and `advmss` route metrics, when set. */
  readonly mtu: number | undefined;
  readonly advmss: number | undefined;
  /** True when the gateway was declared on-link (`onlink`); absent otherwise. */
  readonly onlink?: boolean;
  /** JSON routes carry no family, and `default` needs one: see {@link routeFamily}. */
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
  // `0x10`, or a name of /usr/share/iproute2/rt_dsfield.
  tos: z.union([z.string(), z.number()]).optional(),
  scope: z.union([z.string(), z.number()]).optional(),
  // A locked metric prints as ["lock", N].
  metrics: z.array(z.record(z.string(), z.unknown())).optional(),
  flags: z.array(z.string()).optional(),
  // The router preference: the kernel gives it to every IPv6 route (RTA_PREF) and to no IPv4 one.
  pref: z.string().optional(),
});

/**
 * The family of a route of a family-less dump (`ip -j route show`, both families). The
 * destination tells, except `default`: an IPv6 route is the one that carries a preference. Not the
 * gateway: an IPv4 route may have an IPv6 next hop (RFC 8950).
 */
const routeFamily = (r: z.infer<typeof RouteJson>): 'inet' | 'inet6' => {
  if (r.dst !== 'default') return r.dst.includes(':') ? 'inet6' : 'inet';
  return r.pref === undefined ? 'inet' : 'inet6';
};

const NAMED_TABLES: Readonly<Record<string, number>> = { main: 254, local: 255, default: 253 };

export function tableId(table: string | undefined): number {
  if (table === undefined) return 254;
  return NAMED_TABLES[table] ?? Number(table);
}

/** The names iproute2 prints for DS field values (/usr/share/iproute2/rt_dsfield). */
const DSFIELD_NAMES: Readonly<Record<string, number>> = {
  default: 0x00,
  CS1: 0x20,
  AF11: 0x28,
  AF12: 0x30,
  AF13: 0x38,
  CS2: 0x40,
  AF21: 0x48,
  AF22: 0x50,
  AF23: 0x58,
  CS3: 0x60,
  AF31: 0x68,
  AF32: 0x70,
  AF33: 0x78,
  CS4: 0x80,
  AF41: 0x88,
  AF42: 0x90,
  AF43: 0x98,
  CS5: 0xa0,
  EF: 0xb8,
  CS6: 0xc0,
  CS7: 0xe0,
};

/** A tos as `ip -j` prints it: absent (0), `0xNN`, or a name from rt_dsfield. */
function tosValue(tos: string | number | undefined): number {
  if (tos === undefined) return 0;
  if (typeof tos === 'number') return tos;
  const n = DSFIELD_NAMES[tos] ?? (/^0x[0-9a-f]+$/i.test(tos) ? parseInt(tos, 16) : Number.NaN);
  if (Number.isNaN(n)) throw new NetlinkDecodeError('ip -j route dump', `unknown tos ${JSON.stringify(tos)}`);
  return n;
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

/**
 * Decodes `ip -j route show table all`, with or without `-d` (both families). `protocol` is that
 * of the routes that print none: ip omits `boot`, and the protocol a `proto N` filter fixes.
 */
export const decodeRouteDump = (stdout: string, options: { protocol?: string } = {}): ObservedRoute[] =>
  parseIpJson('ip -j route dump', stdout, z.array(RouteJson)).map((r) => ({
    type: r.type ?? 'unicast',
    dst: normaliseDst(r.dst),
    table: tableId(r.table),
    protocol: r.protocol ?? options.protocol ?? 'boot',
    dev: r.dev,
    via: r.gateway,
    src: r.prefsrc,
    metric: r.metric,
    tos: tosValue(r.tos),
    scope: scopeId(r.scope),
    mtu: routeMetric(r.metrics, 'mtu'),
    advmss: routeMetric(r.metrics, 'advmss'),
    ...(r.flags?.includes('onlink') ? { onlink: true } : {}),
    family: routeFamily(r),
  }));
