import { isCommandError } from '../exec/run.js';
import { ApplyNotConvergedError, classifyIpFailure } from './errors.js';
import { batchLine, encodeOp, formatPlan } from './encode.js';
import { runBatch } from './batch.js';
import type { NetnsRunner } from './exec.js';
import {
  decodeDumps,
  dumpNamespace,
  showLines,
  splitShowOutput,
  wasInterrupted,
  type ObservedState,
  type PriorDumps,
} from './observe.js';
import { plan as makePlan } from './plan.js';
import type { Plan, PlanOp } from './plan-ops.js';

/** What {@link applyPlan} did. */
export interface ApplyResult {
  /** Number of operations run. */
  readonly applied: number;
  /** The namespace as re-observed for verification (`undefined` when the plan was empty). */
  readonly observed: ObservedState | undefined;
}

interface Batch {
  readonly lines: string[];
  readonly ops: PlanOp[];
}

const linkAddContext = (op: PlanOp): { linkKind?: string; linkName?: string } =>
  op.op === 'link-add' ? { linkKind: op.spec.kind, linkName: op.spec.name } : {};

/**
 * Runs a plan in the runner's namespace: every `ip` operation in ONE `ip [-n NS] -batch -`
 * (standard input, no file, no shell), FDB entries in one `bridge -batch -`, sysctls in one
 * `sysctl -w`; then re-observes the namespace and checks that a fresh plan is empty.
 *
 * The link, address and route dumps of the verification are the last lines of the same batch
 * (`ip -j -d -batch -` ending in `addr show` and `route show table all`): a process start costs
 * more than the dumps inside the lab, so apply + verify is one process when the plan has no
 * FDB entries (and sysctls are written in-process, see exec.ts).
 *
 * A failing batch line (`Command failed -:N`) is mapped back to its operation:
 * KernelFeatureMissingError (the link kind's module is missing), LinkNotFoundError,
 * ObjectExistsError or KernelRejectedError (operation + kernel message). Lines before it have
 * been applied; a new observe/plan/apply converges from there. ApplyNotConvergedError when the
 * verification still finds differences.
 */
export async function applyPlan(runner: NetnsRunner, p: Plan): Promise<ApplyResult> {
  if (p.ops.length === 0) return { applied: 0, observed: undefined };
  const ip: Batch = { lines: [], ops: [] };
  const bridge: Batch = { lines: [], ops: [] };
  const sysctl: string[] = [];
  for (const op of p.ops) {
    const e = encodeOp(op);
    if (e.tool === 'sysctl') sysctl.push(...e.assignments);
    else {
      const b = e.tool === 'ip' ? ip : bridge;
      b.lines.push(batchLine(e.args));
      b.ops.push(op);
    }
  }
  // -j and -d only change what `show` prints; the other lines print nothing.
  const batch =
    ip.lines.length > 0
      ? await runBatch(runner, 'ip', ip, {
          flags: ['-j', '-d'],
          trailer: showLines(p.scope),
          contextOf: linkAddContext,
        })
      : undefined;
  // An interrupted verification dump is partial: leave it to observe, which dumps again.
  const prior: PriorDumps | undefined =
    batch === undefined || wasInterrupted(batch.stderr) ? undefined : splitShowOutput(batch.stdout, p.scope);
  if (bridge.lines.length > 0) await runBatch(runner, 'bridge', bridge);
  if (sysctl.length > 0) {
    try {
      await runner.sysctlWrite(sysctl);
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw classifyIpFailure(`sysctl -w ${sysctl.join(' ')}`, e.stderr, { netns: runner.netns, cause: e });
    }
  }
  const observed = decodeDumps(await dumpNamespace(runner, p.scope, prior), p.scope);
  const again = makePlan(p.desired, observed, p.options);
  if (again.ops.length > 0) throw new ApplyNotConvergedError(formatPlan(again));
  return { applied: p.ops.length, observed };
}
