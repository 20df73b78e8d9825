import { z } from 'zod';
import { Conditions, LabelSelector, objectMeta, objectNameOf } from '../kube/meta.js';
import { celField, withRules } from '../rules.js';
import { parseWith, type ParseOptions, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { KubeIpAddress, KubeRouteTarget, NetworkCidr } from './fields.js';
import { filterHasIpv6, KubeFilter, prefixLengthRules } from './filter.js';
import { ipFamily } from './ip.js';
import type { Layer2Network } from './layer2-network.js';

/**
 * The name of a VRF object, which is also the name of the VRF device on every node: a DNS label
 * (the API server's rule for names) of at most 15 characters (the kernel's rule for links), and
 * not `default` (FRR's name for the default VRF).
 */
export const VrfObjectName = z
  .string()
  .max(15, 'must be at most 15 characters (it names the VRF device)')
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    'must be lower case letters, digits and "-", starting and ending with a letter or digit',
  )
  .refine((n) => n !== 'default', 'must not be "default" (FRR\'s name for the default VRF)');

/** One entry of a VRF's import or export prefix list (an FRR prefix-list line). */
export const VrfPrefixRule = withRules(
  z
    .object({
      cidr: NetworkCidr.describe('The prefix to match (IPv4 or IPv6, no host bits).'),
      ge: z
        .number()
        .int()
        .min(1)
        .max(128)
        .optional()
        .describe('Also match longer prefixes, from this length on.'),
      le: z
        .number()
        .int()
        .min(1)
        .max(128)
        .optional()
        .describe('Also match longer prefixes, up to this length.'),
      action: z.enum(['permit', 'deny']).default('permit').describe('What a matching route gets.'),
      seq: z
        .number()
        .int()
        .min(1)
        .max(4_294_967_295)
        .optional()
        .describe('Position in the prefix list; default: the rule order (5, 10, 15, ...).'),
    })
    .strict(),
  prefixLengthRules(),
);
export type VrfPrefixRule = z.infer<typeof VrfPrefixRule>;

/** A prefix list: rules are tried in `seq` order; each `seq` may appear once. */
const PrefixList = withRules(z.array(VrfPrefixRule).max(256), [
  {
    message: 'each seq may appear once',
    holds: (rules) => {
      const seqs = rules.flatMap((r) => (r.seq === undefined ? [] : [r.seq]));
      return new Set(seqs).size === seqs.length;
    },
    cel: 'self.all(a, !has(a.seq) || self.exists_one(b, has(b.seq) && b.seq == a.seq))',
  },
]);

/** A static route in the VRF's table. */
export const VrfStaticRoute = withRules(
  z
    .object({
      prefix: NetworkCidr.describe('The destination.'),
      nextHop: KubeIpAddress.describe('The gateway, of the same address family as prefix.'),
    })
    .strict(),
  [
    {
      message: 'must be of the same address family as prefix',
      field: ['nextHop'],
      holds: (r) => ipFamily(r.prefix) === ipFamily(r.nextHop),
      cel: "self.prefix.contains(':') == self.nextHop.contains(':')",
    },
  ],
);
export type VrfStaticRoute = z.infer<typeof VrfStaticRoute>;

/** A list of route targets (a set). */
const RouteTargetList = z
  .array(KubeRouteTarget)
  .min(1)
  .max(64)
  .refine((l) => new Set(l).size === l.length, 'each route target may appear once')
  .meta({ 'x-kubernetes-list-type': 'set' });

/** The filter of the routes leaked from one of `importVrfs` (instead of `import`). */
export const VrfImportFilter = z
  .object({
    vrf: VrfObjectName.describe('A VRF of importVrfs.'),
    filter: KubeFilter.describe('The routes of that VRF this one takes.'),
  })
  .strict();
export type VrfImportFilter = z.infer<typeof VrfImportFilter>;

/** The unicast address families of a VRF's BGP instance. */
export const VRF_ADDRESS_FAMILIES = ['ipv4', 'ipv6'] as const;

/** Address families of a VRF or a BGP session: ipv4, ipv6 or both, each once. */
export const AddressFamilies = z
  .array(z.enum(VRF_ADDRESS_FAMILIES))
  .min(1)
  .max(2)
  .refine((l) => new Set(l).size === l.length, 'each address family may appear once')
  .meta({ 'x-kubernetes-list-type': 'set' });

/** `addressFamilies` of the spec lists ipv6, or is left out (then IPv6 prefixes add ipv6: {@link vrfAddressFamilies}). */
const allowsIpv6 = (s: { addressFamilies?: readonly string[] | undefined }) =>
  s.addressFamilies === undefined || s.addressFamilies.includes('ipv6');
