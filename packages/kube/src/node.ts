import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { retry } from './backoff.js';
import { formatKubeTime, validateCondition, type ConditionStatus } from './conditions.js';
import { customObjects } from './custom-objects.js';
import { InvalidArgumentError, isConflictError } from './errors.js';
import { startInformer, type Informer, type InformerOptions } from './informer.js';
import { ObjectMeta, NODES } from './resource.js';
import { labelKeyProblem, labelValueProblem } from '@fabrik/api';

// The agent's own Node: watched by name, its conditions patched one type at a time, its taints
// changed with a resourceVersion precondition.

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

export const Taint = z.looseObject({
  key: z.string(),
  value: z.string().optional(),
  effect: z.enum(TAINT_EFFECTS),
  timeAdded: z.string().optional(),
});
export type Taint = z.infer<typeof Taint>;

export const NodeCondition = z.looseObject({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  // kube-apiserver serializes an unset time as null (a condition written without one).
  lastHeartbeatTime: z.string().nullable().optional(),
  lastTransitionTime: z.string().nullable().optional(),
});
export type NodeCondition = z.infer<typeof NodeCondition>;

/** The parts of a Node the agents use; every other field is kept as the server sent it. */
export const NodeObject = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: ObjectMeta,
  spec: z
    .looseObject({ taints: z.array(Taint).optional(), unschedulable: z.boolean().optional() })
    .optional(),
  status: z.looseObject({ conditions: z.array(NodeCondition).optional() }).optional(),
});
export type NodeObject = z.infer<typeof NodeObject>;

/** Condition types the kubelet owns: an agent writing them would fight the kubelet. */
export const KUBELET_CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export type NodeInformerOptions = Omit<
  InformerOptions<NodeObject>,
  'group' | 'version' | 'plural' | 'namespace' | 'labelSelector' | 'fieldSelector' | 'parse'
> & { readonly nodeName: string };

/** An informer on one Node (field selector `metadata.name=<nodeName>`): its labels, taints, conditions. */
export function startNodeInformer(options: NodeInformerOptions): Informer<NodeObject> {
  const { nodeName, ...rest } = options;
  return startInformer({
    ...rest,
    ...NODES,
    fieldSelector: `metadata.name=${nodeName}`,
    parse: NodeObject,
    name: rest.name ?? `node ${nodeName}`,
  });
}

/** An ownerReference to a Node, so that an object named after it is garbage-collected with it. */
export async function nodeOwnerReference(
  kc: KubeConfig,
  nodeName: string,
): Promise<{ apiVersion: 'v1'; kind: 'Node'; name: string; uid: string }> {
  const node = await customObjects(kc, NODES, NodeObject).get(nodeName);
  if (!node.metadata.uid) throw new InvalidArgumentError('nodeName', `Node ${nodeName} has no uid`);
  return { apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid };
}

export interface NodeConditionInput {
  readonly type: string;
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message: string;
}

export interface NodeConditionResult {
  /** A patch was sent (false: the condition was already so). */
  readonly written: boolean;
  /** The condition is new or its status changed. */
  readonly transitioned: boolean;
}

/**
 * Sets one condition of a Node through `nodes/<name>/status` with a strategic merge patch that names
 * only that condition: the API server merges `status.conditions` by `type`, so the kubelet's Ready and
 * every other condition stay as they are. Written only when status, reason or message differ;
 * lastTransitionTime moves only when the status does. Refuses the kubelet's own types.
 */
