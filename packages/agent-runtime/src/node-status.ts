import type { KubeConfig } from '@kubernetes/client-node';
import {
  createStatusWriter,
  nodeOwnerReference,
  patchNodeCondition,
  removeNodeTaint,
  type ConditionStatus,
  type GroupVersionResource,
  type KubeLogger,
  type TaintEffect,
} from '@fabrik/kube';
import type { StatusSink } from './status-file.js';

/** What a node status sink needs of a section: its conditions (one of them mirrors to the Node). */
export interface StatusSection {
  readonly conditions?: readonly {
    readonly type: string;
    readonly status: ConditionStatus;
    readonly reason: string;
    readonly message: string;
  }[];
}

export interface NodeStatusSinkOptions {
  readonly kc: KubeConfig;
  readonly nodeName: string;
  /** The per-node status kind (NodeNetworkStatus), named like the Node and owned by it. */
  readonly resource: GroupVersionResource;
  /** `kind` of the object created when it does not exist yet. */
  readonly kind: string;
  /** The top-level key of `status` this agent owns (`netns`, `host`); the others are never touched. */
  readonly section: string;
  /** The condition of the section that is also set on the Node (`FabrikNetnsReady`). */
  readonly nodeConditionType: string;
  /** A taint removed from the Node the first time that condition is True. */
  readonly startupTaint?: { readonly key: string; readonly effect?: TaintEffect };
  readonly log?: KubeLogger;
}

/**
 * Reports a section of the node's status object (a JSON merge patch of `status.<section>`, written
 * only when it differs, `lastUpdate` stamped by the writer), then mirrors one of its conditions to
 * the Node (a strategic merge patch naming only that condition type: the kubelet's stay), and
 * removes the startup taint once that condition is True. What agent-netns does with a Kubernetes
 * source, and what agent-host's relay does with agent-netns's status file.
 */
export function createNodeStatusSink<S extends StatusSection>(options: NodeStatusSinkOptions): StatusSink<S> {
  const writer = createStatusWriter({
    kc: options.kc,
    resource: options.resource,
    stampField: 'lastUpdate',
    ...(options.log ? { log: options.log } : {}),
    create: async (name) => ({
      apiVersion: `${options.resource.group}/${options.resource.version}`,
      kind: options.kind,
      metadata: { name, ownerReferences: [await nodeOwnerReference(options.kc, options.nodeName)] },
    }),
  });
  let taintRemoved = options.startupTaint === undefined;
  return {
    async write(section) {
      await writer.write({ name: options.nodeName, section: options.section, status: section });
      const condition = section.conditions?.find((c) => c.type === options.nodeConditionType);
      if (!condition) return;
      const { type, status, reason, message } = condition;
      await patchNodeCondition(options.kc, options.nodeName, { type, status, reason, message });
      if (status === 'True' && !taintRemoved && options.startupTaint) {
        await removeNodeTaint(
          options.kc,
          options.nodeName,
          options.startupTaint.key,
          options.startupTaint.effect,
        );
        taintRemoved = true;
      }
    },
  };
}
