import { canonicalIp, compareIp, familyOf } from '@fabrik/api';
import type { FrrIntent, FrrLayer2Intent, FrrVrfIntent } from '../intent.js';
import type { LeakStrategy } from './leaks/leak-strategy.js';
import { TAGGED_BY_GUARD } from './loop-guard.js';
import { frrObjectNames } from './names.js';
import type { PolicyObjects } from './policy.js';
import { compareText, gracefulLines, l2RouteTargetsToPrint, uniqueSorted } from './printing.js';
import { vrfPeer, type BfdProfiles } from './sessions.js';
import type { FrrRouteTargetModel, FrrStaticRouteModel, FrrVrfModel } from './types.js';

// VRFs (their BGP instances, static routes, route-targets, EVPN export) and L2 VNIs.

/** What every VRF's model is built with. */
export interface VrfContext {
  readonly intent: FrrIntent;
  readonly policy: PolicyObjects;
  readonly bfd: BfdProfiles;
  readonly leaks: LeakStrategy;
}

/** The model of `vrfs[index]`. */
export function vrfModel(vrf: FrrVrfIntent, index: number, ctx: VrfContext): FrrVrfModel {
  const ipv4 = vrf.addressFamilies.includes('ipv4');
  const ipv6 = vrf.addressFamilies.includes('ipv6');
  const exportRouteMap = exportFilter(vrf, index, ctx);
  const { importVrfs, importRouteMap, ibgp } = ctx.leaks.leaks(vrf, index);
  const redistribute = (['connected', 'static', 'kernel'] as const).filter((r) => vrf.redistribute[r]);
  const aggregates = [...new Set(vrf.aggregates.map(canonicalIp))].sort(compareIp);
  const peers = vrf.bgpPeers
    .map((p, k) => vrfPeer(vrf.name, `vrfs[${index}].bgpPeers[${k}]`, p, ctx.policy, ctx.bfd))
    .sort((a, b) => compareText(a.id, b.id));
  const [routeTarget, importRouteTargets, exportRouteTargets] = routeTargetsOf(vrf, ctx.intent.asn);
  const v4Aggregates = aggregates.filter((a) => familyOf(a) === 'ipv4');
  const v6Aggregates = aggregates.filter((a) => familyOf(a) === 'ipv6');
  const leaks = redistribute.length > 0 || importVrfs.length > 0 || importRouteMap !== null;
  const ipv6Content = leaks || v6Aggregates.length > 0 || peers.some((p) => p.ipv6 !== null);
  return {
    name: vrf.name,
    instanceLines: gracefulLines(ctx.intent),
    asn: ctx.intent.asn,
    ...ctx.leaks.identity(vrf),
    vni: vrf.vni,
    routeTarget,
    importRouteTargets,
    exportRouteTargets,
    ipv4: ipv4 && (leaks || ibgp !== null || v4Aggregates.length > 0 || peers.some((p) => p.ipv4 !== null)),
    advertiseIpv4: ipv4,
    advertiseIpv6: ipv6,
    importVrfs,
    importRouteMap,
    exportRouteMap,
    aggregates: v4Aggregates,
    redistribute,
    staticRoutes: staticRoutes(vrf),
    peers,
    ipv6: ipv6 && ipv6Content ? { redistribute, aggregates: v6Aggregates, importVrfs, importRouteMap } : null,
    ibgp,
  };
}

/**
 * An hbrVrf that is leaked from but not declared in `vrfs`: a BGP instance without EVPN that
 * redistributes its connected routes.
 */
export function localVrf(intent: FrrIntent): FrrVrfModel {
  return {
    name: intent.hbrVrf,
    instanceLines: gracefulLines(intent),
    asn: intent.asn,
    routerId: intent.routerId,
    rd: null,
    vni: null,
    routeTarget: null,
    importRouteTargets: [],
    exportRouteTargets: [],
    ipv4: true,
    advertiseIpv4: false,
    advertiseIpv6: false,
    importVrfs: [],
    importRouteMap: null,
    exportRouteMap: null,
    aggregates: [],
    redistribute: ['connected'],
    staticRoutes: [],
    peers: [],
    ipv6: null,
    ibgp: null,
  };
}

