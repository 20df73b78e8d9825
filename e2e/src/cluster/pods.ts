import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { netnsAdd, netnsDel, netnsPath, runInNetns } from '@fabrik/netcore';
import type { KubeClient } from './kube-client.js';
import type { ClusterNode } from './topology.js';

// Pods on a lab node, as the kubelet and Multus run them: the Pod object in the API (scheduled to
// the node), a network namespace, and per network of its `k8s.v1.cni.cncf.io/networks`
// annotation the NetworkAttachmentDefinition's config run through libcni (cnitool) with the
// Kubernetes CNI_ARGS; the result is written back as the `network-status` annotation.

export const NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';
export const NETWORK_STATUS_ANNOTATION = 'k8s.v1.cni.cncf.io/network-status';
export const POD_NAMESPACE = 'default';

/** One secondary interface of a Pod. */
export interface PodAttachment {
  /** The NetworkAttachmentDefinition (namespace default). */
  readonly nad: string;
  /** The CNI network name (the NAD config's `name`). */
  readonly network: string;
  readonly ifname: string;
  readonly containerId: string;
  /** The IPPools the network's IPAM allocates from. */
  readonly pools: readonly string[];
  /** The host end of the Pod's veth (from the CNI result). */
  readonly hostIfname: string;
  /** Addresses without prefix length. */
  readonly addresses: readonly string[];
}

export interface LabPod {
  readonly name: string;
  readonly node: ClusterNode;
  /** The Pod's network namespace. */
  readonly netns: string;
  readonly attachments: readonly PodAttachment[];
}

/** What the runtime of one node needs to run the CNI plugins. */
export interface NodeCni {
  /** Where the network configs are written (NETCONFPATH). */
  readonly confDir: string;
  /** Environment of cnitool and the plugins. */
  readonly env: Readonly<Record<string, string>>;
  readonly cnitool: string;
}

interface NadObject {
  readonly spec: { readonly config: string };
}

const nadPath = (name: string) =>
  `/apis/k8s.cni.cncf.io/v1/namespaces/${POD_NAMESPACE}/network-attachment-definitions/${name}`;
const podPath = (name?: string) => `/api/v1/namespaces/${POD_NAMESPACE}/pods${name ? `/${name}` : ''}`;

/** cnitool's container id for a netns: libcni runtimes derive it from the sandbox the same way. */
export const containerIdOf = (netns: string): string =>
  `cnitool-${createHash('sha512').update(netnsPath(netns)).digest('hex')}`.slice(0, 36);

/** The network config of a NAD as a conflist (Multus wraps a single plugin the same way). */
export function conflistOf(nadConfig: string): {
  name: string;
  conflist: Record<string, unknown>;
  pools: string[];
} {
  const config = JSON.parse(nadConfig) as Record<string, unknown> & {
    name: string;
    cniVersion: string;
    plugins?: Record<string, unknown>[];
  };
  const { name, cniVersion, ...plugin } = config;
  const plugins = config.plugins ?? [plugin];
  const pools = plugins.flatMap((p) => {
    const ipam = p['ipam'] as { ippools?: string[]; ippool?: string } | undefined;
    return ipam?.ippools ?? (ipam?.ippool ? [ipam.ippool] : []);
  });
  return { name, conflist: { cniVersion, name, plugins }, pools };
}

export class PodRuntime {
  constructor(
    readonly node: ClusterNode,
    private readonly cni: NodeCni,
    private readonly kube: KubeClient,
  ) {}

  private async cnitool(
    verb: 'add' | 'check' | 'del',
    network: string,
    netns: string,
    ifname: string,
    podName: string,
  ): Promise<string> {
    const args = [
      'IgnoreUnknown=1',
      `K8S_POD_NAMESPACE=${POD_NAMESPACE}`,
      `K8S_POD_NAME=${podName}`,
      `K8S_POD_INFRA_CONTAINER_ID=${containerIdOf(netns)}`,
    ].join(';');
    const { stdout } = await runInNetns(this.node.host, 'env', [
      ...Object.entries({ ...this.cni.env, CNI_IFNAME: ifname, CNI_ARGS: args }).map(([k, v]) => `${k}=${v}`),
      this.cni.cnitool,
      verb,
      network,
      netnsPath(netns),
    ]);
    return stdout;
  }

  /** Creates the Pod object, its netns and its attachments (ADD), and records the network status. */
  async run(name: string, nads: readonly string[]): Promise<LabPod> {
    const netns = `${this.node.podPrefix}${name}`;
    await this.kube.create(podPath(), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: POD_NAMESPACE,
        annotations: { [NETWORKS_ANNOTATION]: nads.join(',') },
      },
      spec: { nodeName: this.node.name, containers: [{ name: 'app', image: 'busybox' }] },
    });
    await netnsAdd(netns);
    const attachments: PodAttachment[] = [];
    try {
      for (const [i, nad] of nads.entries()) {
        const object = await this.kube.get<NadObject>(nadPath(nad));
        if (!object) throw new Error(`NetworkAttachmentDefinition ${POD_NAMESPACE}/${nad} not found`);
        const { name: network, conflist, pools } = conflistOf(object.spec.config);
        await mkdir(this.cni.confDir, { recursive: true });
        await writeFile(join(this.cni.confDir, `${network}.conflist`), JSON.stringify(conflist));
        const ifname = `net${i + 1}`;
        const result = JSON.parse(await this.cnitool('add', network, netns, ifname, name)) as {
          interfaces?: { name: string; sandbox?: string }[];
          ips?: { address: string }[];
        };
        const hostIfname = result.interfaces?.find((f) => !f.sandbox)?.name;
        if (!hostIfname) throw new Error(`CNI result of ${name}/${ifname} names no host interface`);
        attachments.push({
          nad,
          network,
          ifname,
          containerId: containerIdOf(netns),
          pools,
          hostIfname,
          addresses: (result.ips ?? []).map((ip) => ip.address.split('/')[0]!),
        });
      }
    } catch (e) {
      await this.remove({ name, node: this.node, netns, attachments }).catch(() => undefined);
      throw e;
    }
    await this.kube.patch(podPath(name), {
      metadata: {
        annotations: {
          [NETWORK_STATUS_ANNOTATION]: JSON.stringify(
            attachments.map((a) => ({
              name: `${POD_NAMESPACE}/${a.nad}`,
              interface: a.ifname,
              ips: a.addresses,
            })),
          ),
        },
      },
    });
    return { name, node: this.node, netns, attachments };
  }

  /** CNI CHECK of every attachment. */
  async check(pod: LabPod): Promise<void> {
    for (const a of pod.attachments) await this.cnitool('check', a.network, pod.netns, a.ifname, pod.name);
  }

  /** DEL of every attachment (last first), then the netns and the Pod object. */
  async remove(pod: LabPod): Promise<void> {
    for (const a of [...pod.attachments].reverse())
      await this.cnitool('del', a.network, pod.netns, a.ifname, pod.name);
    await netnsDel(pod.netns);
    // No kubelet confirms a graceful deletion: the Pod goes at once, as after the kubelet's.
    await this.kube.delete(`${podPath(pod.name)}?gracePeriodSeconds=0`);
  }
}
