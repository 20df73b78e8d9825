import {
  FrrIntentError,
  type FrrIntent,
  type FrrPrefixRule,
  type FrrTemplateSet,
  type FrrVrfIntent,
} from './intent.js';

// The view model the templates render. Everything a template prints is computed here: names,
// sort order, sequence numbers, route-map clauses. Templates only loop and branch, so a user
// override of one partial cannot get ordering or naming wrong.

export interface FrrNeighborModel {
  /** What FRR calls the neighbor: the address, or the interface of an unnumbered session. */
  readonly id: string;
  /** `internal`, `external` or the AS number. */
  readonly remoteAs: string;
  /** Unnumbered (`neighbor IF interface remote-as ...`). */
  readonly interface: boolean;
  readonly password: string | null;
  readonly bfd: boolean;
  /** Outbound route-map in the ipv4 unicast family (vrf-ibgp: keeps tenant routes out of the underlay). */
  readonly ipv4RouteMapOut: string | null;
}

export interface FrrRouteTargetModel {
  readonly vni: number;
  readonly routeTarget: string;
}

export interface FrrStaticRouteModel {
  readonly prefix: string;
  /** The next hop address or `blackhole`. */
  readonly target: string;
}

/** The iBGP session of one VRF to the default VRF over a veth pair (template set vrf-ibgp). */
export interface FrrIbgpLinkModel {
  /** The veth end in the default VRF: `ibd<vni>`. */
  readonly defaultSide: string;
  /** The veth end enslaved to the VRF: `ibv<vni>`. */
  readonly vrfSide: string;
  /** Applied by the VRF to what it sends to the default VRF: tags routes with `tag`. */
  readonly toDefaultRouteMap: string;
  /** Applied by the default VRF to what it sends to this VRF: the leak sources and the import filter. */
  readonly fromDefaultRouteMap: string;
  /** Large community that marks routes originated in this VRF: `ASN:1:VNI`. */
  readonly tag: string;
}

export interface FrrVrfModel {
  readonly name: string;
  readonly asn: number;
  readonly routerId: string;
  /** The L3 VNI; null for an hbrVrf that is not declared in `vrfs` (local VRF without EVPN). */
  readonly vni: number | null;
  readonly routeTarget: string | null;
  /** Sorted names of the VRFs this one leaks from (`import vrf`). */
  readonly importVrfs: readonly string[];
  /** Route-map for `import vrf route-map` (netns) built from the `import` rules. */
  readonly importRouteMap: string | null;
  /** Route-map for `advertise ipv4 unicast route-map` built from the `export` rules. */
  readonly exportRouteMap: string | null;
  readonly aggregates: readonly string[];
  /** `connected`, `static`. */
  readonly redistribute: readonly string[];
  readonly staticRoutes: readonly FrrStaticRouteModel[];
  /** vrf-ibgp only. */
  readonly ibgp: FrrIbgpLinkModel | null;
}

export interface FrrPrefixListEntryModel {
  readonly list: string;
  readonly seq: number;
  readonly action: 'permit' | 'deny';
  readonly prefix: string;
  readonly ge: number | null;
  readonly le: number | null;
}

export interface FrrPrefixListModel {
  readonly name: string;
  readonly entries: readonly FrrPrefixListEntryModel[];
}

export interface FrrRouteMapEntryModel {
  readonly name: string;
  readonly action: 'permit' | 'deny';
  readonly seq: number;
  /** Clauses after `match ` (`ip address prefix-list NAME`). */
  readonly matches: readonly string[];
  /** Clauses after `set `. */
  readonly sets: readonly string[];
}

export interface FrrLargeCommunityListModel {
  readonly name: string;
  /** Large communities, each printed as `bgp large-community-list standard NAME permit VALUE`. */
  readonly values: readonly string[];
}

