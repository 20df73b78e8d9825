import { z } from 'zod';
import { Conditions, LabelSelector, ObjectName, objectMeta, objectNameOf } from '../kube/meta.js';
import { MacAddress, VlanId, Vni } from '../primitives.js';
import { withRules } from '../rules.js';
import { parseWith, type ParseOptions, type ParseResult } from '../validation.js';
import { API_VERSION, GROUP, VERSION, type ResourceKind } from './group.js';
import { VrfObjectName } from './vrf.js';
import { KubeInterfaceAddress, KubeRouteTarget } from './fields.js';

/** The MTU a Layer2Network gets when it names none. */
export const DEFAULT_LAYER2_MTU = 1500;

/** What a Layer2Network is: an L2 VNI bridged to a VLAN of the trunk, in a VRF, on the nodes it selects. */
export const Layer2NetworkSpec = withRules(
  z
    .object({
      vni: Vni.describe('The L2 VNI; unique across VRFs and Layer2Networks.'),
      vlan: VlanId.describe('The VLAN of the network on the trunk (tr.<vlan>) and on the OVS ports of Pods.'),
      mtu: z
        .number()
        .int()
        .min(1000)
        .max(9000)
        .default(DEFAULT_LAYER2_MTU)
        .describe('MTU of the bridge, the VXLAN device and tr.<vlan>.'),
      vrf: VrfObjectName.optional().describe("The VRF object the network joins; absent: the node's hbr VRF."),
      routeTarget: KubeRouteTarget.optional().describe('Import and export route target; default: ASN:VNI.'),
      anycastGateways: z
        .array(KubeInterfaceAddress)
        .max(16)
        .refine((l) => new Set(l).size === l.length, 'each gateway may appear once')
        .meta({ 'x-kubernetes-list-type': 'set' })
        .optional()
        .describe('Gateway addresses with prefix length (10.1.0.1/24) on the bridge of every node.'),
      anycastMac: MacAddress.meta({ maxLength: 17 })
        .optional()
        .describe('The MAC of the anycast gateways; default: the bridge MAC.'),
      neighSuppression: z
        .boolean()
        .default(true)
        .describe('ARP/ND suppression on the VXLAN device (answered from EVPN routes).'),
      advertiseNeighbors: z
        .boolean()
        .optional()
        .describe('Advertise the host routes of neighbours learnt on the bridge (default false).'),
      nodeSelector: LabelSelector.optional().describe('The nodes that get this network; absent: every node.'),
      namespaceSelector: LabelSelector.optional().describe(
        'The namespaces whose Pods may attach to this network (over Namespace labels; kubernetes.io/metadata.name picks by name); absent: every namespace.',
      ),
      allowTrunks: z
        .boolean()
        .optional()
        .describe(
          "Whether a Pod's trunk port may carry this network's VLAN (a NAD's trunk); default false: access ports only.",
        ),
    })
    .strict(),
  [
    {
      message: 'needs anycastGateways',
      field: ['anycastMac'],
      holds: (s) => s.anycastMac === undefined || (s.anycastGateways ?? []).length > 0,
      cel: '!has(self.anycastMac) || (has(self.anycastGateways) && size(self.anycastGateways) > 0)',
    },
  ],
);
export type Layer2NetworkSpec = z.infer<typeof Layer2NetworkSpec>;

/** A Layer2Network's own status. Per-node results are in NodeNetworkStatus; reserved for conditions. */
export const Layer2NetworkStatus = z.object({ conditions: Conditions.optional() }).strict();
export type Layer2NetworkStatus = z.infer<typeof Layer2NetworkStatus>;

/** A whole Layer2Network object as the API server stores it. */
export const Layer2Network = z.strictObject({
  apiVersion: z.literal(API_VERSION),
  kind: z.literal('Layer2Network'),
  metadata: objectMeta(ObjectName),
  spec: Layer2NetworkSpec,
  status: Layer2NetworkStatus.optional(),
});
export type Layer2Network = z.infer<typeof Layer2Network>;

export const LAYER2_NETWORK_RESOURCE: ResourceKind = {
  group: GROUP,
  version: VERSION,
  kind: 'Layer2Network',
  listKind: 'Layer2NetworkList',
  plural: 'layer2networks',
  singular: 'layer2network',
  shortNames: ['l2'],
  categories: ['fabrik'],
  scope: 'Cluster',
  schema: Layer2Network,
  statusSubresource: true,
  description: 'An L2 VNI bridged to a VLAN of the trunk, in a VRF, on the selected nodes.',
  printerColumns: [
    { name: 'VNI', type: 'integer', jsonPath: '.spec.vni' },
    { name: 'VLAN', type: 'integer', jsonPath: '.spec.vlan' },
    { name: 'VRF', type: 'string', jsonPath: '.spec.vrf' },
    { name: 'MTU', type: 'integer', jsonPath: '.spec.mtu' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** Validates a Layer2Network object and applies defaults; errors name the field (`spec.vlan`). */
export function parseLayer2Network(input: unknown, options?: ParseOptions): ParseResult<Layer2Network> {
  return parseWith(Layer2Network, (i) => `Layer2Network ${objectNameOf(i)}`, input, options);
}
