import type { ConfigStatus, ObjectError } from '@fabrik/api';

// The rollout planner (pure): from each node's rendered revision, the revision written to its
// NodeNetworkConfig now and what its agents report, decide which nodes move to their rendered
// revision now, which go back to the revision they had, and the rollout's state.
//
// Rules (docs/operator.md, "Rollouts"):
// - A node with no spec yet gets its rendered one at once: it has nothing to protect or go back to.
// - A node whose written revision is its rendered one and that was not moved by this rollout is
//   not gated: a change that touches some nodes only waits on those nodes alone.
// - A node counts as updated only when every agent on it reports the revision applied, with a
//   heartbeat younger than the max age and later than the move (a stale report never counts).
// - A moved node whose agents report a failure after the move, or that is not updated within the
//   node timeout, fails the rollout: every node moved by it goes back to its previous revision, and
//   the failed revision of that node is not moved to again (`failures`) until the node's rendered
//   revision changes or the failure is cleared (the retry annotation).
// - Moves go canaries first, then by node name, while fewer than maxUnavailable moved nodes are
//   not yet updated; paused stops moves, never a rollback.

/** One agent's report, as its section of the NodeNetworkConfig status holds it. */
export interface AgentReport {
  readonly appliedRevision?: string;
  readonly configStatus?: ConfigStatus;
  readonly heartbeat?: Date;
  readonly objectErrors?: readonly ObjectError[];
}

/** One node as the planner sees it. */
export interface RolloutNode {
  readonly name: string;
  /** Carries the canary label: moved before every other node. */
  readonly canary: boolean;
  /** The revision the node should eventually run (rendered now). */
  readonly rendered: string;
  /** The revision written to its NodeNetworkConfig spec now; undefined: no spec yet. */
  readonly written?: string;
  /** Set only while the node is moved by the rollout in progress: the revision it goes back to. */
  readonly previous?: string;
  /** When `written` was written (the node timeout counts from it). */
  readonly writtenAt?: Date;
  /** Each agent expected on the node (host, netns), with its report if it wrote one. */
  readonly agents: Readonly<Record<string, AgentReport | undefined>>;
}

/** A revision that failed on a node, recorded so it is not moved to again. */
export interface RolloutFailure {
  readonly node: string;
  readonly revision: string;
  /** The objects its agents reported failing (empty for a timeout). */
  readonly objects: readonly ObjectError[];
  readonly why: string;
}

/** `maxUnavailable`: a number of nodes, or a percentage of the gated nodes (`"10%"`, at least one). */
export type MaxUnavailable = number | `${number}%`;

export interface RolloutSettings {
  readonly maxUnavailable: MaxUnavailable;
  readonly heartbeatMaxAgeMs: number;
  readonly nodeTimeoutMs: number;
  readonly paused: boolean;
}

export interface RolloutInput {
  readonly nodes: readonly RolloutNode[];
  /** Failures recorded earlier (kept across passes and restarts by the caller). */
  readonly failures: readonly RolloutFailure[];
  readonly settings: RolloutSettings;
  readonly now: Date;
}

export type RolloutPhase = 'progressing' | 'complete' | 'failed' | 'paused';

export interface RolloutCounts {
  /** Nodes running their rendered revision, every agent reporting it. */
  readonly ready: number;
  /** Nodes moved and not yet updated. */
  readonly updating: number;
  /** Nodes whose rendered revision failed (rolled back or being rolled back). */
  readonly failed: number;
  readonly total: number;
}

export interface RolloutPlan {
  readonly phase: RolloutPhase;
  readonly counts: RolloutCounts;
  /** Nodes to write their rendered revision to now (and record `previous` for, when they had one). */
  readonly move: readonly string[];
  /** Nodes to write their previous revision to now. */
  readonly rollBack: readonly { readonly node: string; readonly revision: string }[];
  /** Failures to record: this pass's new ones and the earlier ones still in force. */
  readonly failures: readonly RolloutFailure[];
  /** Nodes whose `previous` is no longer needed: the rollout completed. */
  readonly settle: readonly string[];
}

/** How a node on its rendered revision stands, from its agents' reports. */
type Standing =
  | { readonly kind: 'updated' }
  | { readonly kind: 'waiting' }
  | { readonly kind: 'failed'; readonly failure: RolloutFailure };

const FAILING_STATUSES: ReadonlySet<ConfigStatus> = new Set(['invalid', 'degraded']);

/** The number of moved, not yet updated nodes allowed at once (at least one). */
export function budgetOf(maxUnavailable: MaxUnavailable, gatedNodes: number): number {
  if (typeof maxUnavailable === 'number') return Math.max(1, Math.floor(maxUnavailable));
  const percent = Number(maxUnavailable.slice(0, -1));
  return Math.max(1, Math.floor((gatedNodes * percent) / 100));
}

