import { z } from 'zod';
import { Conditions, LabelSelector, objectMeta, objectNameOf } from '../kube/meta.js';
import { withRules } from '../rules.js';
import { parseWith, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { KubeIpAddress, KubeRouteTarget, NetworkCidr } from './fields.js';
import { ipFamily, maxPrefixLength, prefixLength } from './ip.js';

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
  [
    {
      message: 'must be greater than the prefix length of cidr',
      field: ['ge'],
      holds: (r) => r.ge === undefined || r.ge > prefixLength(r.cidr),
      cel: "!has(self.ge) || self.ge > int(self.cidr.split('/')[1])",
    },
    {
      message: 'must be greater than the prefix length of cidr',
      field: ['le'],
      holds: (r) => r.le === undefined || r.le > prefixLength(r.cidr),
      cel: "!has(self.le) || self.le > int(self.cidr.split('/')[1])",
    },
    {
      message: 'must be at most 32 for an IPv4 cidr',
      field: ['ge'],
      holds: (r) => r.ge === undefined || r.ge <= maxPrefixLength(r.cidr),
      cel: "!has(self.ge) || self.cidr.contains(':') || self.ge <= 32",
    },
    {
      message: 'must be at most 32 for an IPv4 cidr',
      field: ['le'],
      holds: (r) => r.le === undefined || r.le <= maxPrefixLength(r.cidr),
      cel: "!has(self.le) || self.cidr.contains(':') || self.le <= 32",
    },
    {
      message: 'must not be less than ge',
      field: ['le'],
      holds: (r) => r.ge === undefined || r.le === undefined || r.le >= r.ge,
      cel: '!has(self.ge) || !has(self.le) || self.le >= self.ge',
    },
  ],
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

/** What a VRF is: an L3 VNI, its route targets, route leaking and filters, on the nodes it selects. */
export const VrfSpec = z
  .object({
    vni: z
      .number()
      .int()
      .min(1)
      .max(16_777_215)
      .describe('The L3 VNI (symmetric IRB); unique across VRFs and Layer2Networks.'),
    routeTarget: KubeRouteTarget.optional().describe('Import and export route target; default: ASN:VNI.'),
    importVrfs: z
      .array(VrfObjectName)
      .max(64)
      .refine((l) => new Set(l).size === l.length, 'each VRF may appear once')
      .meta({ 'x-kubernetes-list-type': 'set' })
      .optional()
      .describe('VRFs whose routes this one imports (route leaking), filtered by import.'),
    import: PrefixList.optional().describe('Which leaked routes this VRF accepts; empty or absent: all.'),
    export: PrefixList.optional().describe('Which routes this VRF advertises to EVPN; empty or absent: all.'),
    aggregates: z
      .array(NetworkCidr)
      .max(256)
      .refine((l) => new Set(l).size === l.length, 'each aggregate may appear once')
      .meta({ 'x-kubernetes-list-type': 'set' })
      .optional()
      .describe('Summary routes advertised instead of their more specific routes.'),
    redistribute: z
      .object({
        connected: z.boolean().optional().describe('Advertise connected routes of the VRF (default false).'),
        static: z.boolean().optional().describe('Advertise static routes of the VRF (default false).'),
      })
      .strict()
      .optional(),
    staticRoutes: z.array(VrfStaticRoute).max(256).optional(),
    nodeSelector: LabelSelector.optional().describe('The nodes that get this VRF; absent: every node.'),
  })
  .strict();
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
  shortNames: ['vrf'],
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
export function parseVrf(input: unknown): ParseResult<Vrf> {
  return parseWith(Vrf, (i) => `VRF ${objectNameOf(i)}`, input);
}
