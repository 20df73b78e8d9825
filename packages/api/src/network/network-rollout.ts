import { z } from 'zod';
import { ObjectName, Timestamp, objectMeta } from '../kube/meta.js';
import { GROUP, VERSION, API_VERSION, type ResourceKind } from './group.js';
import { ObjectError } from './node-network-status.js';

// The rollout of the nodes' revisions (docs/operator.md, "Rollouts"): one cluster-scoped object,
// named NETWORK_ROLLOUT_NAME, whose status fabrik-operator writes (progress, failures) and whose
// spec an administrator edits (pause). Failures live here, so a revision that failed is not moved
// to again after an operator restart.

/** The name of the one NetworkRollout. */
export const NETWORK_ROLLOUT_NAME = 'fabrik';

/** Set on the NetworkRollout to a new value: the recorded failures are cleared and the rollout retried. */
export const ROLLOUT_RETRY_ANNOTATION = 'network.fabrik.dev/retry';

export const ROLLOUT_PHASES = ['Progressing', 'Complete', 'Failed', 'Paused'] as const;

/** A node's revision that failed: not moved to again until the node renders another revision or a retry. */
export const RolloutFailure = z
  .object({
    node: ObjectName,
    revision: z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits'),
    why: z.string().max(1024),
    objects: z.array(ObjectError).max(1024).optional().describe('The objects its agents reported failing.'),
    time: Timestamp,
  })
  .strict();
export type RolloutFailure = z.infer<typeof RolloutFailure>;

export const NetworkRolloutSpec = z
  .object({
    paused: z.boolean().optional().describe('No node is moved while true (a rollback still happens).'),
  })
  .strict();
export type NetworkRolloutSpec = z.infer<typeof NetworkRolloutSpec>;

export const NetworkRolloutStatus = z
  .object({
    phase: z.enum(ROLLOUT_PHASES),
    ready: z.number().int().min(0).describe('Nodes whose agents all report their rendered revision.'),
    updating: z.number().int().min(0).describe('Nodes moved and not yet updated.'),
    failed: z.number().int().min(0).describe('Nodes whose rendered revision failed.'),
    total: z.number().int().min(0),
    failures: z
      .array(RolloutFailure)
      .max(4096)
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['node'] })
      .optional(),
    retried: z.string().max(253).optional().describe(`The ${ROLLOUT_RETRY_ANNOTATION} value last acted on.`),
  })
  .strict();
export type NetworkRolloutStatus = z.infer<typeof NetworkRolloutStatus>;

export const NetworkRollout = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('NetworkRollout'),
  metadata: objectMeta(ObjectName),
  spec: NetworkRolloutSpec.optional(),
  status: NetworkRolloutStatus.optional(),
});
export type NetworkRollout = z.infer<typeof NetworkRollout>;

export const NETWORK_ROLLOUT_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'NetworkRollout',
  listKind: 'NetworkRolloutList',
  plural: 'networkrollouts',
  singular: 'networkrollout',
  shortNames: ['fnro'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: NetworkRollout,
  statusSubresource: true,
  description: "The progress of the nodes' revisions, written by fabrik-operator; spec.paused stops it.",
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.ready' },
    { name: 'Updating', type: 'integer', jsonPath: '.status.updating' },
    { name: 'Failed', type: 'integer', jsonPath: '.status.failed' },
    { name: 'Total', type: 'integer', jsonPath: '.status.total' },
    { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused', priority: 1 },
  ],
};
