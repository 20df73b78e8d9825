import type { PlanOp } from './plan.js';
import type { NetlinkBatchOp } from './batch.js';

// Typed errors of the netlink layer. Every class has a `code` callers can branch on and an
// `isX()` guard; causes are always passed on.

/** The desired state (or an argument of a verb) is invalid; `path` names the field. */
export class InvalidDesiredStateError extends Error {
  readonly code = 'INVALID_DESIRED_STATE' as const;
  constructor(
    /** Field path, for example `links[3].vni`. */
    readonly path: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`invalid desired state at ${path || '(root)'}: ${reason}`, options);
    this.name = 'InvalidDesiredStateError';
  }
}

/** The named link does not exist in the namespace. */
export class LinkNotFoundError extends Error {
  readonly code = 'LINK_NOT_FOUND' as const;
  constructor(
    readonly linkName: string,
    readonly netns: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`link ${JSON.stringify(linkName)} not found${netns ? ` in netns ${netns}` : ''}`, options);
    this.name = 'LinkNotFoundError';
  }
}

/** An exclusive add (`linkAdd`, `addrAdd`, `routeAdd`) found the object already there. */
export class ObjectExistsError extends Error {
  readonly code = 'OBJECT_EXISTS' as const;
  constructor(
    readonly operation: string,
    readonly kernelMessage: string,
    options?: { cause?: unknown },
  ) {
    super(`${operation}: already exists (${kernelMessage})`, options);
    this.name = 'ObjectExistsError';
  }
}

/** The kernel refused an operation; `operation` is the iproute2 command, `op` the plan item or batch operation when there is one. */
export class KernelRejectedError extends Error {
  readonly code = 'KERNEL_REJECTED' as const;
  constructor(
    readonly operation: string,
    readonly kernelMessage: string,
    /** The operation of the failing batch line: a plan item (apply) or a {@link NetlinkBatchOp} (`batch`). */
    readonly op?: PlanOp | NetlinkBatchOp,
    options?: { cause?: unknown },
  ) {
    super(`kernel rejected \`${operation}\`: ${kernelMessage}`, options);
    this.name = 'KernelRejectedError';
  }
}

/** The kernel lacks a link type (its module is not loaded or not built). */
export class KernelFeatureMissingError extends Error {
  readonly code = 'KERNEL_FEATURE_MISSING' as const;
  constructor(
    /** The kernel link kind, for example `vrf`. */
    readonly linkKind: string,
    /** The kernel module that provides it, for example `vrf`, `8021q`. */
    readonly module: string,
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(
      `kernel feature missing: link type ${linkKind} needs kernel module ${module} (modprobe ${module}); while running \`${operation}\``,
      options,
    );
    this.name = 'KernelFeatureMissingError';
  }
}

/** A link of the desired name exists but is not owned by this owner: it is never modified. */
export class OwnershipConflictError extends Error {
  readonly code = 'OWNERSHIP_CONFLICT' as const;
  constructor(
    readonly linkName: string,
    readonly foundAlias: string | undefined,
    readonly expectedMark: string,
  ) {
    super(
      `link ${JSON.stringify(linkName)} exists but is not owned by ${expectedMark} (ifalias ${JSON.stringify(foundAlias ?? '')}); fabrik leaves foreign interfaces alone`,
    );
    this.name = 'OwnershipConflictError';
  }
}

/** After applying, the namespace still differs from the desired state. */
export class ApplyNotConvergedError extends Error {
  readonly code = 'APPLY_NOT_CONVERGED' as const;
  constructor(
    /** Operations a fresh plan still wants (rendered as batch lines). */
    readonly remaining: readonly string[],
  ) {
    super(
      `applied, but the namespace has not converged; still pending: ${remaining.slice(0, 5).join('; ')}${remaining.length > 5 ? ` (+${remaining.length - 5} more)` : ''}`,
    );
    this.name = 'ApplyNotConvergedError';
  }
}

/** iproute2 printed JSON this layer does not understand (a different iproute2 version?). */
export class NetlinkDecodeError extends Error {
  readonly code = 'NETLINK_DECODE' as const;
  constructor(
    readonly what: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot decode ${what}: ${reason}`, options);
    this.name = 'NetlinkDecodeError';
  }
}

export const isInvalidDesiredStateError = (e: unknown): e is InvalidDesiredStateError =>
  e instanceof InvalidDesiredStateError;
export const isLinkNotFoundError = (e: unknown): e is LinkNotFoundError => e instanceof LinkNotFoundError;
export const isObjectExistsError = (e: unknown): e is ObjectExistsError => e instanceof ObjectExistsError;
export const isKernelRejectedError = (e: unknown): e is KernelRejectedError =>
  e instanceof KernelRejectedError;
export const isKernelFeatureMissingError = (e: unknown): e is KernelFeatureMissingError =>
  e instanceof KernelFeatureMissingError;
export const isOwnershipConflictError = (e: unknown): e is OwnershipConflictError =>
  e instanceof OwnershipConflictError;
export const isApplyNotConvergedError = (e: unknown): e is ApplyNotConvergedError =>
  e instanceof ApplyNotConvergedError;
export const isNetlinkDecodeError = (e: unknown): e is NetlinkDecodeError => e instanceof NetlinkDecodeError;

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
