import {
  carriesLayer2Networks,
  physicalInterfaceName,
  physicalInterfaceVlans,
  type AgentHostConfig,
  type Layer2Network,
  type ObjectError,
  type PhysicalInterface,
} from '@fabrik/api';
import type { DesiredLink } from '@fabrik/netcore/netlink';
import type { OvsDesiredBridge, OvsDesiredPort, OvsDesiredState } from '@fabrik/netcore/ovsdb';

// config + this node's Layer2Networks + the single-NIC migrations -> what agent-host wants (pure):
// the OVS bridges with their uplinks, and the host side of the trunk (`tr.<vid>` per network).
// No loops: the trunk joins each Layer2Network's VLAN to its EVPN network on every node, so a
// physical uplink of the trunk's bridge that also carried that VLAN would bridge the physical
// network to itself through EVPN. Such a Layer2Network is refused on the node, naming the uplink,
// unless the uplink says carryLayer2Networks (the config refuses an uplink there that trunks every
// VLAN, and a second uplink on any bridge).

/** Marks every OVS row (external_ids:fabrik-owner) and every link (ifalias fabrik:agent-host:...) agent-host creates. */
export const OWNER = 'agent-host';

/** The host-side name of VLAN `vid` of the trunk, whichever way it is attached. */
export const trunkVlanName = (vid: number): string => `tr.${vid}`;

/** A network on the trunk: its VLAN link (kernel) or internal port (ovs) on the host side. */
export interface TrunkVlan {
  readonly vid: number;
  readonly name: string;
  readonly mtu: number;
  /** The Layer2Network it serves. */
  readonly network: string;
  readonly generation: number;
}

/** How a bridge's single NIC stands, as the migration logic decided for this pass. */
export interface BridgeMigration {
  readonly bridge: string;
  readonly nic: string;
  /** `attached`: the NIC is (or becomes) an uplink and the bridge's local port carries its MAC; `detached`: being moved back. */
  readonly state: 'attached' | 'detached';
  readonly mac: string;
}

export interface HostDesired {
  readonly ovs: OvsDesiredState;
  /** `tr.<vid>` VLAN links on the trunk's host end (`attach: kernel`), owned through netlink. */
  readonly kernelVlans: readonly DesiredLink[];
  /** The networks served on the trunk (either attach mode), for status. */
  readonly trunkVlans: readonly TrunkVlan[];
  /** OVS internal ports that must be up for traffic (`tr.<vid>` with `attach: ovs`). */
  readonly internalPortsUp: readonly string[];
  /** Layer2Networks this agent cannot serve (an MTU the trunk cannot carry, a VLAN an uplink of the trunk's bridge carries). */
  readonly objectErrors: readonly ObjectError[];
}

export interface HostDesiredInput {
  readonly config: Pick<AgentHostConfig, 'secondaryNetwork' | 'datapathType' | 'trunk'>;
  /** This node's valid, scheduled Layer2Networks (`scheduleIntent`). */
  readonly layer2Networks: readonly Layer2Network[];
  /** Single-NIC migrations by bridge name. */
  readonly migrations: ReadonlyMap<string, BridgeMigration>;
  /** Physical interfaces left out of their bridge this pass (they hold addresses that cannot move: see migration). */
  readonly heldBack: ReadonlySet<string>;
  /** The MTU of the trunk's host end, when it exists. */
  readonly trunkMtu: number | undefined;
}

/** `[100, "200-202"]` -> `[100, 200, 201, 202]`, sorted, without duplicates. */
export function expandVlans(entries: readonly (number | string)[]): number[] {
  const out = new Set<number>();
  for (const e of entries) {
    if (typeof e === 'number') out.add(e);
    else {
      const [low = 0, high = 0] = e.split('-').map(Number);
      for (let v = low; v <= high; v++) out.add(v);
    }
  }
  return [...out].sort((a, b) => a - b);
}

function uplinkPort(entry: PhysicalInterface): OvsDesiredPort {
  const vlans = physicalInterfaceVlans(entry);
  return {
    name: physicalInterfaceName(entry),
    type: 'system',
    tag: null,
    // Without allowedVLANs the uplink trunks every VLAN.
    trunks: vlans === undefined ? [] : expandVlans(vlans),
    vlanMode: null,
  };
}

/**
 * The uplink of the trunk's bridge that would carry `vlan` beside the trunk (a loop), if any:
 * one whose allowedVLANs hold it (or that has none), unless it says carryLayer2Networks.
 */
