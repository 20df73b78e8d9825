import {
  canonicalIp,
  compareIp,
  familyOf,
  type FrrBgpPeer,
  type FrrFilter,
  type FrrNeighborBfd,
  type FrrUnderlayNeighbor,
} from '@fabrik/api';
import {
  FrrIntentError,
  type FrrIntent,
  type FrrPrefixRule,
  type FrrTemplateSet,
  type FrrVrfIntent,
} from './intent.js';

// The view model the templates render. Everything a template prints is computed here: names,
// sort order, sequence numbers, route-map clauses. Templates only loop and branch, so a user
// override of one partial cannot get ordering or naming wrong. Every array of the intent is
// sorted or keyed here, except the rules of a filter, whose order is their meaning.

/** What one neighbor does in one address family (`address-family ... / neighbor ID ...`). */
export interface FrrNeighborAfModel {
  readonly id: string;
  /** `allowas-in`, `allowas-in 5` or `allowas-in origin`. */
  readonly allowAsIn: string | null;
  readonly maxPrefixes: number | null;
  readonly routeMapIn: string | null;
  readonly routeMapOut: string | null;
}

export interface FrrNeighborModel {
  /** What FRR calls the neighbor: the address, the interface of an unnumbered session, or the peer-group of a listen range. */
  readonly id: string;
  /** `internal`, `external` or the AS number. */
  readonly remoteAs: string;
  /** Unnumbered (`neighbor IF interface remote-as ...`). */
  readonly interface: boolean;
  /** A peer-group for the sessions of `listenRange` (`bgp listen range ... peer-group ID`). */
  readonly peerGroup: boolean;
  readonly listenRange: string | null;
  readonly password: string | null;
  readonly bfd: boolean;
  /** `neighbor ID bfd profile NAME`; null: bfdd's defaults. */
  readonly bfdProfile: string | null;
  /** `ASN`, `ASN no-prepend`, `ASN no-prepend replace-as`. */
  readonly localAs: string | null;
  readonly ebgpMultihop: number | null;
  readonly updateSource: string | null;
  readonly timers: { readonly keepalive: number; readonly hold: number } | null;
  readonly ipv4: FrrNeighborAfModel | null;
  readonly ipv6: FrrNeighborAfModel | null;
  readonly evpn: FrrNeighborAfModel | null;
  /** Outbound route-map in ipv4 unicast (the same as `ipv4.routeMapOut`; kept for older overrides). */
  readonly ipv4RouteMapOut: string | null;
}

/** An L2 VNI that needs a `vni N` block: route-targets other than FRR's automatic one, or advertise-svi-ip. */
export interface FrrRouteTargetModel {
  readonly vni: number;
  /** The route-target when import and export are one value; null otherwise. */
  readonly routeTarget: string | null;
  readonly importRouteTargets: readonly string[];
  readonly exportRouteTargets: readonly string[];
  readonly advertiseSviIp: boolean;
}

