import { z } from 'zod';
import { InterfaceName, VlanId } from '../primitives.js';
import { LabelSelector, ObjectName, objectMeta, objectNameOf } from '../kube/meta.js';
import { withRules } from '../rules.js';
import { parseWith, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { KubeIpAddress, NetworkCidr } from './fields.js';
import { ipFamily, ipToBigInt, maxPrefixLength, networkContains, prefixLength } from './ip.js';

// Antrea's IPPool (crd.antrea.io/v1beta1) field for field, so its users feel at home.

/** Addresses to allocate from: a CIDR, or an inclusive start-end range. */
/**
 * CEL: the subnet `<gateway>/<prefixLength>` as a `cidr`. kube-apiserver estimates a rule's cost
 * before it loads the CRD, and `string(int)` has no size bound in that estimate, so `gateway + '/' +
 * string(prefixLength)` makes `cidr()` cost more than any budget: the suffix is looked up in a
 * literal list of the 129 possible ones instead.
 */
const celSubnet = (gateway: string, length: string): string =>
  `cidr(${gateway} + [${Array.from({ length: 129 }, (_, i) => `'/${i}'`).join(',')}][${length}])`;

export const IpRange = withRules(
  z
    .object({
      cidr: NetworkCidr.optional().describe(
        'Every address of this network (without its network and broadcast address).',
      ),
      start: KubeIpAddress.optional().describe('First address of the range.'),
      end: KubeIpAddress.optional().describe('Last address of the range (inclusive).'),
    })
    .strict(),
  [
    {
      message: 'give either cidr or both start and end',
      holds: (r) =>
        r.cidr !== undefined
          ? r.start === undefined && r.end === undefined
          : r.start !== undefined && r.end !== undefined,
      cel: 'has(self.cidr) ? !has(self.start) && !has(self.end) : has(self.start) && has(self.end)',
    },
    {
      message: 'must be of the same address family as start',
      field: ['end'],
      holds: (r) => r.start === undefined || r.end === undefined || ipFamily(r.start) === ipFamily(r.end),
      cel: "!has(self.start) || !has(self.end) || self.start.contains(':') == self.end.contains(':')",
    },
    {
      // CEL has no ordering of addresses: the API server does not check this one (see docs/api.md).
      message: 'must not be before start',
      field: ['end'],
      holds: (r) =>
        r.start === undefined ||
        r.end === undefined ||
        ipFamily(r.start) !== ipFamily(r.end) ||
        ipToBigInt(r.start) <= ipToBigInt(r.end),
    },
  ],
);
export type IpRange = z.infer<typeof IpRange>;

/** The subnet the addresses live in: what a Pod's interface is configured with. */
export const SubnetInfo = withRules(
  z
    .object({
      gateway: KubeIpAddress.describe('The default gateway of the subnet; never allocated.'),
      prefixLength: z.number().int().min(1).max(128).describe('The prefix length of the subnet.'),
      vlan: VlanId.optional().describe('The VLAN of the subnet, used by fabrik-ovs when the NAD sets none.'),
    })
    .strict(),
  [
    {
      message: 'must be at most 32 for an IPv4 gateway',
      field: ['prefixLength'],
      holds: (s) => s.prefixLength <= maxPrefixLength(s.gateway),
      cel: "self.gateway.contains(':') || self.prefixLength <= 32",
    },
    {
      message: 'must not be the network address of the subnet',
      field: ['gateway'],
      holds: (s) =>
        // A /32 (/128) subnet is the gateway alone.
        s.prefixLength >= maxPrefixLength(s.gateway) ||
        ipToBigInt(s.gateway) % (1n << BigInt(maxPrefixLength(s.gateway) - s.prefixLength)) !== 0n,
      cel: [
        "self.prefixLength >= (self.gateway.contains(':') ? 128 : 32) ||",
        // `!(a == b)`: kube-apiserver's cost estimate of `!=` on IP addresses has no bound.
        `!(${celSubnet('self.gateway', 'self.prefixLength')}.masked().ip() == ip(self.gateway))`,
      ].join(' '),
    },
    {
      // A transition rule: only the API server sees the old object.
      message: 'is immutable (addresses are allocated from it)',
      cel: 'self == oldSelf',
    },
  ],
);
export type SubnetInfo = z.infer<typeof SubnetInfo>;

const SUBNET = celSubnet('self.subnetInfo.gateway', 'self.subnetInfo.prefixLength');

/** An IP pool: ranges of one address family inside one subnet. */
export const IpPoolSpec = withRules(
  z
    .object({
      ipRanges: z.array(IpRange).min(1).max(64).describe('Where addresses come from (one address family).'),
      subnetInfo: SubnetInfo,
      namespaceSelector: LabelSelector.optional().describe(
        'The namespaces whose Pods may take addresses from this pool (over Namespace labels; kubernetes.io/metadata.name picks by name); absent: every namespace.',
      ),
    })
    .strict(),
  [
    {
      message: 'every range must lie inside the subnet of subnetInfo (gateway/prefixLength)',
      field: ['ipRanges'],
      holds: (s) => {
        const { gateway, prefixLength: length } = s.subnetInfo;
        // A prefix length too long for the family is reported on its own field.
        if (length > maxPrefixLength(gateway)) return true;
        const inSubnet = (a: string) => networkContains(gateway, length, a);
        return s.ipRanges.every((r) => {
          if (r.cidr !== undefined)
            return inSubnet(r.cidr.split('/')[0] ?? '') && prefixLength(r.cidr) >= length;
          if (r.start === undefined || r.end === undefined) return true;
          return ipFamily(r.start) !== ipFamily(r.end) || (inSubnet(r.start) && inSubnet(r.end));
        });
      },
      cel: [
        "(self.subnetInfo.gateway.contains(':') ? 128 : 32) < self.subnetInfo.prefixLength ||",
        'self.ipRanges.all(r, has(r.cidr)',
        `? ${SUBNET}.masked().containsCIDR(r.cidr)`,
        ": !has(r.start) || !has(r.end) || r.start.contains(':') != r.end.contains(':')",
        `|| (${SUBNET}.masked().containsIP(r.start)`,
        `&& ${SUBNET}.masked().containsIP(r.end)))`,
      ].join(' '),
    },
    {
      // CEL has no ordering of addresses: the API server does not check this one (see docs/api.md).
      message: 'ranges must not overlap (an address would be counted twice)',
      field: ['ipRanges'],
      holds: (s) => {
        const spans = s.ipRanges
          .flatMap(addressSpan)
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        return spans.every((span, i) => i === 0 || (spans[i - 1] as [bigint, bigint])[1] < span[0]);
      },
    },
  ],
);
export type IpPoolSpec = z.infer<typeof IpPoolSpec>;

/** First and last address of a range as numbers (with the family in the top bits), or none if invalid. */
function addressSpan(r: IpRange): [bigint, bigint][] {
  // The family in bit 128 keeps IPv4 and IPv6 spans apart.
  const tagged = (a: string) => ipToBigInt(a) | (ipFamily(a) === 6 ? 1n << 128n : 0n);
  if (r.cidr !== undefined) {
    const [address = ''] = r.cidr.split('/');
    const host = BigInt(maxPrefixLength(address) - prefixLength(r.cidr));
    const first = (tagged(address) >> host) << host;
    return [[first, first + (1n << host) - 1n]];
  }
  if (r.start === undefined || r.end === undefined) return [];
  return [[tagged(r.start), tagged(r.end)]];
}

/** The Pod an address is allocated to (CNI_ARGS K8S_POD_NAME / K8S_POD_NAMESPACE, CNI_CONTAINERID, CNI_IFNAME). */
export const PodOwner = z
  .object({
    name: z.string().min(1).max(253),
    namespace: z.string().min(1).max(63),
    containerID: z.string().min(1).max(256),
    ifName: InterfaceName,
    network: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe(
        'The CNI network (the network config name) the address was allocated for: garbage collection of a network releases only its own addresses from a pool that several networks share.',
      ),
  })
  .strict();
export type PodOwner = z.infer<typeof PodOwner>;

/** One address of the pool in use. */
export const IpAddressState = z
  .object({
    ipAddress: KubeIpAddress,
    phase: z.enum(['Allocated', 'Reserved']),
    owner: z.object({ pod: PodOwner.optional() }).strict(),
  })
  .strict();
export type IpAddressState = z.infer<typeof IpAddressState>;

/** Written by fabrik-ipam only, with the object's resourceVersion (409 on a concurrent write). */
export const IpPoolStatus = z
  .object({
    ipAddresses: z
      .array(IpAddressState)
      .refine((l) => new Set(l.map((a) => a.ipAddress)).size === l.length, 'each ipAddress may appear once')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['ipAddress'] })
      .optional(),
    usage: z
      .object({
        total: z.number().int().min(0).describe('Addresses the pool can allocate.'),
        used: z.number().int().min(0).describe('Addresses allocated or reserved.'),
      })
      .strict()
      .optional(),
  })
  .strict();
