import { z } from 'zod';
import { Conditions, ObjectName, Timestamp, objectMeta, objectNameOf } from '../kube/meta.js';
import { InterfaceName, VlanId } from '../primitives.js';
import { BgpAsn } from '../routing-intent/schema.js';
import { parseWith, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { CONFIG_STATUSES, ObjectError } from './node-network-status.js';

// The per-node configuration (docs/architecture.md, "Per-node configuration"): one cluster-scoped
// object per Node, with the Node's name. fabrik-operator writes its spec (server-side apply, field
// manager fabrik-operator): the node's identity and everything its agents apply, already selected
// for the node. The node's agents write its status, one section each.

/**
 * Annotations of a Node that fix its identity instead of the operator's pools: an IPv4 address
 * (router ID, VTEP address) or an AS number in decimal.
 */
export const NODE_IDENTITY_ANNOTATIONS = {
  routerId: 'network.fabrik.dev/router-id',
  vtepIp: 'network.fabrik.dev/vtep-ip',
  asn: 'network.fabrik.dev/asn',
} as const;

/** Who a node is in the fabric: its BGP AS number, router ID and VTEP address. */
export const NodeIdentity = z
  .object({
    asn: BgpAsn.describe("The node's BGP AS number."),
    routerId: z.ipv4().describe("The node's BGP router ID."),
    vtepIp: z.ipv4().describe('The source address of VXLAN packets of the node (the VTEP).'),
  })
  .strict();
export type NodeIdentity = z.infer<typeof NodeIdentity>;

/** The MTU of a link of the node's underlay wiring (Ethernet, up to jumbo frames). */
const LinkMtu = z.number().int().min(1280).max(9216);

/** How the node reaches the HBR and the fabric; each field absent: the node's own setting. */
export const NodeUnderlay = z
  .object({
    trunkMtu: LinkMtu.optional().describe(
      'MTU of the trunk veth (tr): the largest Layer2Network MTU it carries.',
    ),
    hbnMtu: LinkMtu.optional().describe("MTU of the hbn veth between the node and the HBR's hbr VRF."),
  })
  .strict();
export type NodeUnderlay = z.infer<typeof NodeUnderlay>;

/**
 * A VRF, Layer2Network or BGPPeering selected for the node, as its agents consume it: the object's
 * name, generation and age (conflicts between objects are decided by age) and its spec as the API
 * server holds it, without nodeSelector (the selection is made). The spec is kept as it is here:
 * each agent validates each object on its own, so one object an agent refuses is that object's
 * failure only (a newer field is reported, never a reason to refuse the whole node).
 */
export const RenderedObject = z
  .object({
    name: ObjectName,
    generation: z.number().int().min(0).optional(),
    creationTimestamp: Timestamp.optional(),
    spec: z.record(z.string(), z.unknown()).describe("The object's spec, without nodeSelector."),
  })
  .strict();
export type RenderedObject = z.infer<typeof RenderedObject>;

/** The VLAN of an IPPool's subnet, which fabrik-ovs gives Pods whose NAD names none. */
export const IpPoolVlan = z.object({ ipPool: ObjectName, vlan: VlanId }).strict();
export type IpPoolVlan = z.infer<typeof IpPoolVlan>;

/**
 * An OVS bridge of secondary networks with its NIC uplinks: agent-host's `ovsBridges` entry in the
 * one shape a CRD can hold (VLANs as strings `"100"` or `"100-199"`).
 */
export const HostBridge = z
  .object({
    bridgeName: InterfaceName,
    physicalInterfaces: z
      .array(
        z
          .object({
            name: InterfaceName,
            allowedVLANs: z
              .array(
                z
                  .string()
                  .max(9)
                  .regex(/^[0-9]{1,4}(-[0-9]{1,4})?$/, 'must be a VLAN id or a range "low-high"'),
              )
              .max(4094)
              .optional(),
            carryLayer2Networks: z.boolean().optional(),
          })
          .strict(),
      )
      .max(8)
      .optional(),
    enableMulticastSnooping: z.boolean().optional(),
  })
  .strict();
export type HostBridge = z.infer<typeof HostBridge>;

/** A list of rendered objects, one per name. */
const renderedList = (kind: string) =>
  z
    .array(RenderedObject)
    .max(4096)
    .refine((l) => new Set(l.map((o) => o.name)).size === l.length, `each ${kind} may appear once`)
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });

