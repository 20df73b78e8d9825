import type { FrrTemplateSet } from '../intent.js';

// The view model the templates render. Everything a template prints is computed in the model:
// names, sort order, sequence numbers, route-map clauses. Templates only loop and branch, so a
// user override of one partial cannot get ordering or naming wrong.
//
// Partial overrides are written against these fields: fields are added, never renamed or removed
// within one FRR_MODEL_VERSION. A change that renames or removes one raises the version, and an
// override can check `{{#if (eq version 1)}}`.

/** The version of the view model's fields (see above). */
export const FRR_MODEL_VERSION = 1;

/** What one neighbor does in one address family (`address-family ... / neighbor ID ...`). */
export interface FrrNeighborAfModel {
  readonly id: string;
  /** `allowas-in`, `allowas-in 5` or `allowas-in origin`. */
  readonly allowAsIn: string | null;
  readonly maxPrefixes: number | null;
  /** What follows `maximum-prefix N`: `restart M`, `warning-only`, or null (close the session). */
  readonly maxPrefixesOption: string | null;
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
  /** Graceful restart and shutdown lines of the instance (as {@link FrrModel.instanceLines}). */
  readonly instanceLines: readonly string[];
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
  /** {@link FRR_MODEL_VERSION}. */
  readonly version: typeof FRR_MODEL_VERSION;
  readonly mode: FrrTemplateSet;
  readonly hostname: string | null;
  readonly asn: number;
  readonly routerId: string;
  /** `vtepIp/32`, announced into the underlay. */
  readonly vtepPrefix: string;
  readonly multipathRelax: boolean;
  /** Graceful restart and shutdown lines of every `router bgp`, in FRR's order. */
  readonly instanceLines: readonly string[];
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