const CEL_ALLOWS_IPV6 = "(!has(self.addressFamilies) || 'ipv6' in self.addressFamilies)";
const NEEDS_IPV6 = 'an IPv6 prefix needs ipv6 in addressFamilies (when addressFamilies is given)';

/** What a VRF is: an L3 VNI, its route targets, route leaking and filters, on the nodes it selects. */
export const VrfSpec = withRules(
  z
    .object({
      vni: z
        .number()
        .int()
        .min(1)
        .max(16_777_215)
        .describe('The L3 VNI (symmetric IRB); unique across VRFs and Layer2Networks.'),
      routeTarget: KubeRouteTarget.optional().describe('Import and export route target; default: ASN:VNI.'),
      routeTargets: z
        .object({
          import: RouteTargetList.describe('Route targets whose EVPN routes this VRF imports.'),
          export: RouteTargetList.describe('Route targets attached to the routes this VRF advertises.'),
        })
        .strict()
        .optional()
        .describe('Separate import and export route target lists, instead of routeTarget.'),
      importVrfs: z
        .array(VrfObjectName)
        .max(64)
        .refine((l) => new Set(l).size === l.length, 'each VRF may appear once')
        .meta({ 'x-kubernetes-list-type': 'set' })
        .optional()
        .describe('VRFs whose routes this one imports (route leaking), filtered by import.'),
      importVrfFilters: z
        .array(VrfImportFilter)
        .max(64)
        .refine((l) => new Set(l.map((f) => f.vrf)).size === l.length, 'each VRF may appear once')
        .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['vrf'] })
        .optional()
        .describe(
          'A filter of its own for routes leaked from some of importVrfs (those use it instead of import).',
        ),
      import: PrefixList.optional().describe('Which leaked routes this VRF accepts; empty or absent: all.'),
      export: PrefixList.optional().describe(
        'Which routes this VRF advertises to EVPN; empty or absent: all.',
      ),
      aggregates: z
        .array(NetworkCidr)
        .max(256)
        .refine((l) => new Set(l).size === l.length, 'each aggregate may appear once')
        .meta({ 'x-kubernetes-list-type': 'set' })
        .optional()
        .describe('Summary routes advertised instead of their more specific routes.'),
      redistribute: z
        .object({
          connected: z
            .boolean()
            .optional()
            .describe('Advertise connected routes of the VRF (default false).'),
          static: z.boolean().optional().describe('Advertise static routes of the VRF (default false).'),
          kernel: z
            .boolean()
            .optional()
            .describe("Advertise routes other programs put into the VRF's table (default false)."),
        })
        .strict()
        .optional(),
      staticRoutes: z.array(VrfStaticRoute).max(256).optional(),
      addressFamilies: AddressFamilies.optional().describe(
        "Unicast address families of the VRF's BGP instance and its EVPN type-5 routes; default: ipv4, and ipv6 too when a prefix of the VRF (import, export, aggregates, staticRoutes, importVrfFilters) or an anycast gateway of its Layer2Networks is IPv6.",
      ),
      nodeSelector: LabelSelector.optional().describe('The nodes that get this VRF; absent: every node.'),
    })
    .strict(),
  [
    {
      message: 'give routeTarget or routeTargets, not both',
      field: ['routeTargets'],
      holds: (s) => s.routeTarget === undefined || s.routeTargets === undefined,
      cel: '!has(self.routeTarget) || !has(self.routeTargets)',
    },
    {
      message: 'each vrf must be one of importVrfs',
      field: ['importVrfFilters'],
      holds: (s) => (s.importVrfFilters ?? []).every((f) => (s.importVrfs ?? []).includes(f.vrf)),
      cel: '!has(self.importVrfFilters) || self.importVrfFilters.all(f, has(self.importVrfs) && f.vrf in self.importVrfs)',
    },
    {
      message: NEEDS_IPV6,
      field: ['aggregates'],
      holds: (s) => allowsIpv6(s) || !(s.aggregates ?? []).some((a) => ipFamily(a) === 6),
      cel: `!has(self.aggregates) || self.aggregates.all(a, !a.contains(':')) || ${CEL_ALLOWS_IPV6}`,
    },
    ...(['import', 'export'] as const).map((list) => ({
      message: NEEDS_IPV6,
      field: [list],
      holds: (s: { import?: VrfPrefixRule[]; export?: VrfPrefixRule[]; addressFamilies?: string[] }) =>
        allowsIpv6(s) || !(s[list] ?? []).some((r) => ipFamily(r.cidr) === 6),
      // `import` is a CEL keyword: kube-apiserver exposes such a field as `__import__`.
      cel: `!has(self.${celField(list)}) || self.${celField(list)}.all(r, !r.cidr.contains(':')) || ${CEL_ALLOWS_IPV6}`,
    })),
    {
      message: NEEDS_IPV6,
      field: ['staticRoutes'],
      holds: (s) => allowsIpv6(s) || !(s.staticRoutes ?? []).some((r) => ipFamily(r.prefix) === 6),
      cel: `!has(self.staticRoutes) || self.staticRoutes.all(r, !r.prefix.contains(':')) || ${CEL_ALLOWS_IPV6}`,
    },
    {
      message: NEEDS_IPV6,
      field: ['importVrfFilters'],
      holds: (s) => allowsIpv6(s) || !(s.importVrfFilters ?? []).some((f) => filterHasIpv6(f.filter)),
      cel:
        "!has(self.importVrfFilters) || self.importVrfFilters.all(f, !has(f.filter.items) || f.filter.items.all(i, !has(i.prefix) || !i.prefix.cidr.contains(':'))) || " +
        CEL_ALLOWS_IPV6,
    },
  ],
);
export type VrfSpec = z.infer<typeof VrfSpec>;

