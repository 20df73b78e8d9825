import { z } from 'zod';
import { InterfaceName } from './primitives.js';

/** Where the host agent reads its configuration, and where cni-ovs looks for the default bridge. */
export const AGENT_HOST_CONFIG_PATH = '/etc/fabrik/agent-host.yaml';

/** An OVS bridge for secondary networks and the host NICs that are its uplinks. */
export const OvsBridgeConfig = z.object({
  bridgeName: InterfaceName,
  physicalInterfaces: z.array(InterfaceName).default([]),
});
export type OvsBridgeConfig = z.infer<typeof OvsBridgeConfig>;

/** Secondary networks of Pods: OVS bridges the host agent creates; the first is the CNI default. */
export const SecondaryNetworkConfig = z.object({
  ovsBridges: z.array(OvsBridgeConfig).default([]),
});
export type SecondaryNetworkConfig = z.infer<typeof SecondaryNetworkConfig>;

/**
 * The host agent's configuration file (YAML). Sections other than `secondaryNetwork` belong to
 * the host agent and are kept as they are, so readers of one section do not reject the others.
 */
export const AgentHostConfig = z.looseObject({
  secondaryNetwork: SecondaryNetworkConfig.optional(),
});
export type AgentHostConfig = z.infer<typeof AgentHostConfig>;
