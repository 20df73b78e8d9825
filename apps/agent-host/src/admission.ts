import { parseLayer2Network } from '@fabrik/api';
import { CniError, CniErrorCode } from '@fabrik/cni-skel';
import { loadIpamConf } from '@fabrik/ipam-plugin';
import {
  isNotFoundError,
  startInformer,
  type GroupVersionResource,
  type Informer,
  type KubeLogger,
  type Labels,
} from '@fabrik/kube';
import type { KubeConfig } from '@kubernetes/client-node';
import type { IpPoolClient } from '@fabrik/ippool';
import { PluginErrorCode, type AttachmentRequest } from '@fabrik/ovs-attachment';
import type { IntentObject } from '@fabrik/agent-runtime';
import { attachmentRefusal, type ScopedNetwork, type ScopedPool } from './tenant-scope.js';

// The tenant-scoping decision (tenant-scope.ts) on agent-host's CNI socket: it reads the
// Layer2Networks of the agent's intent source, the Namespaces' labels from its informer and, for a
// config whose IPAM is fabrik-ipam, the IPPools it names (the IPAM verb reads them next anyway).

const NAMESPACES: GroupVersionResource = { group: '', version: 'v1', plural: 'namespaces' };

/** The IPAM plugin whose pools carry a namespaceSelector. */
const FABRIK_IPAM = 'fabrik-ipam';

export interface AdmissionSources {
  /** The intent source's objects now (Layer2Networks among them). */
  readonly objects: () => readonly IntentObject[];
  /** The Namespace's labels; undefined when the informer does not hold it. */
  readonly namespaceLabels: (name: string) => Labels | undefined;
  readonly ipPools: IpPoolClient;
}

/** The `admit` step of fabrik-ovs's ADD on the CNI socket: throws CniError 103 (11 while a Namespace is unknown). */
export function tenantAdmission(sources: AdmissionSources): (request: AttachmentRequest) => Promise<void> {
  return async ({ conf, config, cniArgs }) => {
    const pools = conf.ipamType === FABRIK_IPAM ? await scopedPools(sources.ipPools, config, cniArgs) : [];
    const namespace = conf.podNamespace;
    const refusal = attachmentRefusal(
      {
        networkConfig: conf.name,
        namespace,
        namespaceLabels: namespace === undefined ? undefined : sources.namespaceLabels(namespace),
        vlan: conf.vlan,
        trunks: conf.trunks,
        pools,
      },
      scopedNetworks(sources.objects()),
    );
    if (refusal)
      throw new CniError(
        refusal.retry ? CniErrorCode.tryAgainLater : PluginErrorCode.attachmentNotAllowed,
        refusal.message,
      );
  };
}

/** The Namespaces' labels, watched (RBAC: namespaces list/watch): a Pod must not wait on the API server. */
export function watchNamespaceLabels(kc: KubeConfig, log: KubeLogger): Informer<Labels> {
  return startInformer({
    kc,
    ...NAMESPACES,
    name: 'namespaces',
    log,
    parse: (raw) => (raw as { metadata?: { labels?: Labels } }).metadata?.labels ?? {},
  });
}

/** The valid Layer2Networks among `objects` (an invalid one is not applied on the node either). */
export function scopedNetworks(objects: readonly IntentObject[]): ScopedNetwork[] {
  return objects.flatMap((o) => {
    if (o.kind !== 'Layer2Network') return [];
    const parsed = parseLayer2Network(o, { unknownFields: 'ignore' });
    if (!parsed.ok) return [];
    const { vlan, namespaceSelector, allowTrunks } = parsed.value.spec;
    return [
      {
        name: o.metadata.name,
        vlan,
        ...(namespaceSelector !== undefined ? { namespaceSelector } : {}),
        ...(allowTrunks !== undefined ? { allowTrunks } : {}),
      },
    ];
  });
}

/** The pools the config names; one that does not exist is left to the IPAM verb to report. */
async function scopedPools(
  client: IpPoolClient,
  config: Readonly<Record<string, unknown>>,
  cniArgs: string,
): Promise<ScopedPool[]> {
  const { pools } = loadIpamConf({ ...config }, cniArgs);
  const found = await Promise.all(
    pools.map((name) =>
      client.get(name).then(
        (pool): ScopedPool[] => [
          {
            name,
            ...(pool.spec.namespaceSelector !== undefined
              ? { namespaceSelector: pool.spec.namespaceSelector }
              : {}),
          },
        ],
        (e: unknown) => {
          if (isNotFoundError(e)) return [];
          throw new CniError(
            CniErrorCode.tryAgainLater,
            `IPPool ${name}: its namespaceSelector could not be read: ${e instanceof Error ? e.message : String(e)}`,
            undefined,
            { cause: e },
          );
        },
      ),
    ),
  );
  return found.flat();
}