/** Everything the templates print, precomputed and sorted. */
export interface FrrModel {
  readonly mode: FrrTemplateSet;
  readonly hostname: string | null;
  readonly asn: number;
  readonly routerId: string;
  /** `vtepIp/32`, announced into the underlay. */
  readonly vtepPrefix: string;
  /** Underlay neighbors, sorted by id. */
  readonly neighbors: readonly FrrNeighborModel[];
  /** L2 VNIs with a route-target other than FRR's automatic one (ASN:VNI), sorted by VNI. */
  readonly l2RouteTargets: readonly FrrRouteTargetModel[];
  /** VRFs sorted by name (with an undeclared but referenced hbrVrf as a local VRF). */
  readonly vrfs: readonly FrrVrfModel[];
  /** VRFs that carry an L3 VNI (`vrf NAME` / ` vni N` blocks), sorted by name. */
  readonly l3Vrfs: readonly FrrVrfModel[];
  readonly prefixLists: readonly FrrPrefixListModel[];
  readonly largeCommunityLists: readonly FrrLargeCommunityListModel[];
  /** Route-map entries sorted by name, then sequence. */
  readonly routeMaps: readonly FrrRouteMapEntryModel[];
}

export interface FrrModelOptions {
  /** Overrides the intent's `mode`. */
  readonly mode?: FrrTemplateSet;
  /** Printed as `hostname NAME`; must equal the running hostname for frr-reload.py. */
  readonly hostname?: string;
}

const HOSTNAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Names fabrik gives to the FRR objects of a VRF (documented in README.md). */
export const frrObjectNames = {
  importPrefixList: (vrf: string) => `fabrik-${vrf}-import`,
  exportPrefixList: (vrf: string) => `fabrik-${vrf}-export`,
  importRouteMap: (vrf: string) => `fabrik-${vrf}-import`,
  exportRouteMap: (vrf: string) => `fabrik-${vrf}-export`,
  toDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-to-default`,
  fromDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-from-default`,
  sourcesCommunityList: (vrf: string) => `fabrik-${vrf}-sources`,
  underlayRouteMapOut: 'fabrik-underlay-out',
  tenantCommunityList: 'fabrik-tenant-routes',
} as const;

/** The veth pair of a VRF in template set vrf-ibgp: `ibd<vni>` in the default VRF, `ibv<vni>` in the VRF. */
export function vrfIbgpLinkNames(vni: number): { defaultSide: string; vrfSide: string } {
  return { defaultSide: `ibd${vni}`, vrfSide: `ibv${vni}` };
}

/**
 * Turns a parsed intent into the view model of the templates. Pure: same intent, same model.
 * Throws {@link FrrIntentError} for what only the chosen template set cannot express.
 */