/** A report that says something about the node now: fresh, and written after the revision was. */
function isCurrent(report: AgentReport, node: RolloutNode, input: RolloutInput): boolean {
  const heartbeat = report.heartbeat?.getTime();
  if (heartbeat === undefined) return false;
  if (input.now.getTime() - heartbeat > input.settings.heartbeatMaxAgeMs) return false;
  return node.writtenAt === undefined || heartbeat >= node.writtenAt.getTime();
}

function standingOf(node: RolloutNode, input: RolloutInput): Standing {
  const failure = (why: string, objects: readonly ObjectError[]): Standing => ({
    kind: 'failed',
    failure: { node: node.name, revision: node.rendered, objects, why },
  });
  let updated = true;
  for (const [agent, report] of Object.entries(node.agents)) {
    if (report === undefined || !isCurrent(report, node, input)) {
      updated = false;
      continue;
    }
    if (report.configStatus !== undefined && FAILING_STATUSES.has(report.configStatus))
      return failure(`agent ${agent} reports ${report.configStatus}`, report.objectErrors ?? []);
    if (report.appliedRevision !== node.rendered) updated = false;
  }
  if (updated) return { kind: 'updated' };
  const since = node.writtenAt?.getTime();
  if (node.previous !== undefined && since !== undefined) {
    const late = input.now.getTime() - since - input.settings.nodeTimeoutMs;
    if (late >= 0) return failure(`not updated within ${input.settings.nodeTimeoutMs} ms of the move`, []);
  }
  return { kind: 'waiting' };
}

const byCanaryThenName = (a: RolloutNode, b: RolloutNode): number =>
  a.canary !== b.canary ? (a.canary ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Decides this pass's writes and the rollout's state. */
export function planRollout(input: RolloutInput): RolloutPlan {
  const nodes = [...input.nodes].sort(byCanaryThenName);
  const renderedOf = new Map(nodes.map((n) => [n.name, n.rendered]));
  // A failure stays in force while the node's rendered revision is the one that failed.
  const failures = input.failures.filter((f) => renderedOf.get(f.node) === f.revision);
  const fresh = nodes.filter((n) => n.written === undefined);
  /** Moved by the rollout in progress (their `previous` is where a rollback takes them). */
  const moved = nodes.filter((n) => n.previous !== undefined && n.written === n.rendered);
  const pending = nodes.filter((n) => n.written !== undefined && n.written !== n.rendered);
  const gated = moved.length + pending.length;

  let ready = 0;
  let updating = 0;
  let canariesUpdating = 0;
  const newFailures: RolloutFailure[] = [];
  for (const node of nodes) {
    if (node.written !== node.rendered) continue;
    const standing = standingOf(node, input);
    if (standing.kind === 'updated') ready++;
    else if (node.previous === undefined)
      continue; // not gated: neither counted nor failing the rollout
    else if (standing.kind === 'failed') newFailures.push(standing.failure);
    else {
      updating++;
      if (node.canary) canariesUpdating++;
    }
  }
  const allFailures = [...failures, ...newFailures];
  const failedNodes = new Set(allFailures.map((f) => f.node));
  const counts = { ready, updating, failed: failedNodes.size, total: nodes.length };
  const move = fresh.map((n) => n.name);

  const [firstFailure] = allFailures;
  if (firstFailure !== undefined) {
    const rollBack = moved.map((n) => ({ node: n.name, revision: n.previous as string }));
    return {
      phase: 'failed',
      counts: { ...counts, updating: 0 },
      move,
      rollBack,
      failures: allFailures,
      settle: [],
    };
  }
  if (pending.length === 0 && updating === 0)
    return {
      phase: 'complete',
      counts,
      move,
      rollBack: [],
      failures: [],
      settle: moved.map((n) => n.name),
    };
  if (input.settings.paused) return { phase: 'paused', counts, move, rollBack: [], failures: [], settle: [] };

  // Canaries first: the other nodes wait until every canary is updated.
  const canariesLeft = canariesUpdating > 0 || pending.some((n) => n.canary);
  const candidates = canariesLeft ? pending.filter((n) => n.canary) : pending;
  const free = budgetOf(input.settings.maxUnavailable, gated) - updating;
  const next = candidates.slice(0, Math.max(0, free)).map((n) => n.name);
  return {
    phase: 'progressing',
    counts: { ...counts, updating: updating + next.length },
    move: [...move, ...next],
    rollBack: [],
    failures: [],
    settle: [],
  };
}