/** Everything the node's agents need, as the operator renders it for the node. */
export const NodeNetworkConfigSpec = z
  .object({
    identity: NodeIdentity.optional().describe(
      'Absent: none could be allocated (status.conditions says why); the agents keep what they run.',
    ),
    underlay: NodeUnderlay.optional(),
    vrfs: renderedList('VRF').optional(),
    layer2Networks: renderedList('Layer2Network').optional(),
    bgpPeerings: renderedList('BGPPeering').optional(),
    ipPoolVlans: z
      .array(IpPoolVlan)
      .max(4096)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['ipPool'] })
      .optional(),
    hostBridges: z
      .array(HostBridge)
      .max(16)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['bridgeName'] })
      .optional()
      .describe('OVS bridges of secondary networks with their NIC uplinks (agent-host).'),
    revision: z
      .string()
      .regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits')
      .describe('A hash of everything else in this spec: what the agents report as applied.'),
  })
  .strict();
export type NodeNetworkConfigSpec = z.infer<typeof NodeNetworkConfigSpec>;

/** One agent's report on the node's configuration. */
export const NodeNetworkConfigAgentStatus = z
  .object({
    appliedRevision: z.string().max(64).optional().describe('The spec.revision the agent last applied.'),
    configStatus: z.enum(CONFIG_STATUSES).optional(),
    heartbeat: Timestamp.describe(
      'When the agent last wrote this section (at least every heartbeat period).',
    ),
    objectErrors: z.array(ObjectError).max(1024).optional(),
  })
  .strict();
export type NodeNetworkConfigAgentStatus = z.infer<typeof NodeNetworkConfigAgentStatus>;

/** Agents' sections (each written by its agent only) and the operator's conditions. */
export const NodeNetworkConfigStatus = z
  .object({
    host: NodeNetworkConfigAgentStatus.optional().describe('Written by agent-host.'),
    netns: NodeNetworkConfigAgentStatus.optional().describe(
      'Written by agent-netns (relayed by agent-host).',
    ),
    conditions: Conditions.optional().describe('Written by fabrik-operator (IdentityAllocated).'),
  })
  .strict();
export type NodeNetworkConfigStatus = z.infer<typeof NodeNetworkConfigStatus>;

/** A whole NodeNetworkConfig: one per Node, with the Node's name. */
export const NodeNetworkConfig = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('NodeNetworkConfig'),
  metadata: objectMeta(ObjectName),
  spec: NodeNetworkConfigSpec,
  status: NodeNetworkConfigStatus.optional(),
});
export type NodeNetworkConfig = z.infer<typeof NodeNetworkConfig>;

export const NODE_NETWORK_CONFIG_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'NodeNetworkConfig',
  listKind: 'NodeNetworkConfigList',
  plural: 'nodenetworkconfigs',
  singular: 'nodenetworkconfig',
  shortNames: ['fnnc'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: NodeNetworkConfig,
  statusSubresource: true,
  description: "What one node's agents apply, rendered by fabrik-operator (the object has the Node's name).",
  printerColumns: [
    { name: 'ASN', type: 'integer', jsonPath: '.spec.identity.asn' },
    { name: 'Router-ID', type: 'string', jsonPath: '.spec.identity.routerId' },
    { name: 'VTEP', type: 'string', jsonPath: '.spec.identity.vtepIp' },
    { name: 'Revision', type: 'string', jsonPath: '.spec.revision' },
    { name: 'Host-Applied', type: 'string', jsonPath: '.status.host.appliedRevision', priority: 1 },
    { name: 'Netns-Applied', type: 'string', jsonPath: '.status.netns.appliedRevision', priority: 1 },
  ],
};

/** Validates a NodeNetworkConfig object; errors name the field (`spec.identity.routerId`). */
export function parseNodeNetworkConfig(input: unknown): ParseResult<NodeNetworkConfig> {
  return parseWith(NodeNetworkConfig, (i) => `NodeNetworkConfig ${objectNameOf(i)}`, input);
}
