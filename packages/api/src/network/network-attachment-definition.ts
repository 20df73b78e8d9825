import { z } from 'zod';
import { ObjectName, objectMeta, objectNameOf } from '../kube/meta.js';
import { withRules } from '../rules.js';
import { parseWith, type ParseResult } from '../validation.js';
import type { ResourceKind } from './group.js';

// The NetworkAttachmentDefinition of the Kubernetes Network Plumbing WG (Multus): not fabrik's
// kind, but the lab and the tests create them, so its CRD is generated here too.

export const NAD_GROUP = 'k8s.cni.cncf.io';
export const NAD_VERSION = 'v1';

/** True when `text` is a JSON object with `cniVersion` and either `type` or `plugins`. */
function isCniConfig(text: string): boolean {
  let conf: unknown;
  try {
    conf = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof conf !== 'object' || conf === null || Array.isArray(conf)) return false;
  const c = conf as Record<string, unknown>;
  return typeof c.cniVersion === 'string' && (typeof c.type === 'string' || Array.isArray(c.plugins));
}

export const NetworkAttachmentDefinitionSpec = withRules(
  z
    .object({
      config: z
        .string()
        .max(1_048_576)
        .optional()
        .describe('The CNI configuration (JSON) of the attachment.'),
    })
    .strict(),
  [
    {
      message: 'must be a JSON CNI configuration with cniVersion and type (or plugins)',
      field: ['config'],
      holds: (s) => s.config === undefined || isCniConfig(s.config),
    },
  ],
);
export type NetworkAttachmentDefinitionSpec = z.infer<typeof NetworkAttachmentDefinitionSpec>;

export const NetworkAttachmentDefinition = z.strictObject({
  apiVersion: z.literal(`${NAD_GROUP}/${NAD_VERSION}`),
  kind: z.literal('NetworkAttachmentDefinition'),
  metadata: objectMeta(ObjectName),
  spec: NetworkAttachmentDefinitionSpec,
});
export type NetworkAttachmentDefinition = z.infer<typeof NetworkAttachmentDefinition>;

export const NETWORK_ATTACHMENT_DEFINITION_RESOURCE: ResourceKind = {
  group: NAD_GROUP,
  version: NAD_VERSION,
  kind: 'NetworkAttachmentDefinition',
  listKind: 'NetworkAttachmentDefinitionList',
  plural: 'network-attachment-definitions',
  singular: 'network-attachment-definition',
  shortNames: ['net-attach-def'],
  categories: [],
  scope: 'Namespaced',
  schema: NetworkAttachmentDefinition,
  statusSubresource: false,
  description: 'A secondary network attachment: the CNI configuration Multus runs for Pods that ask for it.',
  printerColumns: [],
};

/** Validates a NetworkAttachmentDefinition (its config must be a JSON CNI configuration). */
export function parseNetworkAttachmentDefinition(input: unknown): ParseResult<NetworkAttachmentDefinition> {
  return parseWith(
    NetworkAttachmentDefinition,
    (i) => `NetworkAttachmentDefinition ${objectNameOf(i)}`,
    input,
  );
}
