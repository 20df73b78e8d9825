import { ApplyNotConvergedError, InvalidDesiredStateError } from '../errors.js';
import { batchLine, encodeOp, formatPlan } from '../encode.js';
import { plan as makePlan } from '../plan.js';
import type { ApplyResult } from '../apply.js';
import type { Plan, PlanOp } from '../plan-ops.js';
import {
  bridgeSetRequest,
  linkAddRequest,
  linkAddrGenModeRequest,
  linkDelRequest,
  linkSetRequest,
  portSetRequest,
  type NativeRequest,
} from './encode-link.js';
import { addrRequest, fdbRequest, neighRequest, routeRequest } from './encode-objects.js';
import { setSysctls } from './sysctl.js';
import { observeNative } from './observe.js';
import { NativeSession, type RequestContext } from './session.js';

// A plan applied through rtnetlink: one request per operation on one socket, in plan order,
// each acknowledged before the next (the kernel's answer names the failing operation itself,
// where a batch needed `Command failed -:N` mapped back). Then the namespace is observed again
// and planned afresh: anything left is ApplyNotConvergedError, as with iproute2.

/** The request of one plan operation and what its errors name; `undefined` for sysctls (see sysctl.ts). */
function requestOf(
  s: NativeSession,
  op: PlanOp,
): { build: () => NativeRequest; context: RequestContext } | undefined {
  const ifindex = s.ifindexOf;
  switch (op.op) {
    case 'route-del':
      return { build: () => routeRequest('del', op.route, ifindex), context: { op } };
    case 'route-replace':
      return { build: () => routeRequest('replace', op.route, ifindex), context: { op } };
    case 'addr-del':
      return { build: () => addrRequest('del', op.dev, op.address, ifindex), context: { op } };
    case 'addr-add':
      return {
        build: () => addrRequest(op.replace ? 'replace' : 'add', op.dev, op.address, ifindex),
        context: { op },
      };
    case 'link-del':
      return { build: () => linkDelRequest(op.name), context: { op, linkName: op.name } };
    case 'link-add':
      return {
        build: () => linkAddRequest(op.spec, ifindex),
        context: { op, linkName: op.spec.name, linkKind: op.spec.kind },
      };
    case 'link-addrgenmode':
      return { build: () => linkAddrGenModeRequest(op.name, op.mode), context: { op, linkName: op.name } };
    case 'link-set':
      return {
        build: () => linkSetRequest(op.name, op.changes, ifindex),
        context: { op, linkName: op.name },
      };
    case 'bridge-set':
      return { build: () => bridgeSetRequest(op.name, op.options), context: { op, linkName: op.name } };
    case 'port-set':
      return { build: () => portSetRequest(op.name, op.flags), context: { op, linkName: op.name } };
    case 'neigh-replace':
      return { build: () => neighRequest('replace', op.neigh, ifindex), context: { op } };
    case 'fdb-add':
      return { build: () => fdbRequest('add', op.entry, ifindex), context: { op } };
    case 'sysctl-set':
      return undefined;
  }
}

/** The iproute2 command an operation is equivalent to: how errors name it. */
export function operationText(op: PlanOp): string {
  const e = encodeOp(op);
  if (e.tool === 'sysctl') return `sysctl -w ${e.assignments.join(' ')}`;
  try {
    return `${e.tool} ${batchLine(e.args)}`;
  } catch (err) {
    if (err instanceof InvalidDesiredStateError) return `${e.tool} ${e.args.join(' ')}`;
    throw err;
  }
}

/** Runs `p`'s operations in order; sysctls after the rest, as iproute2's apply did. */
export async function runPlanOps(s: NativeSession, ops: readonly PlanOp[]): Promise<void> {
  for (const op of ops) {
    const r = requestOf(s, op);
    if (r !== undefined) s.run(operationText(op), r.build, r.context);
  }
  for (const op of ops) if (op.op === 'sysctl-set') await setSysctls(s, op.dev, op.sysctls);
}

/** Applies a plan in `netns` and verifies it (see the module comment). */
export async function applyPlanNative(netns: string | undefined, p: Plan): Promise<ApplyResult> {
  if (p.ops.length === 0) return { applied: 0, observed: undefined };
  const s = NativeSession.open(netns);
  try {
    await runPlanOps(s, p.ops);
    const observed = observeNative(s.socket, netns, p.scope);
    const again = makePlan(p.desired, observed, p.options);
    if (again.ops.length > 0) throw new ApplyNotConvergedError(formatPlan(again));
    return { applied: p.ops.length, observed };
  } finally {
    s.close();
  }
}
