import { z } from 'zod';
import { InterfaceName } from '@fabrik/api';
import { isCommandError, type RunResult } from '../exec/run.js';
import { classifyIpFailure } from './errors.js';
import { addrArgs, neighArgs, routeArgs } from './encode.js';
import type { NetnsRunner } from './exec.js';
import { AddressSpecSchema, NeighbourSpecSchema, RouteSpecSchema } from './objects.js';
import type { PlanOp } from './plan-ops.js';

// `ip -batch -`: several iproute2 commands in one process, fed on standard input. Used by apply
// (the lines of a plan) and by the handle's `batch` verb (typed operations given by the caller).

/**
 * One operation of {@link Netlink.batch}: the verb of the same name, as a line of one batch.
 * `addr*` take `dev` + `address`, `linkSetUp`/`linkSetDown` a `name`, `route*` a `route`,
 * `neigh*` a `neigh` (the same specs as the verbs).
 */
export const NetlinkBatchOpSchema = z.discriminatedUnion('op', [
  z.object({
    op: z.enum(['addrAdd', 'addrReplace', 'addrDel']),
    dev: InterfaceName,
    address: AddressSpecSchema,
  }),
  z.object({ op: z.enum(['linkSetUp', 'linkSetDown']), name: InterfaceName }),
  z.object({ op: z.enum(['routeAdd', 'routeReplace', 'routeDel']), route: RouteSpecSchema }),
  z.object({ op: z.enum(['neighAdd', 'neighReplace', 'neighDel']), neigh: NeighbourSpecSchema }),
]);
export type NetlinkBatchOp = z.infer<typeof NetlinkBatchOpSchema>;

export const NetlinkBatchOpsSchema = z.array(NetlinkBatchOpSchema);

const VERB = { Add: 'add', Replace: 'replace', Del: 'del' } as const;
const verbOf = (op: string): 'add' | 'replace' | 'del' =>
  VERB[op.replace(/^(addr|route|neigh)/, '') as keyof typeof VERB];

/** The iproute2 arguments of a batch operation (one batch line). Pure. */
export function batchOpArgs(op: NetlinkBatchOp): string[] {
  switch (op.op) {
    case 'addrAdd':
    case 'addrReplace':
    case 'addrDel':
      return addrArgs(verbOf(op.op), op.dev, op.address);
    case 'linkSetUp':
    case 'linkSetDown':
      return ['link', 'set', 'dev', op.name, op.op === 'linkSetUp' ? 'up' : 'down'];
    case 'routeAdd':
    case 'routeReplace':
    case 'routeDel':
      return routeArgs(verbOf(op.op), op.route);
    case 'neighAdd':
    case 'neighReplace':
    case 'neighDel':
      return neighArgs(verbOf(op.op), op.neigh);
  }
}

/** The device a batch operation is about (named by LinkNotFoundError when the kernel cannot find it). */
export function batchOpLink(op: NetlinkBatchOp): string | undefined {
  if ('dev' in op) return op.dev;
  if ('name' in op) return op.name;
  if ('route' in op) return op.route.dev;
  return op.neigh.dev;
}

/** Lines of one batch and the operation each line came from (same index). */
export interface BatchLines<Op> {
  readonly lines: readonly string[];
  readonly ops: readonly Op[];
}

export interface RunBatchOptions<Op> {
  /** Options before `-batch -` (`-j -d` for a batch whose `show` lines are parsed). */
  readonly flags?: readonly string[];
  /** Last lines that are no operations (apply's verification dumps, `addr show` ...). */
  readonly trailer?: readonly string[];
  /** Link kind and name an operation is about, for the error of its failing line. */
  readonly contextOf?: (op: Op) => { linkKind?: string; linkName?: string };
}

/**
 * Runs `ip|bridge [-n NS] [FLAGS] -batch -` with the lines on standard input (no file, no shell)
 * and resolves with its output. iproute2 stops at the first failing line and reports it
 * as `Command failed -:N`: the error (see {@link classifyIpFailure}) names that line as the
 * operation and carries its `op`. Lines before it stay applied.
 */
export async function runBatch<Op extends PlanOp | NetlinkBatchOp>(
  runner: NetnsRunner,
  tool: 'ip' | 'bridge',
  batch: BatchLines<Op>,
  options: RunBatchOptions<Op> = {},
): Promise<RunResult> {
  const input = [...batch.lines, ...(options.trailer ?? [])].join('\n') + '\n';
  try {
    return await runner[tool]([...(options.flags ?? []), '-batch', '-'], input);
  } catch (e) {
    if (!isCommandError(e)) throw e;
    const failed = /Command failed -:(\d+)/.exec(e.stderr);
    const index = failed?.[1] ? Number(failed[1]) - 1 : -1;
    const op = batch.ops[index];
    const line = batch.lines[index];
    throw classifyIpFailure(line === undefined ? `${tool} -batch -` : `${tool} ${line}`, e.stderr, {
      netns: runner.netns,
      ...(op === undefined ? {} : { op, ...options.contextOf?.(op) }),
      cause: e,
    });
  }
}
