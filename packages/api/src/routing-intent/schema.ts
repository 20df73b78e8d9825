import { z } from 'zod';
import { VlanId, Vni } from '../primitives.js';
import { checkReferences } from './references.js';
import {
  COMMUNITY,
  IPV4_ADDRESS,
  IPV6_ADDRESS,
  LARGE_COMMUNITY,
  ROUTE_TARGET,
  networkRegExp,
  whole,
} from './patterns.js';

// The routing intent: what pipelines and the agents hand to the renderer. Field names are a
// contract (see @fabrik/frr's README, "Intent reference"); add fields, never rename them.
// Every single-field rule is a pattern, range or enum that the JSON Schema carries too; the rules
// that relate fields to each other are in references.ts and listed in the schema's description.

export const Ipv4Address = z
  .string()
  .regex(whole(IPV4_ADDRESS), 'must be an IPv4 address (A.B.C.D)')
  .describe('IPv4 address');

export const IpAddress = z
  .string()
  .regex(
    whole(`${IPV4_ADDRESS}|${IPV6_ADDRESS}`),
    'must be an IPv4 address or an IPv6 address in hex groups (write an IPv4 peer as A.B.C.D)',
  )
  .describe('IPv4 address, or IPv6 address in hex groups (no embedded IPv4)');

const NETWORK_RULE =
  'a network without host bits (10.0.0.0/8, not 10.0.0.1/8; IPv6 as its leading groups and "::", as in 2001:db8::/32)';

/** An IPv4 or IPv6 network in CIDR notation without host bits. */
export const Network = z
  .string()
  .regex(networkRegExp([0, 32], [0, 128]), `must be ${NETWORK_RULE}`)
  .describe(`IPv4 or IPv6 ${NETWORK_RULE}`);

/** A network that can be aggregated: not a single address (/32, /128). */
export const AggregatePrefix = z
  .string()
  .regex(
    networkRegExp([0, 31], [0, 127]),
    `must be ${NETWORK_RULE}, shorter than /32 (IPv4) or /128 (IPv6): a single address aggregates nothing`,
  )
  .describe(`${NETWORK_RULE}; at most /31 (IPv4) or /127 (IPv6)`);

const NAME = '[A-Za-z0-9_.-]{1,15}';

/**
 * A VRF name: a kernel device name (1-15 characters, not `.` or `..`) that FRR can use
 * everywhere: not `default` (FRR's name of the default VRF), `all` (every VRF in FRR's show
 * commands) or `route-map` (`import vrf route-map` is another command).
 */
export const FrrVrfName = z
  .string()
  .regex(
    new RegExp(`^(?!(?:\\.|\\.\\.|default|all|route-map)$)${NAME}$`),
    'must be 1-15 characters of A-Z a-z 0-9 _ . - and not ".", "..", "default", "all" or "route-map" (names FRR reserves)',
  )
  .describe('VRF (kernel device) name: 1-15 characters A-Za-z0-9_.-; not ., .., default, all, route-map');

/** An interface of an unnumbered session: not a name FRR would parse as an IPv4 address. */
export const NeighborInterface = z
  .string()
  .regex(
    new RegExp(`^(?!(?:\\.|\\.\\.)$)(?![0-9]+(?:\\.[0-9]+){3}$)${NAME}$`),
    'must be an interface name of 1-15 characters A-Z a-z 0-9 _ . - that does not look like an IPv4 address',
  )
  .describe('interface name: 1-15 characters A-Za-z0-9_.-, not shaped like an IPv4 address');

/** BGP passwords: printable ASCII without spaces, at most 80 bytes (the kernel's TCP-MD5 key limit). */
export const BgpPassword = z
  .string()
  .regex(/^[\x21-\x7e]{1,80}$/, 'must be 1-80 printable ASCII characters without spaces')
  .describe('TCP-MD5 password: 1-80 printable ASCII characters (bytes), no spaces');

