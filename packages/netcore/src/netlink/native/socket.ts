import { DUMP_ATTEMPTS } from '../observe.js';
import { DumpInterruptedError } from '../errors.js';
import {
  AF_NETLINK,
  NETLINK_EXT_ACK,
  NETLINK_GET_STRICT_CHK,
  NETLINK_ROUTE,
  NLM_F_ACK,
  NLM_F_ACK_TLVS,
  NLM_F_DUMP,
  NLM_F_DUMP_INTR,
  NLM_F_REQUEST,
  NLMSG_DONE,
  NLMSG_ERROR,
  NLMSG_HDRLEN,
  NLMSGERR_ATTR_MSG,
  SOCK_CLOEXEC,
  SOCK_RAW,
  SOL_NETLINK,
} from './constants.js';
import { libc, type Libc } from './libc.js';
import { MessageBuilder, attrStr, parseAttrs, splitMessages, type NetlinkMessage } from './wire.js';

const MSG_DONTWAIT = 0x40;
/** NETLINK_CAP_ACK: an error message carries the header of the failed request, not its payload. */
const NETLINK_CAP_ACK = 10;
/** Big enough for any rtnetlink datagram (the kernel fills dump datagrams up to 32 KiB). */
const RECEIVE_BUFFER = 64 * 1024;

/** What the kernel answered to a request it refused. */
export class NetlinkErrno extends Error {
  override readonly name = 'NetlinkErrno';
  constructor(
    /** The positive errno (`EEXIST` = 17). */
    readonly errno: number,
    /** strerror's text, then the kernel's extended ACK message when it sent one. */
    readonly kernelMessage: string,
    readonly extack: string | undefined,
  ) {
    super(kernelMessage);
  }
}

/** A request: the message type and flags, and what fills its headers and attributes. */
export type Request = (b: MessageBuilder) => void;

/**
 * One NETLINK_ROUTE socket. Requests are synchronous: rtnetlink handles a request inside the
 * sender's `sendto` and queues the answer before it returns, and produces each further datagram
 * of a dump inside the reader's `recv`, so no call here waits on anything but the kernel's own
 * work. The socket stays in the namespace it was opened in (see namespace.ts).
 */
export class NetlinkSocket {
  private seq = Math.floor(Math.random() * 0x7fffffff);
  private readonly rx = Buffer.alloc(RECEIVE_BUFFER);
  private closed = false;
  /** How long {@link next} waits for a datagram; -1: until one comes. */
  private waitMs = -1;

  private constructor(
    private readonly c: Libc,
    readonly fd: number,
  ) {}

