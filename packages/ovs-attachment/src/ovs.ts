import type { CniNodeSettings } from '@fabrik/api';
import type { NetConf } from './config.js';

// The Open vSwitch operations the plugin needs, behind one interface so the commands read as the
// CNI steps they are. The implementation (ovs-session.ts) is the netcore OVSDB client.

export interface VlanSettings {
  readonly tag?: number;
  readonly trunks?: readonly number[];
  readonly vlanMode?: 'access' | 'trunk' | 'native-untagged';
}

export interface AttachedPort {
  readonly name: string;
  readonly bridge: string;
  readonly tag?: number;
  readonly trunks: readonly number[];
  readonly vlanMode?: string;
  readonly externalIds: Readonly<Record<string, string>>;
  readonly ofport?: number;
  readonly error?: string;
}

export interface OvsSession {
  addPort(spec: {
    bridge: string;
    name: string;
    vlan: VlanSettings;
    externalIds: Record<string, string>;
  }): Promise<void>;
  /** Resolves with the ofport; throws CniError when the interface's `error` column is set or time runs out. */
  waitForOfport(name: string, timeoutMs: number): Promise<number>;
  /** Deletes a port this plugin owns; false when there is none. */
  deletePort(name: string): Promise<boolean>;
  /**
   * Deletes the ports whose external_ids name this plugin as owner and this container and
   * interface (any other port, whatever its name, stays) and returns their names.
   */
  deleteAttachmentPorts(containerId: string, ifname: string): Promise<string[]>;
  /** Ports this plugin created for one network. */
  findPorts(network: string): Promise<AttachedPort[]>;
  bridgeExists(name: string): Promise<boolean>;
  close(): void;
}

/** Opens a session on the node's OVSDB (endpoint and timeout from the node settings). */
export type OpenOvs = (settings: CniNodeSettings) => Promise<OvsSession>;

/**
 * The access (or native) VLAN of the port: the network config's `vlan`, else the VLAN the IPAM
 * plugin reported for the addresses' subnet (fabrik-ipam: the IPPool's `subnetInfo.vlan`, result
 * field `fabrik.vlan`), as Antrea does with its IPPools: a NAD's VLAN overrides the pool's. A
 * `bridge` network is untagged by definition and takes none.
 */
export function effectiveVlan(
  conf: Pick<NetConf, 'vlan' | 'networkType'>,
  ipamVlan: number | undefined,
): number {
  return takesIpamVlan(conf) ? (ipamVlan ?? 0) : conf.vlan;
}

/** True when the port's VLAN comes from IPAM (see {@link effectiveVlan}). */
export function takesIpamVlan(conf: Pick<NetConf, 'vlan' | 'networkType'>): boolean {
  return conf.vlan === 0 && conf.networkType !== 'bridge';
}

/**
 * VLAN settings of the port: an access port of `vlan`; a trunk of exactly the `trunk` VLANs the
 * network config asks for (with `vlan` as the native, untagged VLAN when both are set). Neither:
 * an access port of VLAN 0, the bridge's untagged frames only. OVS treats a port without tag and
 * trunks as a trunk of every VLAN, so that is never left to its default: with `tag=0,
 * vlan_mode=access` a frame the Pod sends tagged is dropped on ingress (ovs-vswitchd.conf.db(5),
 * Port `vlan_mode`), and the Pod never sees another VLAN's frames.
 */
export function vlanSettings(conf: Pick<NetConf, 'vlan' | 'trunks'>): VlanSettings {
  if (conf.trunks.length > 0) {
    return conf.vlan > 0
      ? { tag: conf.vlan, trunks: conf.trunks, vlanMode: 'native-untagged' }
      : { trunks: conf.trunks, vlanMode: 'trunk' };
  }
  return { tag: conf.vlan, vlanMode: 'access' };
}
