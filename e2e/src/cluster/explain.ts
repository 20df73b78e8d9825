import { join } from 'node:path';
import { bridgeName, vxlanName } from '@fabrik/agent-netns';
import { linkKey, ovsRowKey, type NodeExpectation } from '@fabrik/lab';
import { DEFAULT_NETWORK, MULTUS_IFNAME, MULTUS_NETWORK } from './multus.js';
import type { NodePaths } from './node.js';
import type { LabPod } from './pods.js';
import { HBR_VRF, OVS_BRIDGE, TRUNK_HBR_IF, TRUNK_HOST_IF, type ClusterNode } from './topology.js';

// What the cluster's objects explain on one lab node: exactly the links, OVS rows, FRR VRFs and
// VNIs and cache files that should be there, derived from the VRFs and Layer2Networks the node
// applies and the Pods it runs. Names follow the agents' conventions (agent-netns: a VRF device
// per VRF, br<vni> + vx<vni> per VNI, tr.<vlan>; agent-host: the bridge, its trunk uplink and an
// internal port tr.<vlan> per network; fabrik-ovs: the Pod's host veth, one record per attachment;
// libcni and Multus: a cached result per network they ran, Multus's record of each Pod's delegates).

/** The VRF and Layer2Network objects a node applies (valid ones, selected for the node). */
export interface AppliedObjects {
  readonly vrfs: readonly {
    readonly metadata: { readonly name: string; readonly generation?: number };
    readonly spec: { readonly vni: number };
  }[];
  readonly layer2s: readonly {
    readonly metadata: { readonly name: string; readonly generation?: number };
    readonly spec: { readonly vni: number; readonly vlan: number; readonly vrf?: string };
  }[];
}

export const OWNERS = { netns: 'agent-netns', host: 'agent-host', cni: 'cni-ovs' } as const;

/** libcni's cache of an attachment's result (what cnitool's CHECK and DEL read). */
export const libcniResultFile = (libcniCache: string, network: string, containerId: string, ifname: string) =>
  join(libcniCache, 'results', `${network}-${containerId}-${ifname}`);
/** fabrik-ovs's record of an attachment. */
export const cniRecordFile = (cniCache: string, network: string, containerId: string, ifname: string) =>
  join(cniCache, network, containerId, `${ifname}.json`);

export function expectNode(
  node: ClusterNode,
  paths: Pick<NodePaths, 'cniCache' | 'libcniCache' | 'multusCache'>,
  objects: AppliedObjects,
  pods: readonly LabPod[],
): NodeExpectation {
  const links = new Map<string, string>();
  const ovsRows = new Map<string, string>();
  const files = new Set<string>();
  const hbrLink = (name: string) => links.set(linkKey(node.hbr, name), OWNERS.netns);

  for (const vrf of objects.vrfs) {
    hbrLink(vrf.metadata.name);
    hbrLink(bridgeName(vrf.spec.vni));
    hbrLink(vxlanName(vrf.spec.vni));
  }
  // The node's own VRF is created by agent-netns when a network uses it (and is absent).
  if (objects.layer2s.some((l) => l.spec.vrf === undefined)) hbrLink(HBR_VRF);
  // agent-host's bridge with its local port, and the trunk to the HBR as its uplink.
  ovsRows.set(ovsRowKey('Bridge', OVS_BRIDGE), OWNERS.host);
  ovsRows.set(ovsRowKey('Port', OVS_BRIDGE), OWNERS.host);
  ovsRows.set(ovsRowKey('Port', TRUNK_HOST_IF), OWNERS.host);
  for (const l2 of objects.layer2s) {
    hbrLink(bridgeName(l2.spec.vni));
    hbrLink(vxlanName(l2.spec.vni));
    hbrLink(`${TRUNK_HBR_IF}.${l2.spec.vlan}`);
    ovsRows.set(ovsRowKey('Port', `${TRUNK_HBR_IF}.${l2.spec.vlan}`), OWNERS.host);
  }
  for (const pod of pods.filter((p) => p.node.id === node.id)) {
    // The runtime's result of Multus; Multus's record of the Pod's delegates and their results.
    files.add(libcniResultFile(paths.libcniCache, MULTUS_NETWORK, pod.containerId, MULTUS_IFNAME));
    files.add(join(paths.multusCache, pod.containerId));
    files.add(libcniResultFile(paths.multusCache, DEFAULT_NETWORK, pod.containerId, MULTUS_IFNAME));
    for (const a of pod.attachments) {
      links.set(linkKey(node.host, a.hostIfname), OWNERS.cni);
      ovsRows.set(ovsRowKey('Port', a.hostIfname), OWNERS.cni);
      files.add(cniRecordFile(paths.cniCache, a.network, a.containerId, a.ifname));
      files.add(libcniResultFile(paths.multusCache, a.network, a.containerId, a.ifname));
    }
  }
  const vrfNames = new Set(objects.vrfs.map((v) => v.metadata.name));
  const vnis = new Set(objects.vrfs.map((v) => v.spec.vni));
  const optionalVnis = new Set(objects.layer2s.map((l) => l.spec.vni));
  return { links, ovsRows, frr: new Map([[node.hbr, { vrfs: vrfNames, vnis, optionalVnis }]]), files };
}
