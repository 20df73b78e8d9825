import { FabrikError, errorGuard } from '../errors.js';
import type { PlanOp } from './plan-ops.js';
import type { NetlinkBatchOp } from './batch.js';

// Typed errors of the netlink layer: FabrikError subclasses with a `code` callers can branch on
// and an `isX()` guard; causes are always passed on.

/** The desired state (or an argument of a verb) is invalid; `path` names the field. */
export class InvalidDesiredStateError extends FabrikError<'INVALID_DESIRED_STATE'> {
  override readonly name = 'InvalidDesiredStateError';
  constructor(
    /** Field path, for example `links[3].vni`. */
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('INVALID_DESIRED_STATE', `invalid desired state at ${path || '(root)'}: ${reason}`, options);
  }
}

/** The named link does not exist in the namespace. */
export class LinkNotFoundError extends FabrikError<'LINK_NOT_FOUND'> {
  override readonly name = 'LinkNotFoundError';
  constructor(
    readonly linkName: string,
    readonly netns: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'LINK_NOT_FOUND',
      `link ${JSON.stringify(linkName)} not found${netns ? ` in netns ${netns}` : ''}`,
      options,
    );
  }
}

/** An exclusive add (`linkAdd`, `addrAdd`, `routeAdd`) found the object already there. */
export class ObjectExistsError extends FabrikError<'OBJECT_EXISTS'> {
  override readonly name = 'ObjectExistsError';
  constructor(
    readonly operation: string,
    readonly kernelMessage: string,
    options?: { cause?: unknown },
  ) {
    super('OBJECT_EXISTS', `${operation}: already exists (${kernelMessage})`, options);
  }
}

/** The kernel refused an operation; `operation` is the iproute2 command, `op` the plan item or batch operation when there is one. */
export class KernelRejectedError extends FabrikError<'KERNEL_REJECTED'> {
  override readonly name = 'KernelRejectedError';
  constructor(
    readonly operation: string,
    readonly kernelMessage: string,
    /** The operation of the failing batch line: a plan item (apply) or a {@link NetlinkBatchOp} (`batch`). */
    readonly op?: PlanOp | NetlinkBatchOp,
    options?: { cause?: unknown },
  ) {
    super('KERNEL_REJECTED', `kernel rejected \`${operation}\`: ${kernelMessage}`, options);
  }
}

/** The kernel lacks a link type (its module is not loaded or not built). */
export class KernelFeatureMissingError extends FabrikError<'KERNEL_FEATURE_MISSING'> {
  override readonly name = 'KernelFeatureMissingError';
  constructor(
    /** The kernel link kind, for example `vrf`. */
    readonly linkKind: string,
    /** The kernel module that provides it, for example `vrf`, `8021q`. */
    readonly module: string,
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(
      'KERNEL_FEATURE_MISSING',
      `kernel feature missing: link type ${linkKind} needs kernel module ${module} (modprobe ${module}); while running \`${operation}\``,
      options,
    );
  }
}

/** A link of the desired name exists but is not owned by this owner: it is never modified. */
export class OwnershipConflictError extends FabrikError<'OWNERSHIP_CONFLICT'> {
  override readonly name = 'OwnershipConflictError';
  constructor(
    readonly linkName: string,
    readonly foundAlias: string | undefined,
    readonly expectedMark: string,
  ) {
    super(
      'OWNERSHIP_CONFLICT',
      `link ${JSON.stringify(linkName)} exists but is not owned by ${expectedMark} (ifalias ${JSON.stringify(foundAlias ?? '')}); fabrik leaves foreign interfaces alone`,
    );
  }
}

/** After applying, the namespace still differs from the desired state. */
export class ApplyNotConvergedError extends FabrikError<'APPLY_NOT_CONVERGED'> {
  override readonly name = 'ApplyNotConvergedError';
  constructor(
    /** Operations a fresh plan still wants (rendered as batch lines). */
    readonly remaining: readonly string[],
  ) {
    super(
      'APPLY_NOT_CONVERGED',
      `applied, but the namespace has not converged; still pending: ${remaining.slice(0, 5).join('; ')}${remaining.length > 5 ? ` (+${remaining.length - 5} more)` : ''}`,
    );
  }
}

/** iproute2 printed JSON this layer does not understand (a different iproute2 version?). */
export class NetlinkDecodeError extends FabrikError<'NETLINK_DECODE'> {
  override readonly name = 'NetlinkDecodeError';
  constructor(
    readonly what: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('NETLINK_DECODE', `cannot decode ${what}: ${reason}`, options);
  }
}

/**
 * iproute2 kept saying "Dump was interrupted and may be inconsistent" (the kernel's
 * NLM_F_DUMP_INTR: the table changed while it was dumped) for every attempt: planning from such a
 * dump could delete or recreate what only seemed missing.
 */
export class DumpInterruptedError extends FabrikError<'DUMP_INTERRUPTED'> {
  override readonly name = 'DumpInterruptedError';
  constructor(
    readonly what: string,
    readonly attempts: number,
  ) {
    super(
      'DUMP_INTERRUPTED',
      `${what}: the dump was interrupted by concurrent changes ${attempts} times in a row`,
    );
  }
}

export const isInvalidDesiredStateError = errorGuard(InvalidDesiredStateError);
export const isDumpInterruptedError = errorGuard(DumpInterruptedError);
export const isLinkNotFoundError = errorGuard(LinkNotFoundError);
export const isObjectExistsError = errorGuard(ObjectExistsError);
export const isKernelRejectedError = errorGuard(KernelRejectedError);
export const isKernelFeatureMissingError = errorGuard(KernelFeatureMissingError);
export const isOwnershipConflictError = errorGuard(OwnershipConflictError);
export const isApplyNotConvergedError = errorGuard(ApplyNotConvergedError);
export const isNetlinkDecodeError = errorGuard(NetlinkDecodeError);

/** Kernel module that provides each link kind (what to `modprobe` when the kernel says "Unknown device type"). */
export const KERNEL_MODULE_OF_KIND: Readonly<Record<string, string>> = {
  vrf: 'vrf',
  vlan: '8021q',
  dummy: 'dummy',
  vxlan: 'vxlan',
  bridge: 'bridge',
  veth: 'veth',
  macvlan: 'macvlan',
};

/**
 * Turns the stderr of a failed iproute2 command into the matching typed error.
 * `linkName` is the device the command was about (for "Cannot find device").
 */
export function classifyIpFailure(
  operation: string,
  stderr: string,
  context: {
    linkKind?: string;
    linkName?: string;
    netns?: string;
    op?: PlanOp | NetlinkBatchOp;
    cause?: unknown;
  },
): Error {
  const message = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('Command failed'))
    .join('; ');
  const options = { cause: context.cause };
  if (/Unknown device type/i.test(message) && context.linkKind) {
    return new KernelFeatureMissingError(
      context.linkKind,
      KERNEL_MODULE_OF_KIND[context.linkKind] ?? context.linkKind,
      operation,
      options,
    );
  }
  const notFound =
    /Cannot find device "([^"]*)"|Device "([^"]*)" does not exist|argument "([^"]*)" is wrong: Device does not exist/.exec(
      message,
    );
  if (notFound)
    return new LinkNotFoundError(
      notFound[1] ?? notFound[2] ?? notFound[3] ?? context.linkName ?? '',
      context.netns,
      options,
    );
  if (/File exists|already assigned/.test(message)) return new ObjectExistsError(operation, message, options);
  return new KernelRejectedError(operation, message || stderr.trim(), context.op, options);
}
