import { z } from 'zod';
import { Asn, Cidr, IpAddress, InterfaceName, VlanId, Vni, VrfName } from '../primitives.js';
import { pathText } from './path.js';

// The routing intent: what pipelines and the agents hand to the renderer. Field names are a
// contract (see README.md, "Intent reference"); add fields, never rename them.

const Ipv4Address = z.ipv4();

/** BGP passwords end up on a single FRR command line: no whitespace, at most 80 characters. */
const BgpPassword = z.string().regex(/^\S{1,80}$/, 'must be 1-80 characters without whitespace');

/** `ASN:NN` (2-byte ASN with a 4-byte value, or a 4-byte ASN with a 2-byte value) or `A.B.C.D:NN`. */
export const RouteTarget = z
  .string()
  .refine(isRouteTarget, 'must be ASN:NN or A.B.C.D:NN (for example 65000:1001)');

function isRouteTarget(rt: string): boolean {
  const m = /^(?:(\d+)|(\d+\.\d+\.\d+\.\d+)):(\d+)$/.exec(rt);
  if (!m) return false;
  const value = Number(m[3]);
  if (m[2] !== undefined) return Ipv4Address.safeParse(m[2]).success && value <= 0xffff;
  const asn = Number(m[1]);
  if (asn < 1 || asn > 0xffffffff) return false;
  return asn <= 0xffff ? value <= 0xffffffff : value <= 0xffff;
}

const Ipv4Cidr = Cidr.refine((c) => !c.includes(':'), 'IPv6 prefixes are not supported yet (IPv4 only)');

export const UnderlayNeighbor = z
  .object({
    /** Numbered session: the peer's address. */
    address: IpAddress.optional(),
    /** Unnumbered session (BGP over the interface's IPv6 link-local address). */
    interface: InterfaceName.optional(),
    remoteAs: z.union([z.literal('internal'), z.literal('external'), Asn]),
    password: BgpPassword.optional(),
    bfd: z.boolean().default(false),
  })
  .strict()
  .superRefine((n, ctx) => {
    if ((n.address === undefined) === (n.interface === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['address'],
        message: 'give exactly one of address or interface',
      });
    }
  });

export const PrefixRule = z
  .object({
    cidr: Ipv4Cidr,
    /** Also match longer prefixes, from this length on. */
    ge: z.number().int().min(1).max(32).optional(),
    /** Also match longer prefixes, up to this length. */
    le: z.number().int().min(1).max(32).optional(),
    action: z.enum(['permit', 'deny']).default('permit'),
  })
  .strict()
  .superRefine((r, ctx) => {
    const len = Number(r.cidr.split('/')[1]);
    if (r.ge !== undefined && r.ge <= len) {
      ctx.addIssue({
        code: 'custom',
        path: ['ge'],
        message: `must be greater than the prefix length ${len}`,
      });
    }
    if (r.le !== undefined && r.le <= len) {
      ctx.addIssue({
        code: 'custom',
        path: ['le'],
        message: `must be greater than the prefix length ${len}`,
      });
    }
    if (r.ge !== undefined && r.le !== undefined && r.le < r.ge) {
      ctx.addIssue({ code: 'custom', path: ['le'], message: `must not be less than ge (${r.ge})` });
    }
  });

export const StaticRoute = z
  .object({
    prefix: Ipv4Cidr,
    nexthop: Ipv4Address.optional(),
    blackhole: z.literal(true).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if ((r.nexthop === undefined) === (r.blackhole === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['nexthop'],
        message: 'give exactly one of nexthop or blackhole: true',
      });
    }
  });

export const VrfIntent = z
  .object({
    name: VrfName,
    /** The L3 VNI of the VRF. */
    vni: Vni,
    /** Default: `asn:vni`. */
    routeTarget: RouteTarget.optional(),
    /** Leak routes from these VRFs into this one. */
    importVrfs: z.array(VrfName).default([]),
    /** Which routes this VRF accepts from leaks (an empty list accepts every route). */
    import: z.array(PrefixRule).default([]),
    /** Which routes this VRF advertises to EVPN (an empty list advertises every route). */
    export: z.array(PrefixRule).default([]),
    aggregates: z.array(Ipv4Cidr).default([]),
    redistribute: z
      .object({ connected: z.boolean().default(false), static: z.boolean().default(false) })
      .strict()
      .default({ connected: false, static: false }),
    staticRoutes: z.array(StaticRoute).default([]),
  })
  .strict();

