import { InvalidDesiredStateError } from './errors.js';
import { canonicalCidr, canonicalIp } from './ip-text.js';
import { routeScopeNumber, type RouteSpec } from './objects.js';
import { normaliseDst, type ObservedRoute } from './decode/route.js';
import type { DesiredState } from './desired.js';
import type { ObservedState } from './observe.js';
import type { PlanOp } from './plan-ops.js';

/** The metric the kernel gives a route that names none. */
const defaultMetric = (family: 'inet' | 'inet6'): number => (family === 'inet6' ? 1024 : 0);

/**
 * A route's identity as the kernel sees it (fib key: table, destination, tos, priority). `route
 * replace` finds its target by this key; attributes outside it (gateway, dev, src, ...) change in
 * place. The family separates IPv4 and IPv6 `default`.
 */
interface RouteKeyParts {
  readonly table: number;
  readonly family: 'inet' | 'inet6';
  readonly dst: string;
  readonly tos: number;
  readonly metric: number;
}
const routeKey = (k: RouteKeyParts): string => `${k.table}|${k.family}|${k.dst}|${k.tos}|${k.metric}`;

function routeFamily(r: RouteSpec): 'inet' | 'inet6' {
  if (r.dst === 'default') return r.family ?? (r.via?.includes(':') ? 'inet6' : 'inet');
  return r.dst.includes(':') ? 'inet6' : 'inet';
}

/**
 * The kernel's identity of a desired route (table, family, destination, tos, metric with the
 * kernel's defaults filled in): two routes with one key are one route to `route replace`.
 */
export function desiredRouteKey(r: RouteSpec): string {
  const family = routeFamily(r);
  return routeKey({
    table: r.table ?? 254,
    family,
    dst: r.dst === 'default' ? 'default' : normaliseDst(canonicalCidr(r.dst)),
    tos: r.tos ?? 0,
    metric: r.metric ?? defaultMetric(family),
  });
}

/** The kernel's identity of an observed route; equal to {@link desiredRouteKey} of the same route. */
export const observedRouteKey = (r: ObservedRoute): string =>
  routeKey({ ...r, metric: r.metric ?? defaultMetric(r.family) });

/**
 * The route operations that make the owner's routes (marked by `protocol`) the desired ones:
 * `replace` for missing or differing routes, `del` for owned routes no longer desired (when
 * `prune`), both by the kernel's key. Two desired routes with one key are refused: the kernel
 * would keep only the second.
 */
export function planRoutes(
  desired: DesiredState,
  observed: ObservedState,
  protocol: number,
  newLinks: Set<string>,
  prune: boolean,
): PlanOp[] {
  if (desired.routes === undefined) return [];
  if (observed.routes === undefined)
    throw new InvalidDesiredStateError(
      'routes',
      'the observed state has no routes: observe with observeScopeOf(desired)',
    );
  const owned = observed.routes.filter((r) => r.protocol === String(protocol));
  const have = new Map(owned.map((r) => [observedRouteKey(r), r]));
  const out: PlanOp[] = [];
  const wanted = new Map<string, number>();
  desired.routes.forEach((r, i) => {
    const key = desiredRouteKey(r);
    const twin = wanted.get(key);
    if (twin !== undefined)
      throw new InvalidDesiredStateError(
        `routes[${i}]`,
        `same table, destination, tos and metric as routes[${twin}] (the kernel keeps one route per key)`,
      );
    wanted.set(key, i);
    const h = have.get(key);
    if (!h || (r.dev !== undefined && newLinks.has(r.dev)) || routeDiffers(r, h))
      out.push({ op: 'route-replace', route: { ...r, protocol } });
  });
  for (const h of prune ? owned : []) {
    if (!wanted.has(observedRouteKey(h)))
      out.push({ op: 'route-del', route: observedRouteSpec(h, protocol) });
  }
  return out;
}

function routeDiffers(want: RouteSpec, have: ObservedRoute): boolean {
  return (
    (want.type ?? 'unicast') !== have.type ||
    ((want.type ?? 'unicast') === 'unicast' && want.dev !== undefined && want.dev !== have.dev) ||
    (want.via !== undefined && canonicalIp(want.via) !== have.via) ||
    (want.src !== undefined && canonicalIp(want.src) !== have.src) ||
    // Optional attributes are compared only when set: a route whose mtu nobody asked for keeps it.
    (want.scope !== undefined && routeScopeNumber(want.scope) !== have.scope) ||
    (want.mtu !== undefined && want.mtu !== have.mtu) ||
    (want.advmss !== undefined && want.advmss !== have.advmss) ||
    (want.onlink !== undefined && want.onlink !== (have.onlink ?? false))
  );
}

function observedRouteSpec(h: ObservedRoute, protocol: number): RouteSpec {
  const type =
    h.type === 'unicast' || h.type === 'blackhole' || h.type === 'unreachable' || h.type === 'prohibit'
      ? h.type
      : 'unicast';
  return {
    dst: h.dst,
    ...(type === 'unicast' ? {} : { type }),
    table: h.table,
    ...(h.tos === 0 ? {} : { tos: h.tos }),
    ...(h.metric === undefined ? {} : { metric: h.metric }),
    ...(h.dst === 'default' ? { family: h.family } : {}),
    protocol,
  } as RouteSpec;
}