/** `ASN:NN` (2-byte ASN with a 4-byte value, or a 4-byte ASN with a 2-byte value) or `A.B.C.D:NN`. */
export const RouteTarget = z
  .string()
  .regex(whole(ROUTE_TARGET), 'must be ASN:NN or A.B.C.D:NN (for example 65000:1001)')
  // The longest text the pattern takes (255.255.255.255:65535): a bound the API server's CEL
  // cost estimate needs where a custom resource carries a route-target.
  .meta({ maxLength: 21 })
  .describe(
    'route-target ASN:NN (2-byte ASN: NN up to 4294967295; 4-byte ASN: NN up to 65535) or A.B.C.D:NN',
  );

export const RouteTargets = z
  .object({
    import: z.array(RouteTarget).min(1).describe('route-targets whose routes this node imports'),
    export: z.array(RouteTarget).min(1).describe('route-targets this node attaches to what it advertises'),
  })
  .strict()
  .describe('separate import and export route-targets (instead of routeTarget)');

/** A standard BGP community: `AA:NN` or a well-known name (`no-export`, ...). */
export const Community = z
  .string()
  .regex(
    whole(COMMUNITY),
    'must be AA:NN (AA 0-65534, NN 0-65535; not 0:0) or a well-known community name: 0:0 and 65535:NN are the reserved well-known range (RFC 1997), write internet, no-export, ... instead',
  )
  // The longest text the pattern takes (graceful-shutdown), for the API server as above.
  .meta({ maxLength: 17 })
  .describe(
    'standard community AA:NN (AA 0-65534, not 0:0) or internet, local-AS, no-advertise, no-export, no-peer, blackhole, graceful-shutdown, accept-own',
  );

/**
 * AS numbers inside 1..4294967295 that BGP reserves, which bgpd takes with only a warning
 * ("Reserved AS used"): 23456 (AS_TRANS, RFC 6793) and 65535 (RFC 7300); 0 and 4294967295
 * (RFC 7300) are outside the range.
 */
const RESERVED_ASNS: readonly number[] = [23456, 65535];

/** An AS number BGP may use: 1-4294967294, not 23456 or 65535. */
export const BgpAsn = z
  .number()
  .int()
  .min(1, 'must be an AS number from 1 (0 is reserved, RFC 7607)')
  .max(4_294_967_294, 'must be an AS number up to 4294967294 (4294967295 is reserved, RFC 7300)')
  .refine((asn) => !RESERVED_ASNS.includes(asn), {
    message: 'must not be 23456 (AS_TRANS, RFC 6793) or 65535 (reserved, RFC 7300)',
  })
  // The refinement as JSON Schema, so the published schema refuses the same numbers.
  .meta({ not: { enum: [...RESERVED_ASNS] } });

/** A large community (RFC 8092): `GLOBAL:LOCAL1:LOCAL2`. */
export const LargeCommunity = z
  .string()
  .regex(whole(LARGE_COMMUNITY), 'must be A:B:C, three numbers 0-4294967295')
  // The longest text the pattern takes, for the API server as above.
  .meta({ maxLength: 32 })
  .describe('large community A:B:C (three numbers 0-4294967295)');

export const RemoteAs = z
  .union([z.literal('internal'), z.literal('external'), BgpAsn])
  .describe('internal, external or an AS number');

export const BgpTimers = z
  .object({
    keepalive: z.number().int().min(0).max(65535).describe('seconds between keepalives'),
    hold: z
      .union([z.literal(0), z.number().int().min(3).max(65535)])
      .describe('seconds without a message before the session drops: 0 (never) or 3-65535'),
  })
  .strict()
  .describe('BGP timers of this session');

const BFD_PROFILE_NAME = /^(?!fabrik-)[A-Za-z0-9_-]{1,64}$/;
const bfdTimers = {
  minRx: z.number().int().min(10).max(60000).optional().describe('receive interval in ms (default 300)'),
  minTx: z.number().int().min(10).max(60000).optional().describe('transmit interval in ms (default 300)'),
  multiplier: z.number().int().min(2).max(255).optional().describe('detect multiplier (default 3)'),
};

/** BFD timers of one session (a profile is made for them). */
export const BfdTimers = z.object(bfdTimers).strict();

export const BfdProfileName = z
  .string()
  .regex(BFD_PROFILE_NAME, 'must be 1-64 characters A-Z a-z 0-9 _ - and not start with "fabrik-"')
  .describe("BFD profile name (names starting with fabrik- are the renderer's)");