export const Layer2Intent = z
  .object({
    vni: Vni,
    vlan: VlanId,
    /** The VRF the L2 network joins; default: the intent's hbrVrf. */
    vrf: VrfName.optional(),
    /** Default: FRR's automatic route-target (ASN:VNI). */
    routeTarget: RouteTarget.optional(),
  })
  .strict();

export const FRR_TEMPLATE_SETS = ['netns', 'vrf-ibgp'] as const;
export type FrrTemplateSet = (typeof FRR_TEMPLATE_SETS)[number];

/** The zod schema of the routing intent (input of {@link parseFrrIntent}). */
export const FrrIntentSchema = z
  .object({
    mode: z.enum(FRR_TEMPLATE_SETS).default('netns'),
    asn: Asn,
    routerId: Ipv4Address,
    vtepIp: Ipv4Address,
    hbrVrf: VrfName.default('hbr'),
    underlay: z
      .object({ neighbors: z.array(UnderlayNeighbor).default([]) })
      .strict()
      .default({ neighbors: [] }),
    vrfs: z.array(VrfIntent).default([]),
    layer2s: z.array(Layer2Intent).default([]),
  })
  .strict()
  .superRefine(checkReferences);

/** A parsed, valid intent (defaults applied). */
export type FrrIntent = z.infer<typeof FrrIntentSchema>;
/** What a caller may write (defaults still optional). */
export type FrrIntentInput = z.input<typeof FrrIntentSchema>;
export type FrrVrfIntent = FrrIntent['vrfs'][number];
export type FrrLayer2Intent = FrrIntent['layer2s'][number];
export type FrrPrefixRule = FrrVrfIntent['import'][number];
export type FrrUnderlayNeighbor = FrrIntent['underlay']['neighbors'][number];

function checkReferences(intent: FrrIntent, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message });
  const vrfIndex = new Map<string, number>();
  const vniOwner = new Map<number, string>();
  const claimVni = (vni: number, path: (string | number)[]) => {
    const owner = vniOwner.get(vni);
    if (owner !== undefined) issue(path, `VNI ${vni} is already used by ${owner}`);
    else vniOwner.set(vni, pathText(path));
  };
  intent.vrfs.forEach((vrf, i) => {
    const first = vrfIndex.get(vrf.name);
    if (first !== undefined)
      issue(['vrfs', i, 'name'], `duplicate VRF name "${vrf.name}" (also vrfs[${first}])`);
    else vrfIndex.set(vrf.name, i);
    claimVni(vrf.vni, ['vrfs', i, 'vni']);
    if (vrf.routeTarget === undefined && intent.asn > 0xffff && vrf.vni > 0xffff) {
      issue(
        ['vrfs', i, 'routeTarget'],
        'required when both asn and vni exceed 65535 (the default asn:vni does not fit)',
      );
    }
  });
  const known = (name: string) => vrfIndex.has(name) || name === intent.hbrVrf;
  intent.vrfs.forEach((vrf, i) => {
    vrf.importVrfs.forEach((name, j) => {
      if (name === vrf.name) issue(['vrfs', i, 'importVrfs', j], 'a VRF cannot import from itself');
      else if (!known(name))
        issue(['vrfs', i, 'importVrfs', j], `unknown VRF "${name}" (not in vrfs and not hbrVrf)`);
    });
    const seen = new Set<string>();
    vrf.importVrfs.forEach((name, j) => {
      if (seen.has(name)) issue(['vrfs', i, 'importVrfs', j], `"${name}" is listed twice`);
      seen.add(name);
    });
  });
  const vlanOwner = new Map<number, number>();
  intent.layer2s.forEach((l2, i) => {
    claimVni(l2.vni, ['layer2s', i, 'vni']);
    const first = vlanOwner.get(l2.vlan);
    if (first !== undefined)
      issue(['layer2s', i, 'vlan'], `VLAN ${l2.vlan} is already used by layer2s[${first}]`);
    else vlanOwner.set(l2.vlan, i);
    if (l2.vrf !== undefined && !known(l2.vrf))
      issue(['layer2s', i, 'vrf'], `unknown VRF "${l2.vrf}" (not in vrfs and not hbrVrf)`);
    if (l2.routeTarget === undefined && intent.asn > 0xffff && l2.vni > 0xffff) {
      issue(
        ['layer2s', i, 'routeTarget'],
        'required when both asn and vni exceed 65535 (the default asn:vni does not fit)',
      );
    }
  });
}