export interface FrrStaticRouteModel {
  /** `ip` or `ipv6`. */
  readonly command: 'ip' | 'ipv6';
  readonly prefix: string;
  /** What follows the prefix: `10.0.0.1`, `blackhole`, `10.0.0.1 nexthop-vrf blue`, `blue nexthop-vrf blue`. */
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

/** The IPv6 unicast family of a VRF's BGP instance. */
export interface FrrVrfIpv6Model {
  readonly redistribute: readonly string[];
  readonly aggregates: readonly string[];
  readonly importVrfs: readonly string[];
  readonly importRouteMap: string | null;
}

export interface FrrVrfModel {
  readonly name: string;
  readonly asn: number;
  /** The node's router ID; in vrf-ibgp the VRF's own ({@link vrfIbgpRouterId}). */
  readonly routerId: string;
  /**
   * `rd` in the VRF's l2vpn evpn family; null: FRR derives it from the router ID (netns). vrf-ibgp
   * sets `<node router ID>:<vni>`, because its VRF router IDs are the same on every node.
   */
  readonly rd: string | null;
  /** The L3 VNI; null for an hbrVrf that is not declared in `vrfs` (local VRF without EVPN). */
  readonly vni: number | null;
  /** The route-target when import and export are one value; null otherwise. */
  readonly routeTarget: string | null;
  readonly importRouteTargets: readonly string[];
  readonly exportRouteTargets: readonly string[];
  /**
   * The `address-family ipv4 unicast` block has content (the fields below). FRR does not show an
   * empty block, so rendering one would make every reload report a change.
   */
  readonly ipv4: boolean;
  /** `advertise ipv4 unicast` / `advertise ipv6 unicast` in l2vpn evpn (the VRF's families). */
  readonly advertiseIpv4: boolean;
  readonly advertiseIpv6: boolean;
  /** Sorted names of the VRFs this one leaks from (`import vrf`). */
  readonly importVrfs: readonly string[];
  /** Route-map for `import vrf route-map` (netns) built from the import filters. */
  readonly importRouteMap: string | null;
  /** Route-map for `advertise ipv4|ipv6 unicast route-map`: the export filter and the loop guard. */
  readonly exportRouteMap: string | null;
  readonly aggregates: readonly string[];
  /** `connected`, `static`, `kernel`. */
  readonly redistribute: readonly string[];
  readonly staticRoutes: readonly FrrStaticRouteModel[];
  /** BGP peers inside the VRF, sorted by id. */
  readonly peers: readonly FrrNeighborModel[];
  /** The `address-family ipv6 unicast` block; null when the VRF has no IPv6 or the block would be empty. */
  readonly ipv6: FrrVrfIpv6Model | null;
  /** vrf-ibgp only. */
  readonly ibgp: FrrIbgpLinkModel | null;
}

export interface FrrPrefixListEntryModel {
  /** `ip` or `ipv6`. */
  readonly command: 'ip' | 'ipv6';
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
  /** `call NAME`: another route-map decides. */
  readonly call: string | null;
  /** `on-match next`. */
  readonly onMatch: string | null;
}

export interface FrrLargeCommunityListModel {
  readonly name: string;
  /** Large communities, each printed as `bgp large-community-list standard NAME permit VALUE`. */
  readonly values: readonly string[];
}

export interface FrrCommunityListEntryModel {
  readonly list: string;
  /**
   * The community's 32-bit value + 1. FRR numbers community-list entries; a number that follows
   * the value lets frr-reload.py replace a changed value (same number, new value: its `no` line
   * for the old entry fails).
   */
  readonly seq: number;
  readonly value: string;
}

export interface FrrCommunityListModel {
  readonly name: string;
  /** Each printed as `bgp community-list standard NAME seq SEQ permit VALUE`. */
  readonly entries: readonly FrrCommunityListEntryModel[];
}

export interface FrrBfdProfileModel {
  readonly name: string;
  /** Only values other than bfdd's defaults (FRR does not print those). */
  readonly receiveInterval: number | null;
  readonly transmitInterval: number | null;
  readonly detectMultiplier: number | null;
  readonly passive: boolean;
}

/** Everything the templates print, precomputed and sorted. */
export interface FrrModel {
  readonly mode: FrrTemplateSet;
  readonly hostname: string | null;
  readonly asn: number;
  readonly routerId: string;
  /** `vtepIp/32`, announced into the underlay. */
  readonly vtepPrefix: string;
  readonly multipathRelax: boolean;
  /** Underlay neighbors, sorted by id. */
  readonly neighbors: readonly FrrNeighborModel[];
  /** Some underlay neighbor carries ipv6 unicast. */
  readonly underlayIpv6: boolean;
  /** L2 VNIs that need a `vni N` block, sorted by VNI. */
  readonly l2RouteTargets: readonly FrrRouteTargetModel[];
  /** VRFs sorted by name (with an undeclared but referenced hbrVrf as a local VRF). */
  readonly vrfs: readonly FrrVrfModel[];
  /** VRFs that carry an L3 VNI or static routes (`vrf NAME` blocks), sorted by name. */
  readonly l3Vrfs: readonly FrrVrfModel[];
  readonly prefixLists: readonly FrrPrefixListModel[];
  readonly communityLists: readonly FrrCommunityListModel[];
  readonly largeCommunityLists: readonly FrrLargeCommunityListModel[];
  /** Route-map entries sorted by name, then sequence. */
  readonly routeMaps: readonly FrrRouteMapEntryModel[];
  readonly bfdProfiles: readonly FrrBfdProfileModel[];
}

export interface FrrModelOptions {
  /** Overrides the intent's `mode`. */
  readonly mode?: FrrTemplateSet;
  /** Printed as `hostname NAME`; must equal the running hostname for frr-reload.py. */
  readonly hostname?: string;
}

const HOSTNAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A name for FRR objects derived from an address or network (`fd00::/64` -> `fd00::-64`). */
const nameOf = (addressOrCidr: string) => canonicalIp(addressOrCidr).replace('/', '-');

/** Names fabrik gives to the FRR objects it renders (documented in README.md). */
export const frrObjectNames = {
  importPrefixList: (vrf: string) => `fabrik-${vrf}-import`,
  exportPrefixList: (vrf: string) => `fabrik-${vrf}-export`,
  importRouteMap: (vrf: string) => `fabrik-${vrf}-import`,
  exportRouteMap: (vrf: string) => `fabrik-${vrf}-export`,
  /** Filter of the leaks from one source VRF (`importVrfs[]: {vrf, filter}`). */
  leakRouteMap: (vrf: string, source: string) => `fabrik-${vrf}-from-${source}`,
  /** A VRF's `import` given as a filter. */
  importFilterRouteMap: (vrf: string) => `fabrik-${vrf}-import-filter`,
  peerGroup: (vrf: string, listenRange: string) => `fabrik-${vrf}-${nameOf(listenRange)}`,
  peerRouteMap: (vrf: string, peer: string, direction: 'in' | 'out') =>
    `fabrik-${vrf}-${nameOf(peer)}-${direction}`,
  toDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-to-default`,
  fromDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-from-default`,
  sourcesCommunityList: (vrf: string) => `fabrik-${vrf}-sources`,
  /** The tag of one source VRF (vrf-ibgp, sources with a filter of their own). */
  tagCommunityList: (vrf: string) => `fabrik-${vrf}-tag`,
  underlayRouteMapOut: 'fabrik-underlay-out',
  tenantCommunityList: 'fabrik-tenant-routes',
  /** Loop guard: tags what the underlay sends us. */
  fabricRouteMapIn: 'fabrik-fabric-in',
  /** Loop guard: what we send to the underlay in l2vpn evpn. */
  evpnRouteMapOut: 'fabrik-evpn-out',
  fabricCommunityList: 'fabrik-fabric-routes',
  bfdProfile: (minRx: number, minTx: number, multiplier: number) =>
    `fabrik-rx${minRx}-tx${minTx}-x${multiplier}`,
} as const;

/** The veth pair of a VRF in template set vrf-ibgp: `ibd<vni>` in the default VRF, `ibv<vni>` in the VRF. */
export function vrfIbgpLinkNames(vni: number): { defaultSide: string; vrfSide: string } {
  return { defaultSide: `ibd${vni}`, vrfSide: `ibv${vni}` };
}

/**
 * The BGP router ID of a VRF's instance in template set vrf-ibgp: its L3 VNI written as an IPv4
 * address (VNI 1001: `0.0.3.233`). The instances of one node peer with each other, so their IDs
 * must differ: an iBGP OPEN carrying the receiver's own ID is refused (Bad BGP Identifier), and
 * a route the default VRF reflects from one VRF to another is dropped by a receiver whose ID is
 * the route's ORIGINATOR_ID.
 */
export function vrfIbgpRouterId(vni: number): string {
  return [24, 16, 8, 0].map((shift) => (vni >>> shift) & 0xff).join('.');
}

/** Largest L3 VNI of vrf-ibgp: its route distinguisher `<router ID>:<vni>` holds 16 bits. */
const VRF_IBGP_MAX_VNI = 65535;

/** bfdd's defaults, which FRR leaves out of its running configuration. */
const BFD_DEFAULTS = { minRx: 300, minTx: 300, multiplier: 3 } as const;

/** Accumulates the filters (prefix-lists, community lists, route-maps) of one model. */
class Filters {
  readonly prefixLists: FrrPrefixListModel[] = [];
  readonly communityLists: FrrCommunityListModel[] = [];
  readonly largeCommunityLists: FrrLargeCommunityListModel[] = [];
  readonly routeMaps: FrrRouteMapEntryModel[] = [];