  /** Opens a socket in the calling thread's current namespace, optionally joined to multicast `groups` (a bitmask). */
  static open(groups = 0): NetlinkSocket {
    const c = libc();
    const fd = c.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) throw systemError(c, 'socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)');
    const one = Buffer.alloc(4);
    one.writeInt32LE(1);
    // Extended ACK messages name what the kernel disliked; strict checking makes it honour the
    // filters of a dump request. Older kernels lack them: optional, failures ignored.
    for (const opt of [NETLINK_EXT_ACK, NETLINK_CAP_ACK, NETLINK_GET_STRICT_CHK])
      c.setsockopt(fd, SOL_NETLINK, opt, one, 4);
    const addr = Buffer.alloc(12);
    addr.writeUInt16LE(AF_NETLINK, 0);
    addr.writeUInt32LE(groups >>> 0, 8);
    if (c.bind(fd, addr, addr.length) < 0) {
      const e = systemError(c, 'bind(AF_NETLINK)');
      c.close(fd);
      throw e;
    }
    return new NetlinkSocket(c, fd);
  }

  private send(type: number, flags: number, fill: Request): number {
    if (this.closed) throw new Error('netlink socket used after close()');
    const b = new MessageBuilder(type, flags | NLM_F_REQUEST);
    fill(b);
    this.seq = (this.seq + 1) >>> 0;
    const msg = b.finish(this.seq);
    if (this.c.sendto(this.fd, msg, msg.length, 0, null, 0) < 0) throw systemError(this.c, 'sendto(netlink)');
    return this.seq;
  }

  private receive(): NetlinkMessage[] {
    for (;;) {
      const n = Number(this.c.recv(this.fd, this.rx, this.rx.length, 0));
      // A copy: the messages outlive the next datagram, which reuses the receive buffer.
      if (n >= 0) return splitMessages(Buffer.from(this.rx.subarray(0, n)));
      const errno = this.c.errno();
      // EINTR: a signal arrived during recv; ENOBUFS: multicast overflow on this socket (not ours to report here).
      if (errno !== 4 && errno !== 105) throw systemError(this.c, 'recv(netlink)');
    }
  }

  /** Sends a request with NLM_F_ACK and returns once the kernel acknowledged it; NetlinkErrno when refused. */
  request(type: number, flags: number, fill: Request): void {
    const seq = this.send(type, flags | NLM_F_ACK, fill);
    for (;;) {
      for (const m of this.receive()) {
        if (m.seq !== seq || m.type !== NLMSG_ERROR) continue;
        const err = this.errorOf(m);
        if (err) throw err;
        return;
      }
    }
  }

  /** A request answered by one message (RTM_GETLINK of one link); NetlinkErrno when refused. */
  query(type: number, fill: Request): NetlinkMessage {
    const seq = this.send(type, 0, fill);
    for (;;) {
      for (const m of this.receive()) {
        if (m.seq !== seq) continue;
        if (m.type !== NLMSG_ERROR) return m;
        const err = this.errorOf(m);
        if (err) throw err;
      }
    }
  }

  /**
   * A dump: every message of the answer (NLMSG_DONE excluded). A dump the kernel flags as
   * interrupted (NLM_F_DUMP_INTR: the table changed while it was read) is taken again, up to
   * DUMP_ATTEMPTS times, then DumpInterruptedError naming `what`.
   */
  dump(what: string, type: number, fill: Request): NetlinkMessage[] {
    for (let attempt = 1; ; attempt++) {
      const { messages, interrupted } = this.dumpOnce(type, fill);
      if (!interrupted) return messages;
      if (attempt >= DUMP_ATTEMPTS) throw new DumpInterruptedError(what, attempt);
    }
  }

  private dumpOnce(type: number, fill: Request): { messages: NetlinkMessage[]; interrupted: boolean } {
    const seq = this.send(type, NLM_F_DUMP, fill);
    const messages: NetlinkMessage[] = [];
    let interrupted = false;
    for (;;) {
      for (const m of this.receive()) {
        if (m.seq !== seq) continue;
        if ((m.flags & NLM_F_DUMP_INTR) !== 0) interrupted = true;
        if (m.type === NLMSG_DONE) return { messages, interrupted };
        if (m.type === NLMSG_ERROR) {
          const err = this.errorOf(m);
          if (err) throw err;
          continue;
        }
        messages.push(m);
      }
    }
  }

  /**
   * The next datagram's messages (multicast subscribers), or none after the wait set by
   * {@link setReceiveTimeout}. The wait runs on a thread of the pool; the read itself runs here,
   * where errno can be read (koffi's errno is this thread's, not the pool's).
   */
  async next(): Promise<NetlinkMessage[]> {
    // -1: poll failed on the pool's thread (EINTR, as a rule), whose errno is not readable here.
    if ((await this.c.pollReadable(this.fd, this.waitMs)) <= 0) return [];
    const buf = Buffer.alloc(RECEIVE_BUFFER);
    const n = Number(this.c.recv(this.fd, buf, buf.length, MSG_DONTWAIT));
    if (n < 0) {
      const errno = this.c.errno();
      // EAGAIN: nothing after all; EINTR; ENOBUFS: the kernel dropped events this socket had no
      // room for (a monitor goes on, as `ip monitor` does).
      if (errno === 11 || errno === 4 || errno === 105) return [];
      throw systemError(this.c, 'recv(netlink)');
    }
    return splitMessages(buf.subarray(0, n));
  }

  /** Makes {@link next} return empty-handed after `ms` without a datagram (the monitor's chance to notice stop()). */
  setReceiveTimeout(ms: number): void {
    this.waitMs = ms;
  }

  private errorOf(m: NetlinkMessage): NetlinkErrno | undefined {
    const code = m.payload.readInt32LE(0);
    if (code === 0) return undefined;
    const errno = -code;
    // With NETLINK_CAP_ACK the failed request follows as its header alone; then the TLVs.
    let extack: string | undefined;
    if ((m.flags & NLM_F_ACK_TLVS) !== 0)
      extack = attrStr(parseAttrs(m.payload, 4 + NLMSG_HDRLEN).get(NLMSGERR_ATTR_MSG));
    const text = this.c.strerror(errno);
    return new NetlinkErrno(errno, extack ? `${text} (${extack})` : text, extack);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.c.close(this.fd);
  }
}

/** A failed system call as an Error carrying errno's name and text. */
export function systemError(c: Libc, call: string): Error {
  const errno = c.errno();
  return Object.assign(new Error(`${call}: ${c.strerror(errno)}`), { errno });
}
