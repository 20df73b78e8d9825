import { BGP_PEERING_RESOURCE } from './bgp-peering.js';
import type { ResourceKind } from './group.js';
import { IP_POOL_RESOURCE } from './ip-pool.js';
import { LAYER2_NETWORK_RESOURCE } from './layer2-network.js';
import { NETWORK_ATTACHMENT_DEFINITION_RESOURCE } from './network-attachment-definition.js';
import { NETWORK_ROLLOUT_RESOURCE } from './network-rollout.js';
import { NODE_NETWORK_CONFIG_RESOURCE } from './node-network-config.js';
import { NODE_NETWORK_STATUS_RESOURCE } from './node-network-status.js';
import { VRF_RESOURCE } from './vrf.js';

/** Every kind fabrik defines a CRD for, in the order deploy/crds lists them. */
export const RESOURCE_KINDS: readonly ResourceKind[] = [
  VRF_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  BGP_PEERING_RESOURCE,
  IP_POOL_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  NODE_NETWORK_CONFIG_RESOURCE,
  NETWORK_ROLLOUT_RESOURCE,
  NETWORK_ATTACHMENT_DEFINITION_RESOURCE,
];
