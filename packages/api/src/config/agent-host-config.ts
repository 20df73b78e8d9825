import { z } from 'zod';
import { InterfaceName, VlanId } from '../primitives.js';
import { parseWith, type ParseResult } from '../validation.js';
import {
  AbsolutePath,
  IntentSource,
  ListenAddress,
  agentCommonFields,
  listenAddressesClash,
} from './common.js';

/** Where the host agent reads its configuration, and where cni-ovs looks for the default bridge. */
export const AGENT_HOST_CONFIG_PATH = '/etc/fabrik/agent-host.yaml';

/** A VLAN id, or an inclusive range `"100-199"`. */
export const VlanIdOrRange = z.union([
  VlanId,
  z
    .string()
    .regex(/^[0-9]{1,4}-[0-9]{1,4}$/, 'must be a VLAN id or a range "low-high"')
    .refine((r) => {
      const [low = 0, high = 0] = r.split('-').map(Number);
      return low >= 1 && high <= 4094 && low <= high;
    }, 'must be a range of VLAN ids 1-4094, low before high'),
]);

/** A host NIC that becomes an uplink of a bridge: its name, or its name and the VLANs it may carry. */
export const PhysicalInterface = z.union([
  InterfaceName,
  z
    .object({
      name: InterfaceName,
      /** The VLANs the uplink trunks (OVS `trunks`); absent: every VLAN. */
      allowedVLANs: z.array(VlanIdOrRange).min(1).max(4094).optional(),
      /**
       * On the bridge that carries the trunk: the uplink may carry the VLANs of Layer2Networks too,
       * joining each EVPN network to the physical VLAN of the same id. Only for a physical segment
       * that reaches one node this way: two such nodes on one segment make a loop. Default false:
       * a Layer2Network whose VLAN the uplink carries is refused on the node.
       */
      carryLayer2Networks: z.boolean().default(false),
    })
    .strict(),
]);
export type PhysicalInterface = z.infer<typeof PhysicalInterface>;

/** The name of a physical interface entry, whichever form it has. */
export function physicalInterfaceName(entry: PhysicalInterface): string {
  return typeof entry === 'string' ? entry : entry.name;
}

/** The VLAN ids and ranges an uplink may carry; undefined: every VLAN. */
export function physicalInterfaceVlans(entry: PhysicalInterface): readonly (number | string)[] | undefined {
  return typeof entry === 'string' ? undefined : entry.allowedVLANs;
}

/** The uplink was explicitly allowed to carry Layer2Networks' VLANs on the trunk's bridge. */
export const carriesLayer2Networks = (entry: PhysicalInterface): boolean =>
  typeof entry !== 'string' && entry.carryLayer2Networks;

/** An OVS bridge for secondary networks and the host NICs that are its uplinks (Antrea's fields). */
export const OvsBridgeConfig = z
  .object({
    bridgeName: InterfaceName,
    physicalInterfaces: z.array(PhysicalInterface).max(8).default([]),
    enableMulticastSnooping: z.boolean().default(false),
  })
  .strict();
export type OvsBridgeConfig = z.infer<typeof OvsBridgeConfig>;

/** Secondary networks of Pods: OVS bridges the host agent creates; the first is the CNI default. */
export const SecondaryNetworkConfig = z
  .object({
    ovsBridges: z.array(OvsBridgeConfig).default([]),
  })
  .strict();
export type SecondaryNetworkConfig = z.infer<typeof SecondaryNetworkConfig>;