  communityList(name: string, values: readonly string[]): void {
    this.communityLists.push({
      name,
      entries: sortCommunities(values).map((value) => ({
        list: name,
        seq: communityValue(value) + 1,
        value,
      })),
    });
  }

  entry(
    name: string,
    action: 'permit' | 'deny',
    seq: number,
    more: Partial<Pick<FrrRouteMapEntryModel, 'matches' | 'sets' | 'call' | 'onMatch'>> = {},
  ): void {
    this.routeMaps.push({ name, action, seq, matches: [], sets: [], call: null, onMatch: null, ...more });
  }

  /** A prefix-list per family of `rules` (rule order kept: the first match decides, as in FRR). */
  prefixRules(name: string, rules: readonly FrrPrefixRule[]): { ip: boolean; ipv6: boolean } {
    const families = { ip: false, ipv6: false };
    const entries = rules.map((r, i) => {
      const command = familyOf(r.cidr) === 'ipv4' ? ('ip' as const) : ('ipv6' as const);
      families[command] = true;
      return {
        command,
        list: name,
        seq: (i + 1) * 5,
        action: r.action,
        prefix: canonicalIp(r.cidr),
        ge: r.ge ?? null,
        le: r.le ?? null,
      };
    });
    this.prefixLists.push({ name, entries });
    return families;
  }