/** A BFD profile of bfdd (`bfd` / ` profile NAME`). */
export const BfdProfile = z
  .object({
    name: BfdProfileName,
    ...bfdTimers,
    passive: z.boolean().optional().describe('wait for the peer to start'),
  })
  .strict()
  .describe('a BFD profile of bfdd, for neighbors that name it in bfd.profile');

export const NeighborBfd = z
  .union([
    z.boolean(),
    z.object({ profile: BfdProfileName.describe('one of bfdProfiles') }).strict(),
    BfdTimers,
  ])
  .describe('BFD: true (bfdd defaults), a profile of bfdProfiles, or timers (a profile is made for them)');

export const AllowAsIn = z
  .union([z.number().int().min(1).max(10), z.literal('origin')])
  .describe('accept routes with our AS in the path: up to N times, or only as origin');

export const LocalAs = z
  .object({
    asn: BgpAsn.describe('the AS number shown to this neighbor'),
    noPrepend: z.boolean().default(false).describe('do not prepend the local AS to received routes'),
    replaceAs: z
      .boolean()
      .default(false)
      .describe('send only the local AS, not the real one (needs noPrepend)'),
  })
  .strict()
  .describe('present another AS number to this neighbor');

export const UnderlayAddressFamily = z.enum(['ipv4', 'ipv6', 'evpn']);
export const UnicastAddressFamily = z.enum(['ipv4', 'ipv6']);

/** A refinement: exactly one of two optional fields is given (reported at the first). */
function exactlyOne<A extends string, B extends string>(a: A, b: B) {
  return (value: Partial<Record<A | B, unknown>>, ctx: z.RefinementCtx): void => {
    if ((value[a] === undefined) === (value[b] === undefined))
      ctx.addIssue({ code: 'custom', path: [a], message: `give exactly one of ${a} or ${b}` });
  };
}

/** Fields every BGP session has, in the underlay and inside VRFs. */
const sessionFields = {
  remoteAs: RemoteAs,
  password: BgpPassword.optional(),
  bfd: NeighborBfd.default(false),
  timers: BgpTimers.optional(),
  allowAsIn: AllowAsIn.optional(),
  localAs: LocalAs.optional(),
  ebgpMultihop: z.number().int().min(1).max(255).optional().describe('eBGP peer this many hops away'),
  updateSource: z
    .union([IpAddress, NeighborInterface])
    .optional()
    .describe('source address or interface of the session (peering from a loopback)'),
};

export const UnderlayNeighbor = z
  .object({
    /** Numbered session: the peer's address. */
    address: IpAddress.optional().describe("numbered session: the peer's address"),
    /** Unnumbered session (BGP over the interface's IPv6 link-local address). */
    interface: NeighborInterface.optional().describe(
      'unnumbered session over this interface (IPv6 link-local)',
    ),
    ...sessionFields,
    addressFamilies: z
      .array(UnderlayAddressFamily)
      .min(1)
      .default(['ipv4', 'evpn'])
      .describe('address families of the session: ipv4 (the VTEP), ipv6, evpn'),
  })
  .strict()
  .superRefine(exactlyOne('address', 'interface'))
  .describe('a BGP session of the underlay: exactly one of address or interface');

const prefixLength = z.number().int().min(0).max(128);

export const PrefixRule = z
  .object({
    cidr: Network,
    /** Also match longer prefixes, from this length on. */
    ge: prefixLength.min(1).optional().describe('also match longer prefixes from this length on'),
    /** Also match longer prefixes, up to this length. */
    le: prefixLength.min(1).optional().describe('also match longer prefixes up to this length'),
    action: z.enum(['permit', 'deny']).default('permit').describe('default permit'),
  })
  .strict()
  .describe('prefix-list entry; prefix length < ge <= le <= 32 (IPv4) or 128 (IPv6)');

export const PrefixMatch = z
  .object({
    cidr: Network,
    ge: prefixLength.min(1).optional().describe('also match longer prefixes from this length on'),
    le: prefixLength.min(1).optional().describe('also match longer prefixes up to this length'),
  })
  .strict()
  .describe('routes of this network (and longer prefixes up to le / from ge)');

