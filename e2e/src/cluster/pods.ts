import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { netnsAdd, netnsDel, netnsPath, runInNetns } from '@fabrik/netcore';
import { libcniResultFile } from './explain.js';
import type { KubeClient } from './kube-client.js';
import { MULTUS_IFNAME, MULTUS_NETWORK, reportedAttachments } from './multus.js';
import type { ClusterNode } from './topology.js';

// Pods on a lab node, as the kubelet and Multus run them: the Pod object in the API (scheduled to
// the node, its networks in the `k8s.v1.cni.cncf.io/networks` annotation), a network namespace,
// and one CNI ADD through libcni (cnitool) of the node's one network, Multus, with the Kubernetes
// CNI_ARGS. Multus reads the annotation and the NetworkAttachmentDefinitions from the API server,
// delegates each to its plugin (fabrik-ovs + fabrik-ipam) and writes the `network-status`
// annotation, which is where the lab learns each attachment's interface and addresses.

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
  /** The Pod object's uid (K8S_POD_UID: Multus checks it against the API). */
  readonly uid: string;
  /** The sandbox's container id (CNI_CONTAINERID of every CNI call for it). */
  readonly containerId: string;
  readonly node: ClusterNode;
  /** The Pod's network namespace. */
  readonly netns: string;
  readonly attachments: readonly PodAttachment[];
  /** Multus's errors of the ADDs tried again (see ADD_ATTEMPTS). */
  readonly addRetries: readonly string[];
}

/**
 * ADD attempts of one sandbox when Multus could not read the Pod, as the kubelet tries a failed
 * sandbox again: Multus gives each read of the Pod 250 ms (two reads, its GetPod), which a request
 * to the API server in a loaded lab kernel can miss.
 */
const ADD_ATTEMPTS = 3;
const ADD_RETRY_DELAY_MS = 1000;
/** Multus's error when it could not read the Pod. */
const MULTUS_POD_READ_FAILED = 'error waiting for pod';

/** What the runtime of one node needs to run the CNI plugins. */
export interface NodeCni {
  /** Where the network configs are (NETCONFPATH): Multus's, the one network the runtime knows. */
  readonly confDir: string;
  /** Multus's cache (its `cniDir`): its record of each Pod's delegates and their libcni results. */
  readonly multusCache: string;
  /** Where the NADs' configs are written for the CHECK of each attachment. */
  readonly delegateConfDir: string;
  /** Environment of cnitool and the plugins. */
  readonly env: Readonly<Record<string, string>>;
  readonly cnitool: string;
}

interface NadObject {
  readonly spec: { readonly config: string };
}

interface PodObject {
  readonly metadata: { readonly uid: string; readonly annotations?: Record<string, string> };
}

/** The parts of a libcni cached result the lab reads. */
interface CachedResult {
  readonly result?: { readonly interfaces?: readonly { name: string; sandbox?: string }[] };
}

const nadPath = (name: string) =>
  `/apis/k8s.cni.cncf.io/v1/namespaces/${POD_NAMESPACE}/network-attachment-definitions/${name}`;
const podPath = (name?: string) => `/api/v1/namespaces/${POD_NAMESPACE}/pods${name ? `/${name}` : ''}`;

/** cnitool's container id for a netns: libcni runtimes derive it from the sandbox the same way. */
export const containerIdOf = (netns: string): string =>
  `cnitool-${createHash('sha512').update(netnsPath(netns)).digest('hex')}`.slice(0, 36);

/** The network config of a NAD as a conflist (libcni wraps a single plugin the same way). */
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

/** One cnitool run: which network, from which config directory and cache. */
interface CnitoolRun {
  readonly network: string;
  readonly ifname: string;
  /** NETCONFPATH and CNITOOL_CACHE when not the runtime's own. */
  readonly confDir?: string;
  readonly cache?: string;
}

export class PodRuntime {
  constructor(
    readonly node: ClusterNode,
    private readonly cni: NodeCni,
    private readonly kube: KubeClient,
  ) {}

  private async cnitool(verb: 'add' | 'check' | 'del', pod: LabPod, run: CnitoolRun): Promise<string> {
    // The CNI_ARGS a kubelet's runtime passes, and Multus passes on to its delegates.
    const args = [
      'IgnoreUnknown=1',
      `K8S_POD_NAMESPACE=${POD_NAMESPACE}`,
      `K8S_POD_NAME=${pod.name}`,
      `K8S_POD_INFRA_CONTAINER_ID=${pod.containerId}`,
      `K8S_POD_UID=${pod.uid}`,
    ].join(';');
    const env = {
      ...this.cni.env,
      ...(run.confDir ? { NETCONFPATH: run.confDir } : {}),
      ...(run.cache ? { CNITOOL_CACHE: run.cache } : {}),
      CNI_IFNAME: run.ifname,
      CNI_ARGS: args,
    };
    const { stdout } = await runInNetns(this.node.host, 'env', [
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      this.cni.cnitool,
      verb,
      run.network,
      netnsPath(pod.netns),
    ]);
    return stdout;
  }

  private readonly multus = { network: MULTUS_NETWORK, ifname: MULTUS_IFNAME };