  /** Route-map `name` from a filter; entries from `firstSeq` on in steps of 10. */
  filter(name: string, filter: FrrFilter, firstSeq = 10): void {
    filter.items.forEach((item, j) => {
      const seq = firstSeq + 10 * j;
      const listName = `${name}-${j + 1}`;
      const matches: string[] = [];
      const sets: string[] = [];
      if (item.prefix) {
        const command = familyOf(item.prefix.cidr) === 'ipv4' ? ('ip' as const) : ('ipv6' as const);
        this.prefixLists.push({
          name: listName,
          entries: [
            {
              command,
              list: listName,
              seq: 5,
              action: 'permit',
              prefix: canonicalIp(item.prefix.cidr),
              ge: item.prefix.ge ?? null,
              le: item.prefix.le ?? null,
            },
          ],
        });
        matches.push(`${command} address prefix-list ${listName}`);
      }
      if (item.community !== undefined) {
        this.communityList(listName, [item.community]);
        matches.push(`community ${listName}${item.exactMatch ? ' exact-match' : ''}`);
      }
      if (item.removeAllCommunities) sets.push('community none');
      const add = sortCommunities(item.addCommunities);
      if (add.length > 0) sets.push(`community ${add.join(' ')}${item.additive ? ' additive' : ''}`);
      const remove = sortCommunities(item.removeCommunities);
      if (remove.length > 0) {
        this.communityList(`${listName}-remove`, remove);
        sets.push(`comm-list ${listName}-remove delete`);
      }
      this.entry(name, item.action === 'reject' ? 'deny' : 'permit', seq, {
        matches,
        sets,
        onMatch: item.action === 'next' ? 'next' : null,
      });
    });
    this.entry(
      name,
      filter.defaultAction === 'accept' ? 'permit' : 'deny',
      firstSeq + 10 * filter.items.length,
    );
  }
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
  if (ibgp) refuseWhatVrfIbgpCannotExpress(intent);
  const byName = new Map(intent.vrfs.map((v) => [v.name, v]));
  const filters = new Filters();
  const tagOf = (vni: number) => `${intent.asn}:1:${vni}`;
  const guard = intent.fabricLoopGuard.enabled;
  if (guard) {
    // Loop guard: what the underlay sends is tagged on the way in; tagged routes never go back
    // to the underlay and are never advertised from a VRF (type-5), so this node is no transit
    // between leaves (das-schiff's TAG-FABRIC-IN / DENY-TAG-FABRIC-OUT).
    filters.communityList(frrObjectNames.fabricCommunityList, [intent.fabricLoopGuard.community]);
    filters.entry(frrObjectNames.fabricRouteMapIn, 'permit', 10, {
      sets: [`community ${intent.fabricLoopGuard.community} additive`],
    });
    filters.entry(frrObjectNames.evpnRouteMapOut, 'deny', 10, {
      matches: [`community ${frrObjectNames.fabricCommunityList}`],
    });
    filters.entry(frrObjectNames.evpnRouteMapOut, 'permit', 20);
  }

  const profiles = new Map<string, FrrBfdProfileModel>();
  for (const p of intent.bfdProfiles) profiles.set(p.name, bfdProfile(p.name, p, p.passive ?? false));
  const bfdOf = (bfd: FrrNeighborBfd): { bfd: boolean; bfdProfile: string | null } => {
    if (bfd === false) return { bfd: false, bfdProfile: null };
    if (bfd === true) return { bfd: true, bfdProfile: null };
    if ('profile' in bfd) return { bfd: true, bfdProfile: bfd.profile };
    const rx = bfd.minRx ?? BFD_DEFAULTS.minRx;
    const tx = bfd.minTx ?? BFD_DEFAULTS.minTx;
    const mult = bfd.multiplier ?? BFD_DEFAULTS.multiplier;
    const name = frrObjectNames.bfdProfile(rx, tx, mult);
    profiles.set(name, bfdProfile(name, { minRx: rx, minTx: tx, multiplier: mult }, false));
    return { bfd: true, bfdProfile: name };
  };

