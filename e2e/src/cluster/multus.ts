import { join } from 'node:path';
import { REPO } from './control-plane.js';

// Multus as users run it in front of fabrik: the thin plugin (built by tools/ci/ensure-multus.sh
// from its pinned upstream module) is the one network the runtime knows. On ADD it reads the
// Pod's `k8s.v1.cni.cncf.io/networks` annotation and the NetworkAttachmentDefinitions from the
// API server with its own ServiceAccount, delegates to each NAD's plugin (fabrik-ovs) through
// libcni, and writes the `k8s.v1.cni.cncf.io/network-status` annotation.

/** The directory holding the `multus` binary (a CNI_PATH entry). */
export const MULTUS_BIN_DIR = join(REPO, 'node_modules/.cache/fabrik/multus');
/** The network name of Multus's own config, as upstream's manifests name it. */
export const MULTUS_NETWORK = 'multus-cni-network';
/** The file of Multus's config in the node's CNI config directory, as its installer names it. */
export const MULTUS_CONF_FILE = '00-multus.conf';
/** The interface the runtime asks for: Multus gives it to the default network, `net1`... to the NADs. */
export const MULTUS_IFNAME = 'eth0';
/** The name of the Pods' default network (Multus's first delegate). */
export const DEFAULT_NETWORK = 'loopback';
export const MULTUS_SERVICE_ACCOUNT = { namespace: 'kube-system', name: 'multus' } as const;

/**
 * Multus's config as its thin entrypoint writes it (MULTUS_CONF_FILE): the default network inline
 * as the first delegate. The lab has no cluster network (no Service or Pod-to-Pod traffic on the
 * default interface; every check runs on the NADs' interfaces), and Multus needs one: Debian's
 * `loopback` plugin is the smallest delegate that creates nothing a Pod lacks (every runtime brings
 * `lo` up anyway, it ignores CNI_IFNAME) and answers ADD, CHECK and DEL.
 */
export function multusConfig(options: {
  /** Multus's kubeconfig (its ServiceAccount's token). */
  readonly kubeconfig: string;
  /** Multus's cache: its record of each Pod's delegates and their libcni results. */
  readonly cniDir: string;
  readonly logFile: string;
}): Record<string, unknown> {
  return {
    cniVersion: '1.0.0',
    name: MULTUS_NETWORK,
    type: 'multus',
    kubeconfig: options.kubeconfig,
    cniDir: options.cniDir,
    logFile: options.logFile,
    delegates: [{ cniVersion: '1.0.0', name: DEFAULT_NETWORK, plugins: [{ type: 'loopback' }] }],
  };
}

/** Multus's ServiceAccount and RBAC, as in upstream's deployments/multus-daemonset.yml. */
export const MULTUS_RBAC: readonly { readonly path: string; readonly object: Record<string, unknown> }[] = [
  {
    path: `/api/v1/namespaces/${MULTUS_SERVICE_ACCOUNT.namespace}/serviceaccounts`,
    object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { ...MULTUS_SERVICE_ACCOUNT } },
  },
  {
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'multus' },
      rules: [
        { apiGroups: ['k8s.cni.cncf.io'], resources: ['*'], verbs: ['*'] },
        { apiGroups: [''], resources: ['pods', 'pods/status'], verbs: ['get', 'update'] },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
      ],
    },
  },
  {
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    object: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'multus' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'multus' },
      subjects: [{ kind: 'ServiceAccount', ...MULTUS_SERVICE_ACCOUNT }],
    },
  },
];

/** One entry of the network-status annotation (the fields the lab reads). */
export interface NetworkStatusEntry {
  readonly name: string;
  readonly interface?: string;
  readonly ips?: readonly string[];
  readonly default?: boolean;
}

/** A NAD's attachment as the network-status annotation reports it. */
export interface ReportedAttachment {
  readonly nad: string;
  readonly ifname: string;
  readonly addresses: readonly string[];
}

/**
 * The attachments of `nads` (namespace `namespace`) in the network-status annotation Multus wrote,
 * in the order asked for; throws naming the Pod and what is missing when one has no entry, no
 * interface or no address (pure).
 */
export function reportedAttachments(
  pod: string,
  namespace: string,
  annotation: string | undefined,
  nads: readonly string[],
): ReportedAttachment[] {
  const where = `Pod ${namespace}/${pod}: annotation k8s.v1.cni.cncf.io/network-status`;
  if (annotation === undefined) throw new Error(`${where} is missing`);
  let entries: NetworkStatusEntry[];
  try {
    entries = JSON.parse(annotation) as NetworkStatusEntry[];
  } catch (e) {
    throw new Error(`${where} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(entries)) throw new Error(`${where} is not a list`);
  return nads.map((nad) => {
    const entry = entries.find((s) => s.name === `${namespace}/${nad}`);
    if (!entry) throw new Error(`${where} has no entry for ${namespace}/${nad}: ${annotation}`);
    if (!entry.interface) throw new Error(`${where}: ${namespace}/${nad} has no interface`);
    if (!entry.ips?.length) throw new Error(`${where}: ${namespace}/${nad} has no ips`);
    return { nad, ifname: entry.interface, addresses: entry.ips };
  });
}