export type IpPoolStatus = z.infer<typeof IpPoolStatus>;

/** A whole IPPool object as the API server stores it. */
export const IpPool = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('IPPool'),
  metadata: objectMeta(ObjectName),
  spec: IpPoolSpec,
  status: IpPoolStatus.optional(),
});
export type IpPool = z.infer<typeof IpPool>;

export const IP_POOL_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'IPPool',
  listKind: 'IPPoolList',
  plural: 'ippools',
  singular: 'ippool',
  shortNames: ['fipp'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: IpPool,
  statusSubresource: true,
  description: 'Addresses for Pod secondary interfaces, allocated cluster-wide by fabrik-ipam.',
  printerColumns: [
    { name: 'Gateway', type: 'string', jsonPath: '.spec.subnetInfo.gateway' },
    { name: 'VLAN', type: 'integer', jsonPath: '.spec.subnetInfo.vlan' },
    { name: 'Total', type: 'integer', jsonPath: '.status.usage.total' },
    { name: 'Used', type: 'integer', jsonPath: '.status.usage.used' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** Validates an IPPool object and applies defaults; errors name the field (`spec.ipRanges[0].cidr`). */
export function parseIpPool(input: unknown): ParseResult<IpPool> {
  return parseWith(IpPool, (i) => `IPPool ${objectNameOf(i)}`, input);
}