export const FilterItem = z
  .object({
    prefix: PrefixMatch.optional(),
    community: Community.optional().describe('routes carrying this community'),
    exactMatch: z.boolean().default(false).describe('the route carries exactly this community and no other'),
    action: z
      .enum(['accept', 'reject', 'next'])
      .default('accept')
      .describe('accept or reject a matching route, or apply the modifications and go on with the next item'),
    addCommunities: z.array(Community).default([]).describe('communities to set on a matching route'),
    additive: z.boolean().default(true).describe("add to the route's communities instead of replacing them"),
    removeCommunities: z.array(Community).default([]).describe('communities to remove'),
    removeAllCommunities: z.boolean().default(false).describe('remove every community'),
    addLargeCommunities: z
      .array(LargeCommunity)
      .default([])
      .describe('large communities to set on a matching route (additive as for addCommunities)'),
    setLocalPreference: z
      .number()
      .int()
      .min(0)
      .max(4_294_967_295)
      .optional()
      .describe('LOCAL_PREF of a matching route (higher wins; iBGP and within this node)'),
    setMed: z
      .number()
      .int()
      .min(0)
      .max(4_294_967_295)
      .optional()
      .describe('MED (metric) of a matching route (lower wins)'),
    prependAsPath: z
      .array(BgpAsn)
      .min(1)
      .max(10)
      .optional()
      .describe('AS numbers put in front of the AS path, in this order (longer paths lose)'),
    setNextHop: IpAddress.optional().describe(
      'next hop of a matching route: an IPv4 address for IPv4 routes, a global IPv6 address for IPv6 routes',
    ),
  })
  .strict()
  .describe(
    'one filter item: matches prefix and/or community (nothing: every route); an accepted route can be changed (communities, LOCAL_PREF, MED, AS path, next hop)',
  );

export const Filter = z
  .object({
    items: z
      .array(FilterItem)
      .default([])
      .describe('checked in order; the first item that accepts or rejects decides'),
    defaultAction: z.enum(['accept', 'reject']).default('reject').describe('for routes no item decided'),
  })
  .strict()
  .describe('a route filter (route-map)');

/** `import` / `export` of a VRF: a prefix rule list (first match wins, the rest denied) or a filter. */
export const RouteFilter = z.union([z.array(PrefixRule), Filter]);

export const StaticRoute = z
  .object({
    prefix: Network,
    nexthop: IpAddress.optional().describe("next hop of the prefix's family"),
    nextHopVrf: FrrVrfName.optional().describe(
      'resolve the next hop in this VRF (alone: route into that VRF)',
    ),
    blackhole: z.literal(true).optional().describe('drop the traffic'),
  })
  .strict()
  .describe('one of nexthop (with optional nextHopVrf), nextHopVrf alone, or blackhole: true');

export const BgpPeer = z
  .object({
    address: IpAddress.optional().describe("the peer's address"),
    listenRange: Network.optional().describe('accept sessions from any address of this network'),
    ...sessionFields,
    maxPrefixes: z.number().int().min(1).max(4_294_967_295).optional().describe('per address family'),
    maxPrefixesWarningOnly: z
      .boolean()
      .default(false)
      .describe('over maxPrefixes: only log a warning (default: close the session)'),
    maxPrefixesRestart: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe('over maxPrefixes: open the session again after this many minutes'),
    addressFamilies: z
      .array(UnicastAddressFamily)
      .min(1)
      .optional()
      .describe('default: the family of address or listenRange'),
    import: Filter.optional().describe('routes accepted from the peer (default: all)'),
    export: Filter.optional().describe('routes sent to the peer (default: all)'),
  })
  .strict()
  .superRefine(exactlyOne('address', 'listenRange'))
  .describe('a BGP peer inside the VRF (Calico, MetalLB, kube-vip): exactly one of address or listenRange');

export const ImportVrf = z.union([
  FrrVrfName,
  z.object({ vrf: FrrVrfName, filter: Filter.describe('routes leaked from this VRF') }).strict(),
]);

