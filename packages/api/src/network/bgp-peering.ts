import { z } from 'zod';
import { AbsolutePath } from '../config/common.js';
import { Conditions, LabelSelector, ObjectName, objectMeta, objectNameOf } from '../kube/meta.js';
import { Asn } from '../primitives.js';
import { BfdTimers } from '../routing-intent/schema.js';
import { withRules } from '../rules.js';
import { parseWith, type ParseOptions, type ParseResult } from '../validation.js';
import { KubeIpAddress, NetworkCidr } from './fields.js';
import { KubeFilter } from './filter.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { ipFamily } from './ip.js';
import { AddressFamilies, VrfObjectName } from './vrf.js';

// BGP as a service (das-schiff's BGPPeering): a BGP session inside a VRF of the selected nodes,
// for workloads that announce their own routes (Calico, MetalLB, kube-vip). The password never
// sits in the object: it names a Secret in the agents' namespace (read by an agent with a
// Kubernetes source) or, in a node's own intent file only, a file (the API server refuses one).

/** The Secret key a BGPPeering's password is read from when the reference names none. */
export const DEFAULT_BGP_PASSWORD_KEY = 'password';

/** A Secret in the agents' namespace and the key of the password in it. */
export const SecretKeyReference = z
  .object({
    name: ObjectName.describe("The Secret's name, in the namespace the agents run in."),
    key: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[-._a-zA-Z0-9]+$/, 'must be a Secret key: A-Z a-z 0-9 - _ .')
      .default(DEFAULT_BGP_PASSWORD_KEY)
      .describe('The key in the Secret (default "password").'),
  })
  .strict();
export type SecretKeyReference = z.infer<typeof SecretKeyReference>;

/** What a BGPPeering is: one BGP session (or a listen range) in a VRF, on the nodes it selects. */
export const BgpPeeringSpec = withRules(
  z
    .object({
      vrf: VrfObjectName.describe('The VRF object whose BGP instance holds the session.'),
      address: KubeIpAddress.optional().describe("The peer's address (IPv4 or IPv6)."),
      listenRange: NetworkCidr.optional().describe(
        'Accept sessions from any address of this network (dynamic neighbors), instead of address.',
      ),
      remoteAs: Asn.describe("The peer's AS number (1-4294967295)."),
      passwordSecretRef: SecretKeyReference.optional().describe(
        'TCP-MD5 password of the session, from a Secret in the namespace the agents run in (read only by an agent watching the cluster).',
      ),
      passwordFile: AbsolutePath.optional().describe(
        "TCP-MD5 password of the session, from a file on the node: only in a node's own intent file (and agent-host's relay); refused by the API server (use passwordSecretRef).",
      ),
      maxPrefixes: z
        .number()
        .int()
        .min(1)
        .max(4_294_967_295)
        .optional()
        .describe('Drop the session when the peer sends more prefixes than this (per address family).'),
      holdTime: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .optional()
        .describe(
          'Seconds without a message before the session drops: 0 (never) or 3-65535; with keepaliveTime.',
        ),
      keepaliveTime: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .optional()
        .describe('Seconds between keepalives; with holdTime.'),
      bfd: BfdTimers.optional().describe(
        "BFD on the session: {} for bfdd's defaults, or its timers (minRx, minTx in ms, multiplier); absent: no BFD.",
      ),
      addressFamilies: AddressFamilies.optional().describe(
        'Address families of the session; default: the family of address or listenRange.',
      ),
      import: KubeFilter.optional().describe('Which routes of the peer the VRF accepts; absent: all.'),
      export: KubeFilter.optional().describe('Which routes of the VRF the peer gets; absent: all.'),
      nodeSelector: LabelSelector.optional().describe('The nodes that get this session; absent: every node.'),
    })
    .strict(),
  [
    {
      message: 'give exactly one of address or listenRange',
      field: ['address'],
      holds: (s) => (s.address === undefined) !== (s.listenRange === undefined),
      cel: 'has(self.address) != has(self.listenRange)',
    },
    {
      // The API server only: a cluster object may not make a root process read a file of the
      // node. A node's own intent file (and agent-host's relay, which writes the Secret's password
      // into a file for agent-netns) still names one, so the zod schema keeps the field.
      message:
        "removed from BGPPeerings in the cluster: give the password in a Secret of the agents' namespace (passwordSecretRef)",
      field: ['passwordFile'],
      cel: '!has(self.passwordFile)',
    },
    {
      message: 'give passwordSecretRef or passwordFile, not both',
      field: ['passwordFile'],
      // The API server refuses any passwordFile (above): this one is for intent files.
      holds: (s) => s.passwordSecretRef === undefined || s.passwordFile === undefined,
    },
    {
      message: 'give holdTime and keepaliveTime together',
      field: ['keepaliveTime'],
      holds: (s) => (s.holdTime === undefined) === (s.keepaliveTime === undefined),
      cel: 'has(self.holdTime) == has(self.keepaliveTime)',
    },
    {
      message: 'must be 0 (never) or at least 3',
      field: ['holdTime'],
      holds: (s) => s.holdTime === undefined || s.holdTime === 0 || s.holdTime >= 3,
      cel: '!has(self.holdTime) || self.holdTime == 0 || self.holdTime >= 3',
    },
    {
      message: 'must list the address family of address or listenRange',
      field: ['addressFamilies'],
      holds: (s) => {
        const target = s.address ?? s.listenRange;
        if (s.addressFamilies === undefined || target === undefined) return true;
        return s.addressFamilies.includes(ipFamily(target) === 6 ? 'ipv6' : 'ipv4');
      },
      cel:
        "!has(self.addressFamilies) || (has(self.address) ? ((self.address.contains(':') ? 'ipv6' : 'ipv4') in self.addressFamilies) : " +
        "!has(self.listenRange) || ((self.listenRange.contains(':') ? 'ipv6' : 'ipv4') in self.addressFamilies))",
    },
  ],
);
export type BgpPeeringSpec = z.infer<typeof BgpPeeringSpec>;

