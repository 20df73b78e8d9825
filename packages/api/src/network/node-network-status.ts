import { z } from 'zod';
import { Conditions, ObjectName, Timestamp, boundedRecord, objectMeta, objectNameOf } from '../kube/meta.js';
import { parseWith, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';

/**
 * Where a node's configuration stands, per agent:
 * - `provisioning`: an apply is under way (or the agent has not applied anything yet);
 * - `provisioned`: the desired state is applied and converged;
 * - `invalid`: the last apply failed and the last good configuration was restored (errorMessage);
 * - `degraded`: applied, but some objects were skipped (objectErrors) or a backend is not converged.
 */
export const CONFIG_STATUSES = ['provisioning', 'provisioned', 'invalid', 'degraded'] as const;
export type ConfigStatus = (typeof CONFIG_STATUSES)[number];

/** The sections of NodeNetworkStatus's status: one per agent, each written only by its agent. */
export const NODE_NETWORK_STATUS_SECTIONS = ['netns', 'host'] as const;
export type NodeNetworkStatusSectionName = (typeof NODE_NETWORK_STATUS_SECTIONS)[number];

/** An object the agent did not apply as it is (or applied without a field), and why; names the field when one is at fault. */
export const ObjectError = z
  .object({
    kind: z.enum(['VRF', 'Layer2Network', 'BGPPeering']),
    name: z.string().min(1).max(253),
    field: z.string().max(256).optional().describe('The offending field (spec.vni).'),
    message: z.string().max(4096),
  })
  .strict();
export type ObjectError = z.infer<typeof ObjectError>;

/** `generation` of each applied object, by object name. */
const Generations = boundedRecord(ObjectName, z.number().int().min(0), 4096);

/** One agent's report about its node. */
export const NodeNetworkStatusSection = z
  .object({
    configStatus: z.enum(CONFIG_STATUSES),
    appliedGenerations: z
      .object({
        vrfs: Generations.optional(),
        layer2Networks: Generations.optional(),
        bgpPeerings: Generations.optional(),
      })
      .strict()
      .optional()
      .describe(
        'The generation of each VRF, Layer2Network and BGPPeering whose spec is applied on this node.',
      ),
    errorMessage: z
      .string()
      .max(32768)
      .optional()
      .describe('Why the last apply failed, naming object and field.'),
    objectErrors: z
      .array(ObjectError)
      .max(1024)
      .optional()
      .describe(
        'Objects not applied as they are: invalid, conflicting or refused by the node (each keeps its last applied state, if any).',
      ),
    objectWarnings: z
      .array(ObjectError)
      .max(1024)
      .optional()
      .describe('Objects applied with fields this agent does not know (ignored: a newer API version).'),
    frr: z
      .object({
        bgpSessionsUp: z.number().int().min(0),
        bgpSessionsTotal: z.number().int().min(0),
        vnis: z.number().int().min(0).describe('VNIs zebra knows (L2 and L3).'),
      })
      .strict()
      .optional()
      .describe('Summary of FRR (agent-netns only).'),
    ownedObjects: boundedRecord(
      z
        .string()
        .max(63)
        .regex(/^[a-z][A-Za-z0-9]*$/, 'must be a camelCase kind'),
      z.number().int().min(0),
      64,
    )
      .optional()
      .describe(
        'Objects the agent created and owns, counted by kind (vrf, bridge, vxlan, vlan, ovsBridge, ovsPort).',
      ),
    lastUpdate: Timestamp.describe('When the agent last wrote this section.'),
    conditions: Conditions.optional(),
  })
  .strict();
export type NodeNetworkStatusSection = z.infer<typeof NodeNetworkStatusSection>;

/** One section per agent: a patch of one never carries the other. */
export const NodeNetworkStatusStatus = z
  .object({
    netns: NodeNetworkStatusSection.optional().describe('Written by agent-netns (relayed by agent-host).'),
    host: NodeNetworkStatusSection.optional().describe('Written by agent-host.'),
  })
  .strict();
export type NodeNetworkStatusStatus = z.infer<typeof NodeNetworkStatusStatus>;

/** A whole NodeNetworkStatus object: one per Node, with the Node's name, no spec. */
export const NodeNetworkStatus = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('NodeNetworkStatus'),
  metadata: objectMeta(ObjectName),
  status: NodeNetworkStatusStatus.optional(),
});
export type NodeNetworkStatus = z.infer<typeof NodeNetworkStatus>;

export const NODE_NETWORK_STATUS_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'NodeNetworkStatus',
  listKind: 'NodeNetworkStatusList',
  plural: 'nodenetworkstatuses',
  singular: 'nodenetworkstatus',
  shortNames: ['fnns'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: NodeNetworkStatus,
  statusSubresource: true,
  description: "What fabrik's agents applied on one node (the object has the Node's name).",
  printerColumns: [
    { name: 'Netns', type: 'string', jsonPath: '.status.netns.configStatus' },
    { name: 'Host', type: 'string', jsonPath: '.status.host.configStatus' },
    { name: 'Netns-Updated', type: 'date', jsonPath: '.status.netns.lastUpdate' },
    { name: 'Host-Updated', type: 'date', jsonPath: '.status.host.lastUpdate' },
    { name: 'Error', type: 'string', jsonPath: '.status.netns.errorMessage', priority: 1 },
  ],
};

/** Validates a NodeNetworkStatus object; errors name the field (`status.netns.configStatus`). */
export function parseNodeNetworkStatus(input: unknown): ParseResult<NodeNetworkStatus> {
  return parseWith(NodeNetworkStatus, (i) => `NodeNetworkStatus ${objectNameOf(i)}`, input);
}

/** Validates one section (agent-netns's status file has this shape); errors name the field. */
export function parseNodeNetworkStatusSection(input: unknown): ParseResult<NodeNetworkStatusSection> {
  return parseWith(NodeNetworkStatusSection, () => 'NodeNetworkStatus section', input);
}