  /** Creates the Pod object and its netns, runs ADD through Multus, and reads what Multus reported. */
  async run(name: string, nads: readonly string[]): Promise<LabPod> {
    const netns = `${this.node.podPrefix}${name}`;
    const object = await this.kube.create<PodObject>(podPath(), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: POD_NAMESPACE,
        annotations: { [NETWORKS_ANNOTATION]: nads.join(',') },
      },
      spec: { nodeName: this.node.name, containers: [{ name: 'app', image: 'busybox' }] },
    });
    const created: LabPod = {
      name,
      uid: object.metadata.uid,
      containerId: containerIdOf(netns),
      node: this.node,
      netns,
      attachments: [],
      addRetries: [],
    };
    await netnsAdd(netns);
    try {
      const addRetries: string[] = [];
      for (;;) {
        try {
          await this.cnitool('add', created, this.multus);
          break;
        } catch (e) {
          const message = (e as Error).message;
          if (!message.includes(MULTUS_POD_READ_FAILED) || addRetries.length + 1 >= ADD_ATTEMPTS) throw e;
          // Multus failed before delegating anything: nothing to delete before the next attempt.
          addRetries.push(message.slice(message.indexOf('Multus: ')).trim());
          await new Promise((r) => setTimeout(r, ADD_RETRY_DELAY_MS));
        }
      }
      return { ...created, addRetries, attachments: await this.attachmentsOf(created, nads) };
    } catch (e) {
      await this.remove(created).catch(() => undefined);
      throw e;
    }
  }

  /**
   * The Pod's attachments: interface and addresses from the network-status annotation Multus
   * wrote, the network and its pools from the NAD, the host end of the veth from fabrik-ovs's
   * result in Multus's cache (the annotation names only the Pod's end).
   */
  private async attachmentsOf(pod: LabPod, nads: readonly string[]): Promise<PodAttachment[]> {
    const object = await this.kube.get<PodObject>(podPath(pod.name));
    const status = object?.metadata.annotations?.[NETWORK_STATUS_ANNOTATION];
    const { containerId } = pod;
    await mkdir(this.cni.delegateConfDir, { recursive: true });
    return Promise.all(
      reportedAttachments(pod.name, POD_NAMESPACE, status, nads).map(async ({ nad, ifname, addresses }) => {
        const nadObject = await this.kube.get<NadObject>(nadPath(nad));
        if (!nadObject) throw new Error(`NetworkAttachmentDefinition ${POD_NAMESPACE}/${nad} not found`);
        const { name: network, conflist, pools } = conflistOf(nadObject.spec.config);
        await writeFile(join(this.cni.delegateConfDir, `${network}.conflist`), JSON.stringify(conflist));
        const file = libcniResultFile(this.cni.multusCache, network, containerId, ifname);
        const cached = JSON.parse(await readFile(file, 'utf8')) as CachedResult;
        const hostIfname = cached.result?.interfaces?.find((f) => !f.sandbox)?.name;
        if (!hostIfname)
          throw new Error(`CNI result of ${pod.name}/${ifname} (${file}) names no host interface`);
        return { nad, network, ifname, containerId, pools, hostIfname, addresses };
      }),
    );
  }

  /**
   * The Pod's network-status annotation as the API server holds it now lists each of its
   * attachments with the addresses the Pod's interface holds; describes them or throws.
   */
  async checkNetworkStatus(pod: LabPod): Promise<string> {
    const object = await this.kube.get<PodObject>(podPath(pod.name));
    const reported = reportedAttachments(
      pod.name,
      POD_NAMESPACE,
      object?.metadata.annotations?.[NETWORK_STATUS_ANNOTATION],
      pod.attachments.map((a) => a.nad),
    );
    for (const r of reported) {
      const { stdout } = await runInNetns(pod.netns, 'ip', ['-j', 'addr', 'show', 'dev', r.ifname]);
      const held = (JSON.parse(stdout) as { addr_info: { local: string }[] }[]).flatMap((l) =>
        l.addr_info.map((i) => i.local),
      );
      if (!r.addresses.every((x) => held.includes(x)))
        throw new Error(
          `${pod.name}: network-status gives ${r.ifname} ${r.addresses.join(',')}, the interface holds ${held.join(',') || 'nothing'}`,
        );
    }
    return `${pod.name}: ${reported.map((r) => `${r.nad} ${r.ifname} ${r.addresses.join(',')}`).join('; ')}`;
  }

  /**
   * CHECK through Multus, then of every attachment: Multus's CHECK runs only the delegates of its
   * own config (the default network; its CmdCheck never reads the Pod's networks), so each
   * attachment is checked as Multus added it, its NAD's config through libcni against Multus's cache.
   */
  async check(pod: LabPod): Promise<void> {
    await this.cnitool('check', pod, this.multus);
    for (const a of pod.attachments)
      await this.cnitool('check', pod, {
        network: a.network,
        ifname: a.ifname,
        confDir: this.cni.delegateConfDir,
        cache: this.cni.multusCache,
      });
  }

  /** DEL through Multus (it deletes the attachments, last first), then the netns and the Pod object. */
  async remove(pod: LabPod): Promise<void> {
    await this.cnitool('del', pod, this.multus);
    await netnsDel(pod.netns);
    // No kubelet confirms a graceful deletion: the Pod goes at once, as after the kubelet's.
    await this.kube.delete(`${podPath(pod.name)}?gracePeriodSeconds=0`);
  }
}
