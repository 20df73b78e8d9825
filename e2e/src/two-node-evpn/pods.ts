import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CNI_NODE_SETTINGS_ENV, CniNodeSettings } from '@fabrik/api';
import { netnsPath, runInNetns } from '@fabrik/netcore';
import { LAB_NETWORKS, OVS_BRIDGE, type LabNode, type PodSpec } from './topology.js';

// Pods are attached the way a container runtime does it: libcni (cnitool) runs the built
// fabrik-ovs plugin with NetworkAttachmentDefinition-style configs, inside the node's host netns.
// Node-level settings (OVSDB endpoint, cache directory) are in the node's settings file, as an
// installer writes it, which the plugin finds through FABRIK_CNI_CONFIG.

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const PLUGIN_DIR = join(repo, 'apps/cni-ovs/dist');
const CNITOOL = join(repo, 'node_modules/.cache/fabrik/cnitool');
export const POD_IFNAME = 'net1';

const networkName = (vlan: number): string => `vlan${vlan}`;

/** A node's CNI setup: one conflist per VLAN network, a node settings file, caches of its own. */
export interface NodeCni {
  readonly confDir: string;
  readonly env: Record<string, string>;
}

/**
 * Writes the node's network configs and CNI node settings. host-local hands out addresses from a
 * range per node, so both nodes share each subnet without overlapping.
 */
export async function writeNodeCni(node: LabNode, stateDir: string, ovsdbSocket: string): Promise<NodeCni> {
  const confDir = join(stateDir, 'net.d');
  await mkdir(join(confDir, 'fabrik.d'), { recursive: true });
  const settingsFile = join(confDir, 'fabrik.d', 'config.yaml');
  const settings = CniNodeSettings.parse({ ovsdbSocket, cacheDir: join(stateDir, 'fabrik-ovs') });
  await writeFile(settingsFile, JSON.stringify(settings, null, 2));
  const hostOctet = node.id === 'a' ? 10 : 20;
  for (const net of LAB_NETWORKS) {
    const prefix = net.subnet.split('.').slice(0, 3).join('.');
    const conflist = {
      cniVersion: '1.0.0',
      name: networkName(net.vlan),
      plugins: [
        {
          type: 'fabrik-ovs',
          networkType: 'vlan',
          vlan: net.vlan,
          mtu: 1450,
          bridge: OVS_BRIDGE,
          ipam: {
            type: 'host-local',
            dataDir: join(stateDir, 'ipam'),
            ranges: [
              [
                {
                  subnet: net.subnet,
                  rangeStart: `${prefix}.${hostOctet}`,
                  rangeEnd: `${prefix}.${hostOctet + 9}`,
                },
              ],
            ],
          },
        },
      ],
    };
    await writeFile(
      join(confDir, `${net.vlan}-${conflist.name}.conflist`),
      JSON.stringify(conflist, null, 2),
    );
  }
  return {
    confDir,
    env: {
      NETCONFPATH: confDir,
      CNI_PATH: `${PLUGIN_DIR}:/usr/lib/cni`,
      CNI_IFNAME: POD_IFNAME,
      CNITOOL_CACHE: join(stateDir, 'libcni'),
      [CNI_NODE_SETTINGS_ENV]: settingsFile,
    },
  };
}

const cnitool = (node: LabNode, cni: NodeCni, verb: 'add' | 'check' | 'del', pod: PodSpec) =>
  runInNetns(node.host, 'env', [
    ...Object.entries(cni.env).map(([k, v]) => `${k}=${v}`),
    CNITOOL,
    verb,
    networkName(pod.vlan),
    netnsPath(pod.name),
  ]);

/** ADD: returns the Pod's address from the CNI result. */
export async function attachPod(node: LabNode, cni: NodeCni, pod: PodSpec): Promise<string> {
  const { stdout } = await cnitool(node, cni, 'add', pod);
  const result = JSON.parse(stdout) as { ips?: { address: string }[] };
  const address = result.ips?.[0]?.address;
  if (!address) throw new Error(`CNI result for ${pod.name} has no IP: ${stdout}`);
  return address.split('/')[0]!;
}

export const checkPod = (node: LabNode, cni: NodeCni, pod: PodSpec) => cnitool(node, cni, 'check', pod);
export const detachPod = (node: LabNode, cni: NodeCni, pod: PodSpec) => cnitool(node, cni, 'del', pod);