export const VrfIntent = z
  .object({
    name: FrrVrfName,
    /** The L3 VNI of the VRF. */
    vni: Vni.describe('the L3 VNI (1-16777215)'),
    /** Default: `asn:vni`. */
    routeTarget: RouteTarget.optional().describe('import and export route-target; default asn:vni'),
    routeTargets: RouteTargets.optional(),
    /** Leak routes from these VRFs into this one. */
    importVrfs: z
      .array(ImportVrf)
      .default([])
      .describe('leak routes from these VRFs (a name, or {vrf, filter} for a filter of its own)'),
    /** Which routes this VRF accepts from leaks (an empty list accepts every route). */
    import: RouteFilter.default([]).describe(
      'filter of leaked routes, for sources without a filter of their own',
    ),
    /** Which routes this VRF advertises to EVPN (an empty list advertises every route). */
    export: RouteFilter.default([]).describe('filter of what the VRF advertises to EVPN'),
    aggregates: z
      .array(AggregatePrefix)
      .default([])
      .describe('aggregate-address in the VRF (IPv6 ones need ipv6)'),
    redistribute: z
      .object({
        connected: z.boolean().default(false).describe("the VRF's connected routes"),
        static: z.boolean().default(false).describe("the VRF's static routes"),
        kernel: z.boolean().default(false).describe("routes other programs put into the VRF's table"),
      })
      .strict()
      .default({ connected: false, static: false, kernel: false })
      .describe("routes the VRF's BGP instance takes from the routing table"),
    staticRoutes: z.array(StaticRoute).default([]).describe("routes in the VRF's table (zebra/staticd)"),
    bgpPeers: z.array(BgpPeer).default([]).describe('BGP sessions inside the VRF'),
    addressFamilies: z
      .array(UnicastAddressFamily)
      .min(1)
      .default(['ipv4'])
      .describe("unicast families of the VRF's BGP instance and EVPN type-5 routes"),
  })
  .strict()
  .describe('an L3 VRF: its VNI, route-targets, leaks, filters, routes and BGP peers');

export const Layer2Intent = z
  .object({
    vni: Vni.describe('the L2 VNI (1-16777215)'),
    vlan: VlanId.describe('the VLAN on the trunk (1-4094)'),
    /** The VRF the L2 network joins; default: the intent's hbrVrf. */
    vrf: FrrVrfName.optional(),
    /** Default: FRR's automatic route-target (ASN:VNI). */
    routeTarget: RouteTarget.optional(),
    routeTargets: RouteTargets.optional(),
    advertiseSviIp: z
      .boolean()
      .default(false)
      .describe(
        "advertise the bridge's own IP/MAC as EVPN type-2 routes (unique SVI addresses, not anycast gateways)",
      ),
  })
  .strict()
  .describe('an L2 network: its VNI, VLAN and VRF');

export const FabricLoopGuard = z
  .object({
    enabled: z.boolean().default(true).describe('default true'),
    community: Community.default('65169:200').describe('tags routes learnt from the underlay'),
  })
  .strict()
  .describe(
    'routes learnt from the underlay are tagged with community on the way in and never sent back to the underlay (IPv4, IPv6, EVPN) nor advertised from a VRF',
  );

export const GracefulRestart = z
  .object({
    preserveForwardingState: z
      .boolean()
      .default(false)
      .describe('tell peers that forwarding survives a BGP restart (the routes stay in the kernel)'),
    restartTime: z
      .number()
      .int()
      .min(1)
      .max(4095)
      .optional()
      .describe('seconds peers wait for this node to come back (default 120)'),
    stalepathTime: z
      .number()
      .int()
      .min(1)
      .max(4095)
      .optional()
      .describe("seconds this node keeps a restarting peer's routes (default 360)"),
  })
  .strict()
  .describe(
    'BGP graceful restart (RFC 4724) in every BGP instance: peers keep the routes while bgpd restarts',
  );

export const FRR_TEMPLATE_SETS = ['netns', 'vrf-ibgp'] as const;
export type FrrTemplateSet = (typeof FRR_TEMPLATE_SETS)[number];