/** A VRF's own status. Per-node results are in NodeNetworkStatus; this is reserved for conditions. */
export const VrfStatus = z.object({ conditions: Conditions.optional() }).strict();
export type VrfStatus = z.infer<typeof VrfStatus>;

/** A whole VRF object as the API server stores it. */
export const Vrf = withRules(
  z.strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('VRF'),
    metadata: objectMeta(VrfObjectName),
    spec: VrfSpec,
    status: VrfStatus.optional(),
  }),
  [
    {
      // zod: VrfObjectName says it (a JSON schema pattern cannot).
      message: 'must not be "default" (FRR\'s name for the default VRF)',
      field: ['metadata', 'name'],
      cel: "self.metadata.name != 'default'",
    },
    {
      message: 'must not name the VRF itself',
      field: ['spec', 'importVrfs'],
      holds: (v) => !(v.spec.importVrfs ?? []).includes(v.metadata.name),
      cel: '!has(self.spec.importVrfs) || !(self.metadata.name in self.spec.importVrfs)',
    },
  ],
);
export type Vrf = z.infer<typeof Vrf>;

export const VRF_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'VRF',
  listKind: 'VRFList',
  plural: 'vrfs',
  singular: 'vrf',
  shortNames: ['fvrf'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: Vrf,
  statusSubresource: true,
  description: 'A VRF on the selected nodes: L3 VNI, route targets, route leaking and prefix filters.',
  printerColumns: [
    { name: 'VNI', type: 'integer', jsonPath: '.spec.vni' },
    { name: 'Route-Target', type: 'string', jsonPath: '.spec.routeTarget', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** Validates a VRF object (parsed YAML/JSON) and applies defaults; errors name the field (`spec.vni`). */
export function parseVrf(input: unknown, options?: ParseOptions): ParseResult<Vrf> {
  return parseWith(Vrf, (i) => `VRF ${objectNameOf(i)}`, input, options);
}

/**
 * The address families a VRF carries: `spec.addressFamilies`, or when it is left out ipv4, plus
 * ipv6 when one of its prefixes (import, export, aggregates, staticRoutes, importVrfFilters) or an
 * anycast gateway of one of its Layer2Networks is IPv6.
 */
export function vrfAddressFamilies(
  vrf: Pick<Vrf, 'metadata' | 'spec'>,
  layer2s: readonly Pick<Layer2Network, 'spec'>[],
): ('ipv4' | 'ipv6')[] {
  const { spec } = vrf;
  if (spec.addressFamilies !== undefined) return [...spec.addressFamilies];
  const prefixes = [
    ...(spec.import ?? []).map((r) => r.cidr),
    ...(spec.export ?? []).map((r) => r.cidr),
    ...(spec.aggregates ?? []),
    ...(spec.staticRoutes ?? []).map((r) => r.prefix),
    ...layer2s.filter((l) => l.spec.vrf === vrf.metadata.name).flatMap((l) => l.spec.anycastGateways ?? []),
  ];
  const ipv6 =
    prefixes.some((p) => ipFamily(p) === 6) ||
    (spec.importVrfFilters ?? []).some((f) => filterHasIpv6(f.filter));
  return ipv6 ? ['ipv4', 'ipv6'] : ['ipv4'];
}
