import {
  NodeNetworkConfigAgentStatus,
  NodeNetworkConfigSpec,
  type NodeNetworkConfigSpec as Spec,
} from '@fabrik/api';
import type { AgentReport, RolloutNode, RolloutPlan } from './plan.js';

// Between the API objects and the planner (pure): a NodeNetworkConfig as it is now becomes the
// planner's RolloutNode, and the planner's decision becomes what to write to each
// NodeNetworkConfig: its spec and the operator's rollout annotations.
//
// The spec to roll back to is kept on the NodeNetworkConfig itself, in an annotation written in
// the same apply as the new spec: one write moves the node and records where it goes back to, so
// no crash or restart can leave a node moved without its way back (docs/architecture.md).

/** Operator-owned annotations of a NodeNetworkConfig. */
export const ROLLOUT_ANNOTATIONS = {
  /** JSON of the spec the node goes back to; present only while the rollout in progress moved it. */
  previousSpec: 'network.fabrik.dev/previous-spec',
  /** When spec.revision was written (the node timeout counts from it). */
  writtenAt: 'network.fabrik.dev/revision-written-at',
} as const;

/** The agents expected on every node, by their status section. */
export const NODE_AGENTS = ['host', 'netns'] as const;

/** A NodeNetworkConfig as the rollout reads it back. */
export interface ConfigOnServer {
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: unknown;
  readonly status?: Readonly<Record<string, unknown>>;
}

/** What to write to one NodeNetworkConfig: the spec and the rollout annotations (absent ones are removed). */
export interface NodeWrite {
  readonly name: string;
  readonly spec: Spec;
  readonly annotations: Readonly<Record<string, string>>;
}

function agentReportOf(section: unknown): AgentReport | undefined {
  const parsed = NodeNetworkConfigAgentStatus.safeParse(section);
  if (!parsed.success) return undefined; // an unreadable report is no report
  const { heartbeat, ...rest } = parsed.data;
  return { ...rest, heartbeat: new Date(heartbeat) };
}

/** The spec a NodeNetworkConfig holds, when it is a valid one. */
export function specOf(config: ConfigOnServer | undefined): Spec | undefined {
  const parsed = NodeNetworkConfigSpec.safeParse(config?.spec);
  return parsed.success ? parsed.data : undefined;
}

/** The spec recorded to roll back to, when there is a valid one. */
export function previousSpecOf(config: ConfigOnServer | undefined): Spec | undefined {
  const text = config?.metadata.annotations?.[ROLLOUT_ANNOTATIONS.previousSpec];
  if (text === undefined) return undefined;
  try {
    const parsed = NodeNetworkConfigSpec.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function writtenAtOf(config: ConfigOnServer | undefined): Date | undefined {
  const text = config?.metadata.annotations?.[ROLLOUT_ANNOTATIONS.writtenAt];
  const time = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time);
}

/** One node as the planner sees it. */
export function rolloutNodeOf(
  name: string,
  rendered: Spec,
  existing: ConfigOnServer | undefined,
  canary: boolean,
): RolloutNode {
  const written = specOf(existing);
  const previous = previousSpecOf(existing);
  const writtenAt = writtenAtOf(existing);
  return {
    name,
    canary,
    rendered: rendered.revision,
    ...(written && { written: written.revision }),
    ...(previous && { previous: previous.revision }),
    ...(writtenAt && { writtenAt }),
    agents: Object.fromEntries(NODE_AGENTS.map((agent) => [agent, agentReportOf(existing?.status?.[agent])])),
  };
}

/**
 * The writes the plan asks for: moved nodes get their rendered spec (recording the spec they had),
 * rolled back ones their recorded spec, settled ones lose the record. Every other node keeps what
 * it has; a node whose spec on the server is not a valid one gets its rendered spec.
 */
export function nodeWritesOf(
  plan: RolloutPlan,
  rendered: ReadonlyMap<string, Spec>,
  existing: (name: string) => ConfigOnServer | undefined,
  now: Date,
): NodeWrite[] {
  const writes: NodeWrite[] = [];
  const stamp = now.toISOString();
  const moving = new Set(plan.move);
  const settling = new Set(plan.settle);
  const backTo = new Map(plan.rollBack.map((r) => [r.node, r.revision]));
  for (const [name, spec] of rendered) {
    const config = existing(name);
    const written = specOf(config);
    const previous = previousSpecOf(config);
    const annotations = config?.metadata.annotations ?? {};
    const writtenAt = annotations[ROLLOUT_ANNOTATIONS.writtenAt] ?? stamp;
    if (moving.has(name) || written === undefined) {
      const record = written && { [ROLLOUT_ANNOTATIONS.previousSpec]: JSON.stringify(written) };
      writes.push({ name, spec, annotations: { ...record, [ROLLOUT_ANNOTATIONS.writtenAt]: stamp } });
    } else if (previous !== undefined && previous.revision === backTo.get(name)) {
      writes.push({ name, spec: previous, annotations: { [ROLLOUT_ANNOTATIONS.writtenAt]: stamp } });
    } else if (settling.has(name) && previous !== undefined) {
      writes.push({ name, spec: written, annotations: { [ROLLOUT_ANNOTATIONS.writtenAt]: writtenAt } });
    }
  }
  return writes;
}