/** Rules between fields that JSON Schema cannot express; the validator enforces them. */
export const CROSS_FIELD_RULES = [
  'underlay.neighbors[]: exactly one of address or interface; no two with the same address or interface',
  'vrfs[].bgpPeers[]: exactly one of address or listenRange; no two with the same address; listen ranges of a VRF do not overlap; addressFamilies match the address family',
  'ge/le: prefix length < ge <= le <= 32 (IPv4) or 128 (IPv6)',
  'routeTarget and routeTargets: not both; routeTarget required when asn and vni both exceed 65535',
  'VRF names unique; VNIs unique across vrfs and layer2s; VLANs unique',
  'importVrfs, layer2s[].vrf and nextHopVrf name a VRF of vrfs or hbrVrf; importVrfs without duplicates and not the VRF itself',
  'IPv6 prefixes, rules and peers of a VRF need ipv6 in its addressFamilies',
  'staticRoutes[]: exactly one of nexthop, nextHopVrf alone, or blackhole; nexthop of the prefix family',
  'filter items: reject without changes to the route; removeAllCommunities not with addCommunities; setNextHop of the family of prefix, when both are given',
  'bfd.profile names one of bfdProfiles; bfdProfiles names unique',
  'localAs only on eBGP sessions; localAs.asn differs from asn and remoteAs; localAs.replaceAs needs noPrepend',
  'ebgpMultihop not on an unnumbered (interface) neighbor',
  'maxPrefixesWarningOnly and maxPrefixesRestart need maxPrefixes, and not both',
] as const;

/** The intent's fields; {@link FrrIntentSchema} adds the rules between them. */
const FrrIntentFields = z
  .object({
    mode: z
      .enum(FRR_TEMPLATE_SETS)
      .default('netns')
      .describe('template set: netns (import vrf) or vrf-ibgp (a veth pair and iBGP per VRF)'),
    asn: BgpAsn.describe("the node's AS number (1-4294967294, not 23456 or 65535)"),
    routerId: Ipv4Address,
    vtepIp: Ipv4Address.describe('announced into the underlay as /32'),
    hbrVrf: FrrVrfName.default('hbr').describe('the VRF that L2 networks join when they name none'),
    fabricLoopGuard: FabricLoopGuard.default({ enabled: true, community: '65169:200' }),
    underlay: z
      .object({
        neighbors: z.array(UnderlayNeighbor).default([]).describe('BGP sessions of the default VRF'),
        multipathRelax: z
          .boolean()
          .default(false)
          .describe('ECMP across paths of different neighbor ASes (bgp bestpath as-path multipath-relax)'),
      })
      .strict()
      .default({ neighbors: [], multipathRelax: false })
      .describe('the fabric: sessions to leaves, spines or route reflectors'),
    bfdProfiles: z.array(BfdProfile).default([]).describe("BFD profiles rendered into bfdd's configuration"),
    gracefulRestart: GracefulRestart.optional(),
    gracefulShutdown: z
      .boolean()
      .default(false)
      .describe(
        'drain the node before maintenance: every BGP instance sends its routes with the GRACEFUL_SHUTDOWN community (peers lower their LOCAL_PREF to 0) and sets LOCAL_PREF 0 on what it receives',
      ),
    vrfs: z.array(VrfIntent).default([]).describe('L3 VRFs with their L3 VNI'),
    layer2s: z.array(Layer2Intent).default([]).describe('L2 networks (L2 VNIs)'),
  })
  .strict();

/** The zod schema of the routing intent (input of `parseFrrIntent`). */
export const FrrIntentSchema = FrrIntentFields.superRefine(checkReferences).describe(
  `fabrik routing intent. Rules between fields: ${CROSS_FIELD_RULES.join('; ')}.`,
);

/** A parsed, valid intent (defaults applied). */
export type FrrIntent = z.infer<typeof FrrIntentFields>;
/** What a caller may write (defaults still optional). */
export type FrrIntentInput = z.input<typeof FrrIntentFields>;
export type FrrVrfIntent = FrrIntent['vrfs'][number];
export type FrrLayer2Intent = FrrIntent['layer2s'][number];
export type FrrPrefixRule = z.infer<typeof PrefixRule>;
export type FrrUnderlayNeighbor = FrrIntent['underlay']['neighbors'][number];
export type FrrBgpPeer = FrrVrfIntent['bgpPeers'][number];
export type FrrFilter = z.infer<typeof Filter>;
export type FrrFilterItem = z.infer<typeof FilterItem>;
export type FrrStaticRoute = z.infer<typeof StaticRoute>;
export type FrrBfdProfile = z.infer<typeof BfdProfile>;
export type FrrNeighborBfd = z.infer<typeof NeighborBfd>;