function loopingUplink(config: HostDesiredInput['config'], vlan: number): string | undefined {
  const trunk = config.trunk;
  if (trunk?.attach !== 'ovs') return undefined;
  const bridge = config.secondaryNetwork.ovsBridges.find((b) => b.bridgeName === trunk.bridge);
  const uplink = bridge?.physicalInterfaces.find((entry) => {
    if (carriesLayer2Networks(entry)) return false;
    const vlans = physicalInterfaceVlans(entry);
    return vlans === undefined || expandVlans(vlans).includes(vlan);
  });
  return uplink === undefined ? undefined : physicalInterfaceName(uplink);
}

export function desiredHost(input: HostDesiredInput): HostDesired {
  const { config, migrations, heldBack } = input;
  const trunk = config.trunk;
  const objectErrors: ObjectError[] = [];
  const trunkVlans: TrunkVlan[] = [];
  for (const l2 of input.layer2Networks) {
    if (!trunk) break;
    if (input.trunkMtu !== undefined && l2.spec.mtu > input.trunkMtu) {
      objectErrors.push({
        kind: 'Layer2Network',
        name: l2.metadata.name,
        field: 'spec.mtu',
        message: `${l2.spec.mtu} exceeds the MTU ${input.trunkMtu} of the trunk ${trunk.hostInterface}`,
      });
      continue;
    }
    const uplink = loopingUplink(config, l2.spec.vlan);
    if (uplink !== undefined) {
      objectErrors.push({
        kind: 'Layer2Network',
        name: l2.metadata.name,
        field: 'spec.vlan',
        message: `VLAN ${l2.spec.vlan} is also carried by uplink ${uplink} of bridge ${trunk.bridge}, which carries the trunk ${trunk.hostInterface}: the Layer2Network would join the physical VLAN ${l2.spec.vlan} on every node (a loop); use a VLAN outside ${uplink}'s allowedVLANs, or set carryLayer2Networks on ${uplink} in agent-host's config`,
      });
      continue;
    }
    trunkVlans.push({
      vid: l2.spec.vlan,
      name: trunkVlanName(l2.spec.vlan),
      mtu: l2.spec.mtu,
      network: l2.metadata.name,
      generation: l2.metadata.generation ?? 0,
    });
  }
  trunkVlans.sort((a, b) => a.vid - b.vid);

  const bridges: OvsDesiredBridge[] = config.secondaryNetwork.ovsBridges.map((b) => {
    const migration = migrations.get(b.bridgeName);
    const ports: OvsDesiredPort[] = b.physicalInterfaces
      .filter((entry) => {
        const name = physicalInterfaceName(entry);
        if (heldBack.has(name)) return false;
        // A NIC being moved back leaves the bridge before its addresses return to it.
        return !(migration?.nic === name && migration.state === 'detached');
      })
      .map(uplinkPort);
    if (trunk?.attach === 'ovs' && trunk.bridge === b.bridgeName) {
      if (!ports.some((p) => p.name === trunk.hostInterface))
        ports.push({ name: trunk.hostInterface, type: 'system', tag: null, trunks: [], vlanMode: null });
      for (const v of trunkVlans)
        ports.push({
          name: v.name,
          type: 'internal',
          tag: v.vid,
          trunks: [],
          vlanMode: null,
          mtuRequest: v.mtu,
        });
    }
    return {
      name: b.bridgeName,
      datapathType: config.datapathType,
      mcastSnooping: b.enableMulticastSnooping,
      // The local port of a single-NIC bridge carries the NIC's MAC: upstream neighbours, DHCP
      // leases and MAC-bound firewall rules keep working.
      otherConfig: { hwaddr: migration?.state === 'attached' ? migration.mac : null },
      ports,
    };
  });

  const kernelVlans: DesiredLink[] =
    trunk?.attach === 'kernel'
      ? trunkVlans.map((v) => ({
          kind: 'vlan',
          name: v.name,
          parent: trunk.hostInterface,
          id: v.vid,
          mtu: v.mtu,
          up: true,
          alias: v.network,
          // A tenant network's port, not a host interface: no IPv6 link-local address (address-free.ts).
          sysctls: { addrGenMode: 'none' },
        }))
      : [];
  return {
    ovs: { owner: OWNER, bridges },
    kernelVlans,
    trunkVlans,
    internalPortsUp: trunk?.attach === 'ovs' ? trunkVlans.map((v) => v.name) : [],
    objectErrors,
  };
}