  const referencesHbr = intent.vrfs.some((v) => importSources(v).some((s) => s.name === intent.hbrVrf));
  const vrfs: FrrVrfModel[] = intent.vrfs.map((vrf) => {
    const ipv4 = vrf.addressFamilies.includes('ipv4');
    const ipv6 = vrf.addressFamilies.includes('ipv6');
    const sources = importSources(vrf);
    const exportRouteMap = exportFilter(vrf, filters, guard);
    let importRouteMap: string | null = null;
    let link: FrrIbgpLinkModel | null = null;
    if (ibgp) link = ibgpLink(vrf, byName, filters, tagOf);
    else importRouteMap = netnsImportRouteMap(vrf, filters);
    const redistribute = (['connected', 'static', 'kernel'] as const).filter((r) => vrf.redistribute[r]);
    const aggregates = [...new Set(vrf.aggregates.map(canonicalIp))].sort(compareIp);
    const importVrfs = ibgp ? [] : sources.map((s) => s.name).sort(compareText);
    const peers = vrf.bgpPeers
      .map((p) => peerModel(vrf.name, p, filters, bfdOf))
      .sort((a, b) => compareText(a.id, b.id));
    const [routeTarget, importRouteTargets, exportRouteTargets] = routeTargetsOf(vrf, intent.asn);
    const v4Aggregates = aggregates.filter((a) => familyOf(a) === 'ipv4');
    const v6Aggregates = aggregates.filter((a) => familyOf(a) === 'ipv6');
    const leaks = redistribute.length > 0 || importVrfs.length > 0 || importRouteMap !== null;
    const ipv6Content = leaks || v6Aggregates.length > 0 || peers.some((p) => p.ipv6 !== null);
    return {
      name: vrf.name,
      asn: intent.asn,
      routerId: ibgp ? vrfIbgpRouterId(vrf.vni) : intent.routerId,
      rd: ibgp ? `${intent.routerId}:${vrf.vni}` : null,
      vni: vrf.vni,
      routeTarget,
      importRouteTargets,
      exportRouteTargets,
      ipv4: ipv4 && (leaks || link !== null || v4Aggregates.length > 0 || peers.some((p) => p.ipv4 !== null)),
      advertiseIpv4: ipv4,
      advertiseIpv6: ipv6,
      importVrfs,
      importRouteMap,
      exportRouteMap,
      aggregates: v4Aggregates,
      redistribute,
      staticRoutes: staticRoutes(vrf),
      peers,
      ipv6:
        ipv6 && ipv6Content ? { redistribute, aggregates: v6Aggregates, importVrfs, importRouteMap } : null,
      ibgp: link,
    };
  });
  if (referencesHbr && !byName.has(intent.hbrVrf)) vrfs.push(localVrf(intent));
  vrfs.sort((a, b) => compareText(a.name, b.name));

  const tenantFilter = ibgp && intent.vrfs.length > 0;
  const underlayOut = guard || tenantFilter ? frrObjectNames.underlayRouteMapOut : null;
  if (guard) {
    filters.entry(frrObjectNames.underlayRouteMapOut, 'deny', 5, {
      matches: [`community ${frrObjectNames.fabricCommunityList}`],
    });
  }
  if (tenantFilter) {
    // Tenant routes reach the default VRF over the iBGP sessions: keep them out of the underlay.
    filters.largeCommunityLists.push({
      name: frrObjectNames.tenantCommunityList,
      values: intent.vrfs.map((v) => tagOf(v.vni)).sort(compareText),
    });
    filters.entry(frrObjectNames.underlayRouteMapOut, 'deny', 10, {
      matches: [`large-community ${frrObjectNames.tenantCommunityList}`],
    });
  }
  if (underlayOut) filters.entry(frrObjectNames.underlayRouteMapOut, 'permit', 20);

  const neighbors = intent.underlay.neighbors
    .map((n) => underlayNeighbor(n, guard, underlayOut, bfdOf))
    .sort((a, b) => compareText(a.id, b.id));