/** A BGPPeering's own status. Per-node results are in NodeNetworkStatus; this is reserved for conditions. */
export const BgpPeeringStatus = z.object({ conditions: Conditions.optional() }).strict();
export type BgpPeeringStatus = z.infer<typeof BgpPeeringStatus>;

/** A whole BGPPeering object as the API server stores it. */
export const BgpPeering = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('BGPPeering'),
  metadata: objectMeta(ObjectName),
  spec: BgpPeeringSpec,
  status: BgpPeeringStatus.optional(),
});
export type BgpPeering = z.infer<typeof BgpPeering>;

export const BGP_PEERING_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'BGPPeering',
  listKind: 'BGPPeeringList',
  plural: 'bgppeerings',
  singular: 'bgppeering',
  shortNames: ['bgpp'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: BgpPeering,
  statusSubresource: true,
  description:
    'A BGP session inside a VRF of the selected nodes (BGP as a service): peer address or listen range, remote AS, password from a Secret, limits, timers, BFD and filters.',
  printerColumns: [
    { name: 'VRF', type: 'string', jsonPath: '.spec.vrf' },
    { name: 'Peer', type: 'string', jsonPath: '.spec.address' },
    { name: 'Listen-Range', type: 'string', jsonPath: '.spec.listenRange' },
    { name: 'Remote-AS', type: 'integer', jsonPath: '.spec.remoteAs' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** Validates a BGPPeering object (parsed YAML/JSON) and applies defaults; errors name the field (`spec.address`). */
export function parseBgpPeering(input: unknown, options?: ParseOptions): ParseResult<BgpPeering> {
  return parseWith(BgpPeering, (i) => `BGPPeering ${objectNameOf(i)}`, input, options);
}