export async function patchNodeCondition(
  kc: KubeConfig,
  nodeName: string,
  cond: NodeConditionInput,
  now: Date = new Date(),
): Promise<NodeConditionResult> {
  validateCondition(cond, 'condition');
  if ((KUBELET_CONDITION_TYPES as readonly string[]).includes(cond.type)) {
    throw new InvalidArgumentError('condition.type', `${cond.type} belongs to the kubelet`);
  }
  const nodes = customObjects(kc, NODES, NodeObject);
  const node = await nodes.get(nodeName);
  const existing = node.status?.conditions?.find((c) => c.type === cond.type);
  if (
    existing &&
    existing.status === cond.status &&
    (existing.reason ?? '') === cond.reason &&
    (existing.message ?? '') === cond.message
  ) {
    return { written: false, transitioned: false };
  }
  const transitioned = existing?.status !== cond.status;
  const time = formatKubeTime(now);
  const condition: NodeCondition = {
    type: cond.type,
    status: cond.status,
    reason: cond.reason,
    message: cond.message,
    lastHeartbeatTime: time,
    lastTransitionTime: transitioned || !existing?.lastTransitionTime ? time : existing.lastTransitionTime,
  };
  await nodes.patchStatus(nodeName, { status: { conditions: [condition] } }, { type: 'strategic' });
  return { written: true, transitioned };
}

/** Checks a taint as the API server does; throws naming the field. */
export function validateTaint(taint: Taint, field = 'taint'): void {
  const keyProblem = labelKeyProblem(taint.key);
  if (keyProblem) throw new InvalidArgumentError(`${field}.key`, keyProblem);
  const valueProblem = taint.value === undefined ? undefined : labelValueProblem(taint.value);
  if (valueProblem) throw new InvalidArgumentError(`${field}.value`, valueProblem);
  if (!(TAINT_EFFECTS as readonly string[]).includes(taint.effect)) {
    throw new InvalidArgumentError(`${field}.effect`, `must be one of ${TAINT_EFFECTS.join(', ')}`);
  }
}

/** The taints with `taint` set (a taint is identified by key and effect); unchanged list when already there. */
export function withTaint(taints: readonly Taint[] | undefined, taint: Taint): Taint[] {
  validateTaint(taint);
  const list = taints ?? [];
  const i = list.findIndex((t) => t.key === taint.key && t.effect === taint.effect);
  if (i < 0) return [...list, taint];
  if ((list[i]!.value ?? '') === (taint.value ?? '')) return [...list];
  return list.map((t, j) => (j === i ? taint : t));
}

/** The taints without those of `key` (and of `effect`, when given). */
export function withoutTaint(
  taints: readonly Taint[] | undefined,
  key: string,
  effect?: TaintEffect,
): Taint[] {
  return (taints ?? []).filter((t) => !(t.key === key && (effect === undefined || t.effect === effect)));
}

/**
 * Rewrites a Node's taints with `change`, using the resourceVersion read as a precondition (taints
 * are a plain list: a patch replaces it whole, so a concurrent change must not be lost); on 409 it
 * re-reads and retries. Resolves to whether anything changed.
 */
async function updateNodeTaints(
  kc: KubeConfig,
  nodeName: string,
  change: (taints: readonly Taint[] | undefined) => Taint[],
): Promise<boolean> {
  const nodes = customObjects(kc, NODES, NodeObject);
  return retry(
    async () => {
      const node = await nodes.get(nodeName);
      const before = node.spec?.taints ?? [];
      const after = change(node.spec?.taints);
      if (JSON.stringify(before) === JSON.stringify(after)) return false;
      await nodes.patch(nodeName, {
        metadata: { resourceVersion: node.metadata.resourceVersion },
        spec: { taints: after.length > 0 ? after : null },
      });
      return true;
    },
    { retryIf: isConflictError, maxAttempts: 20 },
  );
}

/** Adds (or updates the value of) a taint on a Node. */
export function addNodeTaint(kc: KubeConfig, nodeName: string, taint: Taint): Promise<boolean> {
  validateTaint(taint);
  return updateNodeTaints(kc, nodeName, (taints) => withTaint(taints, taint));
}

/** Removes a Node's taints of `key` (and `effect`), for example a startup taint once the agent is ready. */
export function removeNodeTaint(
  kc: KubeConfig,
  nodeName: string,
  key: string,
  effect?: TaintEffect,
): Promise<boolean> {
  return updateNodeTaints(kc, nodeName, (taints) => withoutTaint(taints, key, effect));
}
