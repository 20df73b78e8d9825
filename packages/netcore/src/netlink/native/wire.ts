import { NLMSG_HDRLEN } from './constants.js';

// Netlink's wire format: a 16-byte nlmsghdr, a fixed family header, then attributes (rtattr /
// nlattr: u16 length, u16 type, value, padded to 4 bytes), attributes nested inside attributes.
// Host byte order throughout (the kernel's), except where a family says otherwise: this module
// only runs where the kernel is Linux on x64/arm64, both little-endian.

const align4 = (n: number): number => (n + 3) & ~3;
/** Attribute types carry two flag bits (NLA_F_NESTED, NLA_F_NET_BYTEORDER) above the type. */
const NLA_TYPE_MASK = 0x3fff;
const NLA_F_NESTED = 0x8000;

/** Builds one netlink message: header, family header, attributes (nests by callback). */
export class MessageBuilder {
  private buf = Buffer.alloc(256);
  private len = NLMSG_HDRLEN;

  constructor(
    private readonly type: number,
    private readonly flags: number,
  ) {}

  private reserve(n: number): number {
    const at = this.len;
    const need = at + align4(n);
    if (need > this.buf.length) {
      const grown = Buffer.alloc(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    this.len = need;
    return at;
  }

  /** The family header (ifinfomsg, rtmsg ...), written by `fill` into a zeroed buffer of `size` bytes. */
  header(size: number, fill: (b: Buffer) => void): this {
    const at = this.reserve(size);
    fill(this.buf.subarray(at, at + size));
    return this;
  }

  bytes(type: number, value: Uint8Array): this {
    const at = this.reserve(4 + value.length);
    this.buf.writeUInt16LE(4 + value.length, at);
    this.buf.writeUInt16LE(type, at + 2);
    this.buf.set(value, at + 4);
    return this;
  }

  u8(type: number, value: number): this {
    return this.bytes(type, Uint8Array.of(value));
  }

  u16(type: number, value: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(value);
    return this.bytes(type, b);
  }

  /** A u16 in network byte order (vxlan's port, vlan's protocol). */
  be16(type: number, value: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(value);
    return this.bytes(type, b);
  }

  u32(type: number, value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value >>> 0);
    return this.bytes(type, b);
  }

  /** A NUL-terminated string (IFLA_IFNAME, IFLA_INFO_KIND ...). */
  str(type: number, value: string): this {
    return this.bytes(type, Buffer.from(`${value}\0`, 'utf8'));
  }

  /** A nested attribute whose children `fill` adds. */
  nest(type: number, fill: (b: this) => void): this {
    const at = this.reserve(4);
    this.buf.writeUInt16LE(type | NLA_F_NESTED, at + 2);
    fill(this);
    this.buf.writeUInt16LE(this.len - at, at);
    return this;
  }

  /** The finished message with its sequence number. */
  finish(seq: number): Buffer {
    this.buf.writeUInt32LE(this.len, 0);
    this.buf.writeUInt16LE(this.type, 4);
    this.buf.writeUInt16LE(this.flags, 6);
    this.buf.writeUInt32LE(seq >>> 0, 8);
    this.buf.writeUInt32LE(0, 12);
    return this.buf.subarray(0, this.len);
  }
}

/** One message as received. */
export interface NetlinkMessage {
  readonly type: number;
  readonly flags: number;
  readonly seq: number;
  /** Everything after nlmsghdr. */
  readonly payload: Buffer;
}

/** Splits one datagram into its messages; a truncated tail is an error (never silently dropped). */
export function splitMessages(datagram: Buffer): NetlinkMessage[] {
  const out: NetlinkMessage[] = [];
  let at = 0;
  while (at + NLMSG_HDRLEN <= datagram.length) {
    const len = datagram.readUInt32LE(at);
    if (len < NLMSG_HDRLEN || at + len > datagram.length)
      throw new RangeError(
        `netlink message of length ${len} at offset ${at} exceeds the datagram (${datagram.length})`,
      );
    out.push({
      type: datagram.readUInt16LE(at + 4),
      flags: datagram.readUInt16LE(at + 6),
      seq: datagram.readUInt32LE(at + 8),
      payload: datagram.subarray(at + NLMSG_HDRLEN, at + len),
    });
    at += align4(len);
  }
  return out;
}

/** Attributes of one level by type (the last of a repeated type wins); values without their header. */
export type Attrs = ReadonlyMap<number, Buffer>;

/** Parses the attributes in `buf` from `offset` (after a family header) to its end. */
export function parseAttrs(buf: Buffer, offset = 0): Attrs {
  const out = new Map<number, Buffer>();
  let at = offset;
  while (at + 4 <= buf.length) {
    const len = buf.readUInt16LE(at);
    if (len < 4 || at + len > buf.length) break;
    out.set(buf.readUInt16LE(at + 2) & NLA_TYPE_MASK, buf.subarray(at + 4, at + len));
    at += align4(len);
  }
  return out;
}

/** A NUL-terminated string attribute. */
export const attrStr = (v: Buffer | undefined): string | undefined => {
  if (v === undefined) return undefined;
  const nul = v.indexOf(0);
  return v.toString('utf8', 0, nul === -1 ? v.length : nul);
};
export const attrU8 = (v: Buffer | undefined): number | undefined =>
  v === undefined || v.length < 1 ? undefined : v.readUInt8(0);
export const attrU16 = (v: Buffer | undefined): number | undefined =>
  v === undefined || v.length < 2 ? undefined : v.readUInt16LE(0);
export const attrBe16 = (v: Buffer | undefined): number | undefined =>
  v === undefined || v.length < 2 ? undefined : v.readUInt16BE(0);
export const attrU32 = (v: Buffer | undefined): number | undefined =>
  v === undefined || v.length < 4 ? undefined : v.readUInt32LE(0);
export const attrS32 = (v: Buffer | undefined): number | undefined =>
  v === undefined || v.length < 4 ? undefined : v.readInt32LE(0);