  return {
    mode,
    hostname,
    asn: intent.asn,
    routerId: intent.routerId,
    vtepPrefix: `${intent.vtepIp}/32`,
    multipathRelax: intent.underlay.multipathRelax,
    neighbors,
    underlayIpv6: neighbors.some((n) => n.ipv6 !== null),
    l2RouteTargets: intent.layer2s
      .map((l2) => {
        // FRR omits an L2 route-target equal to its automatic one (ASN:VNI) from the running
        // config; rendering it would make every reload report a change.
        const auto = intent.asn <= 0xffff ? `${intent.asn}:${l2.vni}` : null;
        const notAuto = (list: readonly string[]) => uniqueSorted(list).filter((rt) => rt !== auto);
        const importRouteTargets = notAuto(
          l2.routeTargets?.import ?? (l2.routeTarget ? [l2.routeTarget] : []),
        );
        const exportRouteTargets = notAuto(
          l2.routeTargets?.export ?? (l2.routeTarget ? [l2.routeTarget] : []),
        );
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
      .filter(
        (l2) => l2.importRouteTargets.length > 0 || l2.exportRouteTargets.length > 0 || l2.advertiseSviIp,
      )
      .sort((a, b) => a.vni - b.vni),
    vrfs,
    l3Vrfs: vrfs.filter((v) => v.vni !== null || v.staticRoutes.length > 0),
    prefixLists: filters.prefixLists.sort((a, b) => compareText(a.name, b.name)),
    communityLists: filters.communityLists.sort((a, b) => compareText(a.name, b.name)),
    largeCommunityLists: filters.largeCommunityLists.sort((a, b) => compareText(a.name, b.name)),
    routeMaps: filters.routeMaps.sort((a, b) => compareText(a.name, b.name) || a.seq - b.seq),
    bfdProfiles: [...profiles.values()].sort((a, b) => compareText(a.name, b.name)),
  };
}

interface ImportSource {
  readonly name: string;
  readonly filter: FrrFilter | null;
}

/** `importVrfs` as sources, each with its own filter or none. */
function importSources(vrf: FrrVrfIntent): ImportSource[] {
  return vrf.importVrfs.map((e) =>
    typeof e === 'string' ? { name: e, filter: null } : { name: e.vrf, filter: e.filter },
  );
}

/**
 * vrf-ibgp leaks IPv4 over iBGP sessions and names each VRF's instance by its VNI; what needs more
 * is refused with the field's path.
 */
function refuseWhatVrfIbgpCannotExpress(intent: FrrIntent): void {
  const declared = new Set(intent.vrfs.map((v) => v.name));
  intent.vrfs.forEach((vrf, i) => {
    if (vrf.vni > VRF_IBGP_MAX_VNI) {
      throw new FrrIntentError([
        {
          path: `vrfs[${i}].vni`,
          message: `template set vrf-ibgp takes L3 VNIs up to ${VRF_IBGP_MAX_VNI} (the VRF's route distinguisher is <routerId>:<vni>; use template set netns)`,
        },
      ]);
    }
    if (vrfIbgpRouterId(vrf.vni) === intent.routerId) {
      throw new FrrIntentError([
        {
          path: 'routerId',
          message: `must differ from ${intent.routerId}, the router ID template set vrf-ibgp gives VRF ${vrf.name}'s instance`,
        },
      ]);
    }
    vrf.importVrfs.forEach((e, j) => {
      const name = typeof e === 'string' ? e : e.vrf;
      if (name === intent.hbrVrf && !declared.has(name)) {
        throw new FrrIntentError([
          {
            path: `vrfs[${i}].importVrfs[${j}]`,
            message: `template set vrf-ibgp can only leak from VRFs declared in vrfs ("${intent.hbrVrf}" has no VNI to name its veth pair)`,
          },
        ]);
      }
    });
    if (vrf.importVrfs.length > 0 && vrf.addressFamilies.includes('ipv6')) {
      throw new FrrIntentError([
        {
          path: `vrfs[${i}].addressFamilies`,
          message:
            'template set vrf-ibgp leaks IPv4 only: a VRF with importVrfs cannot have ipv6 (use template set netns)',
        },
      ]);
    }
  });
}

/** The route-map of `advertise ipv4|ipv6 unicast route-map`: loop guard first, then the export filter. */
function exportFilter(vrf: FrrVrfIntent, filters: Filters, guard: boolean): string | null {
  const name = frrObjectNames.exportRouteMap(vrf.name);
  const rules = vrf.export;
  const hasRules = Array.isArray(rules) ? rules.length > 0 : true;
  if (!hasRules && !guard) return null;
  if (guard) filters.entry(name, 'deny', 5, { matches: [`community ${frrObjectNames.fabricCommunityList}`] });
  if (!Array.isArray(rules)) filters.filter(name, rules);
  else if (rules.length === 0) filters.entry(name, 'permit', 10);
  else matchPrefixRules(filters, name, frrObjectNames.exportPrefixList(vrf.name), rules, 10);
  return name;
}

/** `permit SEQ / match ip address prefix-list` for each family the rules use (10, then 20). */
function matchPrefixRules(
  filters: Filters,
  routeMap: string,
  prefixList: string,
  rules: readonly FrrPrefixRule[],
  seq: number,
  extraMatches: readonly string[] = [],
): number {
  const families = filters.prefixRules(prefixList, rules);
  let next = seq;
  for (const command of ['ip', 'ipv6'] as const) {
    if (!families[command]) continue;
    filters.entry(routeMap, 'permit', next, {
      matches: [...extraMatches, `${command} address prefix-list ${prefixList}`],
    });
    next += 10;
  }
  return next;
}

/**
 * netns: `import vrf route-map` when any leak is filtered. Sources with a filter of their own are
 * matched first (`match source-vrf`, `call` their filter); the VRF's `import` filters the rest.
 */
function netnsImportRouteMap(vrf: FrrVrfIntent, filters: Filters): string | null {
  const sources = importSources(vrf);
  if (sources.length === 0) return null;
  const own = sources.filter((s) => s.filter !== null).sort((a, b) => compareText(a.name, b.name));
  const rest = sources.length - own.length;
  const common = vrf.import;
  const commonFilters = Array.isArray(common) ? common.length > 0 : true;
  if (own.length === 0 && !commonFilters) return null;
  const name = frrObjectNames.importRouteMap(vrf.name);
  let seq = 10;
  for (const s of own) {
    const leak = frrObjectNames.leakRouteMap(vrf.name, s.name);
    if (s.filter) filters.filter(leak, s.filter);
    filters.entry(name, 'permit', seq, { matches: [`source-vrf ${s.name}`], call: leak });
    seq += 10;
  }
  if (rest > 0) {
    if (!Array.isArray(common)) {
      const called = frrObjectNames.importFilterRouteMap(vrf.name);
      filters.filter(called, common);
      filters.entry(name, 'permit', seq, { call: called });
    } else if (common.length > 0) {
      matchPrefixRules(filters, name, frrObjectNames.importPrefixList(vrf.name), common, seq);
    } else {
      filters.entry(name, 'permit', seq);
    }
  }
  return name;
}

function ibgpLink(
  vrf: FrrVrfIntent,
  byName: ReadonlyMap<string, FrrVrfIntent>,
  filters: Filters,
  tagOf: (vni: number) => string,
): FrrIbgpLinkModel {
  const names = vrfIbgpLinkNames(vrf.vni);
  const tag = tagOf(vrf.vni);
  const toDefault = frrObjectNames.toDefaultRouteMap(vrf.name);
  const fromDefault = frrObjectNames.fromDefaultRouteMap(vrf.name);
  filters.entry(toDefault, 'permit', 10, { sets: [`large-community ${tag} additive`] });
  const sources = importSources(vrf).flatMap((s) => {
    const source = byName.get(s.name);
    return source ? [{ ...s, tag: tagOf(source.vni) }] : [];
  });
  if (sources.length === 0) {
    filters.entry(fromDefault, 'deny', 10);
  } else {
    let seq = 10;
    for (const s of sources.filter((x) => x.filter !== null).sort((a, b) => compareText(a.name, b.name))) {
      const list = frrObjectNames.tagCommunityList(s.name);
      if (!filters.largeCommunityLists.some((l) => l.name === list))
        filters.largeCommunityLists.push({ name: list, values: [s.tag] });
      const leak = frrObjectNames.leakRouteMap(vrf.name, s.name);
      if (s.filter) filters.filter(leak, s.filter);
      filters.entry(fromDefault, 'permit', seq, { matches: [`large-community ${list}`], call: leak });
      seq += 10;
    }
    const rest = sources.filter((x) => x.filter === null);
    if (rest.length > 0) {
      const list = frrObjectNames.sourcesCommunityList(vrf.name);
      filters.largeCommunityLists.push({ name: list, values: rest.map((s) => s.tag).sort(compareText) });
      const matches = [`large-community ${list}`];
      const common = vrf.import;
      if (!Array.isArray(common)) {
        const called = frrObjectNames.importFilterRouteMap(vrf.name);
        filters.filter(called, common);
        filters.entry(fromDefault, 'permit', seq, { matches, call: called });
      } else if (common.length > 0) {
        matchPrefixRules(
          filters,
          fromDefault,
          frrObjectNames.importPrefixList(vrf.name),
          common,
          seq,
          matches,
        );
      } else {
        filters.entry(fromDefault, 'permit', seq, { matches });
      }
    }
  }
  return { ...names, toDefaultRouteMap: toDefault, fromDefaultRouteMap: fromDefault, tag };
}

function localVrf(intent: FrrIntent): FrrVrfModel {
  return {
    name: intent.hbrVrf,
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

interface SessionIntent {
  readonly remoteAs: FrrUnderlayNeighbor['remoteAs'];
  readonly password?: string;
  readonly bfd: FrrNeighborBfd;
  readonly timers?: { keepalive: number; hold: number };
  readonly allowAsIn?: number | 'origin';
  readonly localAs?: { asn: number; noPrepend: boolean; replaceAs: boolean };
  readonly ebgpMultihop?: number;
  readonly updateSource?: string;
}

/** The session lines shared by underlay neighbors and VRF peers. */
function session(
  id: string,
  n: SessionIntent,
  bfdOf: (bfd: FrrNeighborBfd) => { bfd: boolean; bfdProfile: string | null },
) {
  return {
    id,
    remoteAs: String(n.remoteAs),
    password: n.password ?? null,
    ...bfdOf(n.bfd),
    localAs: n.localAs
      ? `${n.localAs.asn}${n.localAs.noPrepend ? ' no-prepend' : ''}${n.localAs.replaceAs ? ' replace-as' : ''}`
      : null,
    ebgpMultihop: n.ebgpMultihop ?? null,
    updateSource:
      n.updateSource === undefined
        ? null
        : n.updateSource.includes(':')
          ? canonicalIp(n.updateSource)
          : n.updateSource,
    timers: n.timers ? { keepalive: n.timers.keepalive, hold: n.timers.hold } : null,
  };
}

/** FRR prints `allowas-in` alone for its default of 3. */
function allowAsInClause(allowAsIn: number | 'origin' | undefined): string | null {
  if (allowAsIn === undefined) return null;
  return allowAsIn === 3 ? 'allowas-in' : `allowas-in ${allowAsIn}`;
}

function underlayNeighbor(
  n: FrrUnderlayNeighbor,
  guard: boolean,
  underlayOut: string | null,
  bfdOf: (bfd: FrrNeighborBfd) => { bfd: boolean; bfdProfile: string | null },
): FrrNeighborModel {
  const id = n.address !== undefined ? canonicalIp(n.address) : (n.interface ?? '');
  const af = (outMap: string | null): FrrNeighborAfModel => ({
    id,
    allowAsIn: allowAsInClause(n.allowAsIn),
    maxPrefixes: null,
    routeMapIn: guard ? frrObjectNames.fabricRouteMapIn : null,
    routeMapOut: outMap,
  });
  const ipv4 = n.addressFamilies.includes('ipv4') ? af(underlayOut) : null;
  return {
    ...session(id, n, bfdOf),
    interface: n.interface !== undefined,
    peerGroup: false,
    listenRange: null,
    ipv4,
    ipv6: n.addressFamilies.includes('ipv6') ? af(underlayOut) : null,
    evpn: n.addressFamilies.includes('evpn') ? af(guard ? frrObjectNames.evpnRouteMapOut : null) : null,
    ipv4RouteMapOut: ipv4?.routeMapOut ?? null,
  };
}

function peerModel(
  vrf: string,
  p: FrrBgpPeer,
  filters: Filters,
  bfdOf: (bfd: FrrNeighborBfd) => { bfd: boolean; bfdProfile: string | null },
): FrrNeighborModel {
  const target = p.address ?? p.listenRange ?? '';
  const id = p.listenRange !== undefined ? frrObjectNames.peerGroup(vrf, p.listenRange) : canonicalIp(target);
  const routeMap = (direction: 'in' | 'out', filter: FrrFilter | undefined) => {
    if (!filter) return null;
    const name = frrObjectNames.peerRouteMap(vrf, target, direction);
    filters.filter(name, filter);
    return name;
  };
  const routeMapIn = routeMap('in', p.import);
  const routeMapOut = routeMap('out', p.export);
  const families = p.addressFamilies ?? [familyOf(target)];
  const af = (): FrrNeighborAfModel => ({
    id,
    allowAsIn: allowAsInClause(p.allowAsIn),
    maxPrefixes: p.maxPrefixes ?? null,
    routeMapIn,
    routeMapOut,
  });
  const ipv4 = families.includes('ipv4') ? af() : null;
  return {
    ...session(id, p, bfdOf),
    interface: false,
    peerGroup: p.listenRange !== undefined,
    listenRange: p.listenRange === undefined ? null : canonicalIp(p.listenRange),
    ipv4,
    ipv6: families.includes('ipv6') ? af() : null,
    evpn: null,
    ipv4RouteMapOut: ipv4?.routeMapOut ?? null,
  };
}

function bfdProfile(
  name: string,
  t: { minRx?: number; minTx?: number; multiplier?: number },
  passive: boolean,
): FrrBfdProfileModel {
  const unlessDefault = (v: number | undefined, d: number) => (v === undefined || v === d ? null : v);
  return {
    name,
    receiveInterval: unlessDefault(t.minRx, BFD_DEFAULTS.minRx),
    transmitInterval: unlessDefault(t.minTx, BFD_DEFAULTS.minTx),
    detectMultiplier: unlessDefault(t.multiplier, BFD_DEFAULTS.multiplier),
    passive,
  };
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

/** Numeric values of FRR's well-known communities: FRR sorts communities by value. */
const WELL_KNOWN_VALUES: Record<string, number> = {
  internet: 0,
  'graceful-shutdown': 0xffff0000,
  'accept-own': 0xffff0001,
  blackhole: 0xffff029a,
  'no-export': 0xffffff01,
  'no-advertise': 0xffffff02,
  'local-AS': 0xffffff03,
  'no-peer': 0xffffff04,
};

function communityValue(c: string): number {
  const known = WELL_KNOWN_VALUES[c];
  if (known !== undefined) return known;
  const [high = '0', low = '0'] = c.split(':');
  return Number(high) * 0x10000 + Number(low);
}

function sortCommunities(list: readonly string[]): string[] {
  return [...new Set(list)].sort((a, b) => communityValue(a) - communityValue(b));
}

function uniqueSorted(list: readonly string[]): string[] {
  return [...new Set(list)].sort(compareText);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
