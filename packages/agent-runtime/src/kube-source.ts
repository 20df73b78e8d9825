import type { KubeConfig } from '@kubernetes/client-node';
import {
  apiVersionOf,
  startInformer,
  startNodeInformer,
  type GroupVersionResource,
  type Informer,
  type KubeLogger,
  type NodeObject,
} from '@fabrik/kube';
import type { IntentObject, IntentSnapshot, IntentSource, SecretReader, SourceProblem } from './intent.js';

/** A kind the source follows, and where the API serves it. */
export interface WatchedKind {
  /** `VRF` */
  readonly kind: string;
  readonly resource: GroupVersionResource;
}

export interface KubernetesSourceOptions {
  readonly kc: KubeConfig;
  /** This node: its labels (nodeSelectors) come from its Node object, watched by name. */
  readonly nodeName: string;
  readonly kinds: readonly WatchedKind[];
  readonly log?: KubeLogger;
  /** For the description in logs: the API server's address. */
  readonly server?: string;
  /**
   * The namespace whose Secrets objects may name (BGPPeering's `passwordSecretRef`): its Secrets
   * are watched (RBAC: list and watch secrets in that namespace only) and offered as the
   * snapshot's `secrets`. Absent: no Secrets are read.
   */
  readonly secretNamespace?: string;
}

/** The core Secret resource. */
const SECRETS = { group: '', version: 'v1', plural: 'secrets' } as const;

/** A Secret as the source keeps it: its name and its data, decoded. */
interface SecretData {
  readonly metadata: { readonly name: string; readonly resourceVersion: string };
  readonly data: Readonly<Record<string, string>>;
}

/**
 * An intent source over supervised informers (@fabrik/kube): one per kind (list, then watch;
 * relist on 410; restart with backoff on any other error), plus one on this Node by name. Synced
 * once every informer has listed successfully. Objects are passed on as the API server holds them
 * (validation is the agent's, object by object); a change of the Node counts only when its labels
 * change (the kubelet updates its status every few seconds).
 */
export function createKubernetesSource(options: KubernetesSourceOptions): IntentSource {
  let informers: { kind: string; informer: Informer<IntentObject> }[] = [];
  let node: Informer<NodeObject> | undefined;
  let secrets: Informer<SecretData> | undefined;
  let nodeLabels = '';
  return {
    description: `kubernetes ${options.server ?? options.kc.getCurrentCluster()?.server ?? ''}`.trim(),
    async start(onChange) {
      informers = options.kinds.map(({ kind, resource }) => ({
        kind,
        informer: startInformer<IntentObject>({
          kc: options.kc,
          ...resource,
          name: kind,
          parse: intentObjectParser(kind, apiVersionOf(resource)),
          onChange: (key) => onChange(`${kind} ${key} changed`),
          // The daemon resyncs on its own timer.
          resyncIntervalMs: 0,
          ...(options.log ? { log: options.log } : {}),
        }),
      }));
      node = startNodeInformer({
        kc: options.kc,
        nodeName: options.nodeName,
        resyncIntervalMs: 0,
        ...(options.log ? { log: options.log } : {}),
        onChange: () => {
          const labels = JSON.stringify(sortedLabels(node?.get(options.nodeName)?.metadata.labels));
          if (labels === nodeLabels) return;
          nodeLabels = labels;
          onChange(`Node ${options.nodeName} labels changed`);
        },
      });
      if (options.secretNamespace !== undefined) {
        secrets = startInformer<SecretData>({
          kc: options.kc,
          ...SECRETS,
          namespace: options.secretNamespace,
          name: 'Secret',
          parse: parseSecret,
          // A rotated password is applied at once.
          onChange: (key) => onChange(`Secret ${key} changed`),
          resyncIntervalMs: 0,
          ...(options.log ? { log: options.log } : {}),
        });
      }
      // Each informer reports its first list through onChange (or, for an empty list, through this).
      void Promise.all([
        ...informers.map((i) => i.informer.waitForSync()),
        node.waitForSync(),
        ...(secrets ? [secrets.waitForSync()] : []),
      ]).then(
        () => onChange('intent source synced'),
        () => {},
      );
    },
    hasSynced: () =>
      node !== undefined &&
      node.hasSynced() &&
      informers.every((i) => i.informer.hasSynced()) &&
      (secrets?.hasSynced() ?? true),
    snapshot(): IntentSnapshot {
      const problems: SourceProblem[] = [];
      for (const { kind, informer } of informers) {
        for (const [key, invalid] of informer.invalid())
          problems.push({ where: `${kind} ${key}`, message: errorMessage(invalid.error) });
      }
      const nodeObject = node?.get(options.nodeName);
      if (node?.hasSynced() && nodeObject === undefined)
        problems.push({
          where: `Node ${options.nodeName}`,
          message: 'not found: nodeSelectors match no label',
        });
      return {
        objects: informers.flatMap(({ informer }) => informer.list()),
        node: { name: options.nodeName, labels: { ...(nodeObject?.metadata.labels ?? {}) } },
        problems,
        ...(secrets ? { secrets: secretReader(secrets, options.secretNamespace ?? '') } : {}),
      };
    },
    async stop() {
      await Promise.all([...informers.map((i) => i.informer.stop()), node?.stop(), secrets?.stop()]);
    },
  };
}

/** Objects of list responses may lack apiVersion and kind: the source fills them in. */
function intentObjectParser(kind: string, apiVersion: string): (raw: unknown) => IntentObject {
  return (raw) => {
    const o = raw as { metadata?: { name?: unknown } } | null;
    if (typeof o?.metadata?.name !== 'string') throw new Error('metadata.name: required');
    return { apiVersion, kind, ...(raw as object) } as IntentObject;
  };
}

/** A Secret's data, base64-decoded; its other fields (type, annotations) are not kept. */
function parseSecret(raw: unknown): SecretData {
  const o = raw as { metadata?: { name?: unknown; resourceVersion?: unknown }; data?: unknown } | null;
  if (typeof o?.metadata?.name !== 'string') throw new Error('metadata.name: required');
  const resourceVersion = typeof o.metadata.resourceVersion === 'string' ? o.metadata.resourceVersion : '';
  const data: Record<string, string> = {};
  if (o.data !== undefined && o.data !== null) {
    if (typeof o.data !== 'object') throw new Error('data: must be a map');
    for (const [key, value] of Object.entries(o.data)) {
      if (typeof value !== 'string') throw new Error(`data.${key}: must be base64 text`);
      data[key] = Buffer.from(value, 'base64').toString('utf8');
    }
  }
  return { metadata: { name: o.metadata.name, resourceVersion }, data };
}

/** The Secrets of the snapshot: what the informer holds at the moment of the snapshot. */
function secretReader(informer: Informer<SecretData>, namespace: string): SecretReader {
  const byName = new Map(informer.list().map((s) => [s.metadata.name, s]));
  return {
    where: `namespace ${namespace}`,
    get: (name) => byName.get(name)?.data,
    revision: (name) => byName.get(name)?.metadata.resourceVersion,
  };
}

function sortedLabels(labels: Record<string, string> | undefined): [string, string][] {
  return Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