/** The route-map of `advertise ipv4|ipv6 unicast route-map`: loop guard first, then the export filter. */
function exportFilter(vrf: FrrVrfIntent, index: number, ctx: VrfContext): string | null {
  const guard = ctx.intent.fabricLoopGuard.enabled;
  const name = frrObjectNames.exportRouteMap(vrf.name);
  const rules = vrf.export;
  const hasRules = Array.isArray(rules) ? rules.length > 0 : true;
  if (!hasRules && !guard) return null;
  const policy = ctx.policy.for({
    path: `vrfs[${index}].export`,
    what: `the export filter of VRF ${vrf.name}`,
  });
  if (guard) policy.entry(name, 'deny', 5, { matches: [TAGGED_BY_GUARD] });
  if (!Array.isArray(rules)) policy.filter(name, rules);
  else if (rules.length === 0) policy.entry(name, 'permit', 10);
  else policy.matchPrefixRules(name, frrObjectNames.exportPrefixList(vrf.name), rules, 10);
  return name;
}

/** [symmetric route-target or null, import list, export list]; default `asn:vni`. */
function routeTargetsOf(vrf: FrrVrfIntent, asn: number): [string | null, string[], string[]] {
  if (vrf.routeTargets) {
    const imports = uniqueSorted(vrf.routeTargets.import);
    const exports = uniqueSorted(vrf.routeTargets.export);
    const symmetric = imports.length === 1 && exports.length === 1 && imports[0] === exports[0];
    return [symmetric ? (imports[0] ?? null) : null, imports, exports];
  }
  const rt = vrf.routeTarget ?? `${asn}:${vrf.vni}`;
  return [rt, [rt], [rt]];
}

function staticRoutes(vrf: FrrVrfIntent): FrrStaticRouteModel[] {
  const routes = vrf.staticRoutes.map((r): FrrStaticRouteModel => {
    let target: string;
    if (r.blackhole) target = 'blackhole';
    else if (r.nexthop !== undefined)
      target = `${canonicalIp(r.nexthop)}${r.nextHopVrf !== undefined ? ` nexthop-vrf ${r.nextHopVrf}` : ''}`;
    else target = `${r.nextHopVrf} nexthop-vrf ${r.nextHopVrf}`;
    return { command: familyOf(r.prefix) === 'ipv4' ? 'ip' : 'ipv6', prefix: canonicalIp(r.prefix), target };
  });
  const unique = new Map(routes.map((r) => [`${r.prefix} ${r.target}`, r]));
  return [...unique.values()].sort(
    (a, b) => compareIp(a.prefix, b.prefix) || compareText(a.target, b.target),
  );
}

/** L2 VNIs that need a `vni N` block (route-targets FRR does not derive itself, advertise-svi-ip), by VNI. */
export function l2VniBlocks(asn: number, layer2s: readonly FrrLayer2Intent[]): FrrRouteTargetModel[] {
  return layer2s
    .map((l2) => {
      const given = (list: readonly string[] | undefined) =>
        l2RouteTargetsToPrint(asn, l2.vni, list ?? (l2.routeTarget ? [l2.routeTarget] : []));
      const importRouteTargets = given(l2.routeTargets?.import);
      const exportRouteTargets = given(l2.routeTargets?.export);
      const symmetric =
        importRouteTargets.length === 1 &&
        exportRouteTargets.length === 1 &&
        importRouteTargets[0] === exportRouteTargets[0];
      return {
        vni: l2.vni,
        routeTarget: symmetric ? (importRouteTargets[0] ?? null) : null,
        importRouteTargets,
        exportRouteTargets,
        advertiseSviIp: l2.advertiseSviIp,
      };
    })
    .filter((l2) => l2.importRouteTargets.length > 0 || l2.exportRouteTargets.length > 0 || l2.advertiseSviIp)
    .sort((a, b) => a.vni - b.vni);
}