/** An OVSDB server address: `unix:/path` or `tcp:host:port` (port 1-65535). */
export const OvsdbAddress = z
  .string()
  .regex(/^(unix:\/[^\0]+|tcp:[A-Za-z0-9.:[\]-]+:[0-9]{1,5})$/, 'must be unix:/path or tcp:host:port')
  .refine((a) => {
    if (!a.startsWith('tcp:')) return true;
    const port = Number(a.slice(a.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65_535;
  }, 'the port must be 1-65535');

/** The OVSDB endpoint of a standard Open vSwitch installation. */
export const DEFAULT_OVSDB_SOCKET = 'unix:/var/run/openvswitch/db.sock';

/** The host end of the trunk veth to the HBR container, where host-side `tr.<vid>` live. */
export const TrunkConfig = z
  .object({
    hostInterface: InterfaceName,
    /** `kernel`: tr.<vid> are VLAN links on hostInterface; `ovs`: hostInterface is an uplink of `bridge`. */
    attach: z.enum(['kernel', 'ovs']).default('kernel'),
    bridge: InterfaceName.optional(),
  })
  .strict();
export type TrunkConfig = z.infer<typeof TrunkConfig>;

/** The relay for the HBR container: this node's intent out, agent-netns's status in. */
export const RelayConfig = z
  .object({
    intentFile: AbsolutePath,
    statusFile: AbsolutePath,
    /**
     * agent-netns rewrites its status file at least every statusHeartbeatSeconds: one older than
     * this is published with FabrikNetnsReady False (agent-netns stopped or hangs).
     */
    netnsMaxAgeSeconds: z.number().int().min(2).max(3600).default(60),
  })
  .strict();
export type RelayConfig = z.infer<typeof RelayConfig>;

/** The host agent's configuration file (YAML), also read by cni-ovs for the default bridge. */
export const AgentHostConfig = z
  .object({
    ...agentCommonFields,
    secondaryNetwork: SecondaryNetworkConfig.default({ ovsBridges: [] }),
    ovsdbSocket: OvsdbAddress.default(DEFAULT_OVSDB_SOCKET),
    datapathType: z.enum(['system', 'netdev']).default('system'),
    trunk: TrunkConfig.optional(),
    source: IntentSource.default({ kind: 'kubernetes' }),
    relay: RelayConfig.optional(),
    stateDir: AbsolutePath.default('/var/lib/fabrik/agent-host'),
    /** Loopback by default: /metrics has no authentication, and agent-host runs on the node's network. */
    metricsAddress: ListenAddress.default('127.0.0.1:9731'),
    healthAddress: ListenAddress.default('127.0.0.1:9732'),
    /** The Unix socket of the CNI fast path (fabrik-ovs asks agent-host instead of OVSDB). */
    cniSocket: AbsolutePath.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const bridges = c.secondaryNetwork.ovsBridges;
    const issue = (path: (string | number)[], message: string) =>
      ctx.addIssue({ code: 'custom', path, message });
    const bridgeAt = new Map<string, number>();
    const nicAt = new Map<string, string>();
    bridges.forEach((b, i) => {
      const first = bridgeAt.get(b.bridgeName);
      if (first !== undefined) {
        issue(
          ['secondaryNetwork', 'ovsBridges', i, 'bridgeName'],
          `"${b.bridgeName}" is also ovsBridges[${first}]`,
        );
      } else bridgeAt.set(b.bridgeName, i);
      b.physicalInterfaces.forEach((entry, j) => {
        const name = physicalInterfaceName(entry);
        const path = ['secondaryNetwork', 'ovsBridges', i, 'physicalInterfaces', j];
        const owner = nicAt.get(name);
        if (owner !== undefined) issue(path, `"${name}" is already an uplink of ${owner}`);
        else nicAt.set(name, `bridge ${b.bridgeName}`);
        // OVS switches between the uplinks of a bridge: two NICs on one segment loop through it.
        if (j > 0)
          issue(
            path,
            `a second uplink of bridge ${b.bridgeName} (after ${physicalInterfaceName(b.physicalInterfaces[0]!)}) would loop with it through the bridge: give the bridge one uplink (a Linux bond of the NICs for redundancy) or each NIC a bridge of its own`,
          );
      });
      // An uplink trunking every VLAN on the trunk's bridge carries every Layer2Network's VLAN.
      if (c.trunk?.attach === 'ovs' && c.trunk.bridge === b.bridgeName)
        b.physicalInterfaces.forEach((entry, j) => {
          if (physicalInterfaceVlans(entry) !== undefined || carriesLayer2Networks(entry)) return;
          issue(
            ['secondaryNetwork', 'ovsBridges', i, 'physicalInterfaces', j],
            `"${physicalInterfaceName(entry)}" would carry every VLAN on bridge ${b.bridgeName}, which also carries the trunk ${c.trunk!.hostInterface}: the Layer2Networks' VLANs would reach the physical network from every node (a loop); list its allowedVLANs (Layer2Networks on them are then refused), or set carryLayer2Networks`,
          );
        });
    });
    if (c.trunk) {
      if (c.trunk.attach === 'ovs' && c.trunk.bridge === undefined) {
        issue(['trunk', 'bridge'], 'is required with attach: ovs (the bridge the trunk is an uplink of)');
      }
      if (c.trunk.attach === 'ovs' && c.trunk.bridge !== undefined && !bridgeAt.has(c.trunk.bridge)) {
        issue(
          ['trunk', 'bridge'],
          `must be one of secondaryNetwork.ovsBridges (no bridge "${c.trunk.bridge}")`,
        );
      }
      if (c.trunk.attach === 'kernel' && c.trunk.bridge !== undefined) {
        issue(['trunk', 'bridge'], 'is only for attach: ovs');
      }
      const owner = nicAt.get(c.trunk.hostInterface);
      if (owner !== undefined && c.trunk.attach === 'kernel') {
        issue(['trunk', 'hostInterface'], `is an uplink of ${owner}; use attach: ovs`);
      }
    }
    if (c.relay && c.relay.intentFile === c.relay.statusFile) {
      issue(['relay', 'statusFile'], 'must differ from relay.intentFile');
    }
    if (listenAddressesClash(c.metricsAddress, c.healthAddress)) {
      issue(['healthAddress'], `must not take metricsAddress's socket (${c.metricsAddress})`);
    }
  });
export type AgentHostConfig = z.infer<typeof AgentHostConfig>;
/** What a config file may contain (defaults still optional). */
export type AgentHostConfigInput = z.input<typeof AgentHostConfig>;

/** Validates agent-host's config (parsed YAML) and applies defaults; errors name the field. */
export function parseAgentHostConfig(input: unknown): ParseResult<AgentHostConfig> {
  return parseWith(AgentHostConfig, () => 'AgentHostConfig', input);
}
