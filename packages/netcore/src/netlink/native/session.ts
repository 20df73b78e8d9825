import {
  KERNEL_MODULE_OF_KIND,
  KernelFeatureMissingError,
  KernelRejectedError,
  LinkNotFoundError,
  ObjectExistsError,
} from '../errors.js';
import type { NetlinkBatchOp } from '../batch.js';
import type { PlanOp } from '../plan-ops.js';
import {
  IFINFOMSG_LEN,
  IFLA_EXT_MASK,
  IFLA_IFNAME,
  RTEXT_FILTER_SKIP_STATS,
  RTM_DELLINK,
  RTM_GETLINK,
  RTM_NEWLINK,
} from './constants.js';
import { releaseRequest, type NativeRequest } from './encode-link.js';
import { openSocketIn } from './namespace.js';
import { NetlinkErrno, type NetlinkSocket } from './socket.js';

const EEXIST = 17;
const ENODEV = 19;
const EOPNOTSUPP = 95;

/** What an error names besides the operation: the link kind being created, the link it is about, the plan item. */
export interface RequestContext {
  readonly linkKind?: string;
  readonly linkName?: string;
  readonly op?: PlanOp | NetlinkBatchOp;
}

/**
 * The kernel's refusal as netcore's typed error, named after the operation (the equivalent
 * iproute2 command): EEXIST -> ObjectExistsError, ENODEV -> LinkNotFoundError, an unknown link
 * kind -> KernelFeatureMissingError (with the module to load), anything else -> KernelRejectedError
 * with errno's text and the kernel's extended ACK message.
 */
export function typedError(
  operation: string,
  e: NetlinkErrno,
  netns: string | undefined,
  context: RequestContext,
): Error {
  const options = { cause: e };
  if (
    e.errno === EOPNOTSUPP &&
    context.linkKind !== undefined &&
    (e.extack === undefined || /Unknown device type/i.test(e.extack))
  )
    return new KernelFeatureMissingError(
      context.linkKind,
      KERNEL_MODULE_OF_KIND[context.linkKind] ?? context.linkKind,
      operation,
      options,
    );
  if (e.errno === ENODEV) return new LinkNotFoundError(context.linkName ?? '', netns, options);
  if (e.errno === EEXIST) return new ObjectExistsError(operation, e.kernelMessage, options);
  return new KernelRejectedError(operation, e.kernelMessage, context.op, options);
}

/**
 * One socket in one namespace for the span of a verb or an apply, with the link indexes it has
 * looked up (messages refer to masters, parents and output devices by index). A socket per span,
 * not per handle: a namespace deleted and created again under the same name is the new one.
 */
export class NativeSession {
  private readonly indexes = new Map<string, number>();

  private constructor(
    readonly netns: string | undefined,
    readonly socket: NetlinkSocket,
  ) {}

  static open(netns: string | undefined): NativeSession {
    return new NativeSession(netns, openSocketIn(netns));
  }

  /** The index of link `name` (LinkNotFoundError when it does not exist). */
  ifindexOf = (name: string): number => {
    const known = this.indexes.get(name);
    if (known !== undefined) return known;
    try {
      const m = this.socket.query(RTM_GETLINK, (b) =>
        b
          .header(IFINFOMSG_LEN, () => undefined)
          .str(IFLA_IFNAME, name)
          .u32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS),
      );
      const index = m.payload.readInt32LE(4);
      this.indexes.set(name, index);
      return index;
    } catch (e) {
      if (e instanceof NetlinkErrno && e.errno === ENODEV)
        throw new LinkNotFoundError(name, this.netns, { cause: e });
      throw e;
    }
  };

  /** Sends `request` (built lazily, so that a missing link it names fails as that) and waits for the ACK. */
  run(operation: string, build: () => NativeRequest, context: RequestContext = {}): void {
    const request = build();
    try {
      this.socket.request(request.type, request.flags, request.fill);
    } catch (e) {
      if (e instanceof NetlinkErrno) throw typedError(operation, e, this.netns, context);
      throw e;
    } finally {
      releaseRequest(request);
      // Links come and go and change names with link requests: look indexes up afresh.
      if (request.type === RTM_NEWLINK || request.type === RTM_DELLINK) this.indexes.clear();
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** Runs `fn` with a session in `netns`, closed afterwards. */
export function withSession<T>(netns: string | undefined, fn: (s: NativeSession) => T): T {
  const s = NativeSession.open(netns);
  try {
    return fn(s);
  } finally {
    s.close();
  }
}