export function toFrrModel(intent: FrrIntent, options: FrrModelOptions = {}): FrrModel {
  const mode = options.mode ?? intent.mode;
  const hostname = options.hostname ?? null;
  if (hostname !== null && !HOSTNAME.test(hostname)) {
    throw new FrrIntentError([
      { path: 'hostname', message: 'must be a valid host name (letters, digits, - and .)' },
    ]);
  }
  const ibgp = mode === 'vrf-ibgp';
  const byName = new Map(intent.vrfs.map((v) => [v.name, v]));
  const prefixLists: FrrPrefixListModel[] = [];
  const routeMaps: FrrRouteMapEntryModel[] = [];
  const largeCommunityLists: FrrLargeCommunityListModel[] = [];
  const tagOf = (vni: number) => `${intent.asn}:1:${vni}`;

  const referencesHbr = intent.vrfs.some((v) => v.importVrfs.includes(intent.hbrVrf));
  if (referencesHbr && !byName.has(intent.hbrVrf) && ibgp) {
    const i = intent.vrfs.findIndex((v) => v.importVrfs.includes(intent.hbrVrf));
    const j = intent.vrfs[i]?.importVrfs.indexOf(intent.hbrVrf) ?? 0;
    throw new FrrIntentError([
      {
        path: `vrfs[${i}].importVrfs[${j}]`,
        message: `template set vrf-ibgp can only leak from VRFs declared in vrfs ("${intent.hbrVrf}" has no VNI to name its veth pair)`,
      },
    ]);
  }

  const vrfs: FrrVrfModel[] = intent.vrfs.map((vrf) => {
    // `import` rules filter leaked routes: without importVrfs there is nothing to filter.
    const importList =
      vrf.import.length > 0 && vrf.importVrfs.length > 0
        ? addPrefixList(prefixLists, frrObjectNames.importPrefixList(vrf.name), vrf.import)
        : null;
    const exportList =
      vrf.export.length > 0
        ? addPrefixList(prefixLists, frrObjectNames.exportPrefixList(vrf.name), vrf.export)
        : null;
    let importRouteMap: string | null = null;
    let exportRouteMap: string | null = null;
    if (exportList) {
      exportRouteMap = frrObjectNames.exportRouteMap(vrf.name);
      routeMaps.push(matchPrefixList(exportRouteMap, exportList));
    }
    let link: FrrIbgpLinkModel | null = null;
    if (ibgp) {
      link = ibgpLink(vrf, byName, importList, routeMaps, largeCommunityLists, tagOf);
    } else if (importList) {
      importRouteMap = frrObjectNames.importRouteMap(vrf.name);
      routeMaps.push(matchPrefixList(importRouteMap, importList));
    }
    return {
      name: vrf.name,
      asn: intent.asn,
      routerId: intent.routerId,
      vni: vrf.vni,
      routeTarget: vrf.routeTarget ?? `${intent.asn}:${vrf.vni}`,
      importVrfs: ibgp ? [] : [...vrf.importVrfs].sort(),
      importRouteMap,
      exportRouteMap,
      aggregates: [...new Set(vrf.aggregates)].sort(comparePrefix),
      redistribute: (['connected', 'static'] as const).filter((r) => vrf.redistribute[r]),
      staticRoutes: staticRoutes(vrf),
      ibgp: link,
    };
  });
  if (referencesHbr && !byName.has(intent.hbrVrf)) vrfs.push(localVrf(intent));
  vrfs.sort((a, b) => compareText(a.name, b.name));

  const tenantFilter = ibgp && intent.vrfs.length > 0;
  const neighbors: FrrNeighborModel[] = intent.underlay.neighbors
    .map((n) => ({
      id: n.address ?? n.interface ?? '',
      remoteAs: String(n.remoteAs),
      interface: n.interface !== undefined,
      password: n.password ?? null,
      bfd: n.bfd,
      ipv4RouteMapOut: tenantFilter ? frrObjectNames.underlayRouteMapOut : null,
    }))
    .sort((a, b) => compareText(a.id, b.id));
  if (tenantFilter) {
    // Tenant routes reach the default VRF over the iBGP sessions: keep them out of the underlay.
    largeCommunityLists.push({
      name: frrObjectNames.tenantCommunityList,
      values: intent.vrfs.map((v) => tagOf(v.vni)).sort(compareText),
    });
    routeMaps.push(
      {
        name: frrObjectNames.underlayRouteMapOut,
        action: 'deny',
        seq: 10,
        matches: [`large-community ${frrObjectNames.tenantCommunityList}`],
        sets: [],
      },
      { name: frrObjectNames.underlayRouteMapOut, action: 'permit', seq: 20, matches: [], sets: [] },
    );
  }

  return {
    mode,
    hostname,
    asn: intent.asn,
    routerId: intent.routerId,
    vtepPrefix: `${intent.vtepIp}/32`,
    neighbors,
    l2RouteTargets: intent.layer2s
      // FRR omits an L2 route-target equal to its automatic one (ASN:VNI) from the running
      // config; rendering it would make every reload report a change.
      .filter(
        (l2) =>
          l2.routeTarget !== undefined &&
          !(intent.asn <= 0xffff && l2.routeTarget === `${intent.asn}:${l2.vni}`),
      )
      .map((l2) => ({ vni: l2.vni, routeTarget: l2.routeTarget ?? '' }))
      .sort((a, b) => a.vni - b.vni),
    vrfs,
    l3Vrfs: vrfs.filter((v) => v.vni !== null || v.staticRoutes.length > 0),
    prefixLists: prefixLists.sort((a, b) => compareText(a.name, b.name)),
    largeCommunityLists: largeCommunityLists.sort((a, b) => compareText(a.name, b.name)),
    routeMaps: routeMaps.sort((a, b) => compareText(a.name, b.name) || a.seq - b.seq),
  };
}

