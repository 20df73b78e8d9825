import { InvalidDesiredStateError } from './errors.js';
import { canonicalCidr, canonicalIp } from './ip-text.js';
import { routeScopeNumber, type RouteSpec } from './objects.js';
import { normaliseDst, type ObservedRoute } from './decode/route.js';
import type { DesiredState } from './desired.js';
import type { ObservedState } from './observe.js';
import type { PlanOp } from './plan-ops.js';

const routeKey = (table: number, dst: string, family: string): string => `${table}|${family}|${dst}`;

function routeFamily(r: RouteSpec): 'inet' | 'inet6' {
  if (r.dst === 'default') return r.family ?? (r.via?.includes(':') ? 'inet6' : 'inet');
  return r.dst.includes(':') ? 'inet6' : 'inet';
}

/**
 * The route operations that make the owner's routes (marked by `protocol`) the desired ones:
 * `replace` for missing or differing routes, `del` for owned routes no longer desired (when `prune`).
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
  const have = new Map(owned.map((r) => [routeKey(r.table, r.dst, r.family), r]));
  const out: PlanOp[] = [];
  const wanted = new Set<string>();
  for (const r of desired.routes) {
    const dst = r.dst === 'default' ? 'default' : normaliseDst(canonicalCidr(r.dst));
    const table = r.table ?? 254;
    const key = routeKey(table, dst, routeFamily(r));
    wanted.add(key);
    const h = have.get(key);
    const route: RouteSpec = { ...r, protocol };
    if (!h || (r.dev !== undefined && newLinks.has(r.dev)) || routeDiffers(r, h)) {
      // `replace` matches on metric: a route moving to another metric leaves the old one behind.
      if (h && r.metric !== undefined && h.metric !== r.metric)
        out.push({ op: 'route-del', route: observedRouteSpec(h, protocol) });
      out.push({ op: 'route-replace', route });
    }
  }
  for (const h of prune ? owned : []) {
    if (!wanted.has(routeKey(h.table, h.dst, h.family)))
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
    (want.metric !== undefined && want.metric !== have.metric) ||
    // Optional attributes are compared only when set: a route whose mtu nobody asked for keeps it.
    (want.scope !== undefined && routeScopeNumber(want.scope) !== have.scope) ||
    (want.mtu !== undefined && want.mtu !== have.mtu) ||
    (want.advmss !== undefined && want.advmss !== have.advmss)
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
    ...(h.metric === undefined ? {} : { metric: h.metric }),
    ...(h.dst === 'default' ? { family: h.family } : {}),
    protocol,
  } as RouteSpec;
}