function ibgpLink(
  vrf: FrrVrfIntent,
  byName: ReadonlyMap<string, FrrVrfIntent>,
  importList: string | null,
  routeMaps: FrrRouteMapEntryModel[],
  communityLists: FrrLargeCommunityListModel[],
  tagOf: (vni: number) => string,
): FrrIbgpLinkModel {
  const names = vrfIbgpLinkNames(vrf.vni);
  const tag = tagOf(vrf.vni);
  const toDefault = frrObjectNames.toDefaultRouteMap(vrf.name);
  const fromDefault = frrObjectNames.fromDefaultRouteMap(vrf.name);
  routeMaps.push({
    name: toDefault,
    action: 'permit',
    seq: 10,
    matches: [],
    sets: [`large-community ${tag} additive`],
  });
  const sources = vrf.importVrfs.flatMap((name) => {
    const source = byName.get(name);
    return source ? [tagOf(source.vni)] : [];
  });
  if (sources.length === 0) {
    routeMaps.push({ name: fromDefault, action: 'deny', seq: 10, matches: [], sets: [] });
  } else {
    const list = frrObjectNames.sourcesCommunityList(vrf.name);
    communityLists.push({ name: list, values: sources.sort(compareText) });
    const matches = [`large-community ${list}`];
    if (importList) matches.push(`ip address prefix-list ${importList}`);
    routeMaps.push({ name: fromDefault, action: 'permit', seq: 10, matches, sets: [] });
  }
  return { ...names, toDefaultRouteMap: toDefault, fromDefaultRouteMap: fromDefault, tag };
}

function localVrf(intent: FrrIntent): FrrVrfModel {
  return {
    name: intent.hbrVrf,
    asn: intent.asn,
    routerId: intent.routerId,
    vni: null,
    routeTarget: null,
    importVrfs: [],
    importRouteMap: null,
    exportRouteMap: null,
    aggregates: [],
    redistribute: ['connected'],
    staticRoutes: [],
    ibgp: null,
  };
}

function addPrefixList(lists: FrrPrefixListModel[], name: string, rules: readonly FrrPrefixRule[]): string {
  // Rule order is the user's: the first match decides, as in FRR.
  lists.push({
    name,
    entries: rules.map((r, i) => ({
      list: name,
      seq: (i + 1) * 5,
      action: r.action,
      prefix: r.cidr,
      ge: r.ge ?? null,
      le: r.le ?? null,
    })),
  });
  return name;
}

function matchPrefixList(routeMap: string, prefixList: string): FrrRouteMapEntryModel {
  return {
    name: routeMap,
    action: 'permit',
    seq: 10,
    matches: [`ip address prefix-list ${prefixList}`],
    sets: [],
  };
}

function staticRoutes(vrf: FrrVrfIntent): FrrStaticRouteModel[] {
  const routes = vrf.staticRoutes.map((r) => ({
    prefix: r.prefix,
    target: r.blackhole ? 'blackhole' : (r.nexthop ?? ''),
  }));
  const unique = new Map(routes.map((r) => [`${r.prefix} ${r.target}`, r]));
  return [...unique.values()].sort(
    (a, b) => comparePrefix(a.prefix, b.prefix) || compareText(a.target, b.target),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders IPv4 prefixes numerically (10.2.0.0/16 before 10.10.0.0/16), then by length. */
function comparePrefix(a: string, b: string): number {
  const key = (p: string) => {
    const [addr = '', len = '0'] = p.split('/');
    const n = addr.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
    return [n, Number(len)] as const;
  };
  const [an, al] = key(a);
  const [bn, bl] = key(b);
  return an - bn || al - bl;
}
