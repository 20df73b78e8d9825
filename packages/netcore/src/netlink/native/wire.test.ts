import { describe, expect, it } from 'vitest';
import { cidrBytes, ipBytes, ipText, macBytes, macText } from './addr-text.js';
import { MessageBuilder, attrStr, attrU32, parseAttrs, splitMessages } from './wire.js';

describe('addresses between bytes and iproute2 text', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:0db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['fe80::', 'fe80::'],
    ['::', '::'],
    ['::1', '::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    ['FF05::100', 'ff05::100'],
  ])('%s reads back as %s', (text, printed) => {
    expect(ipText(ipBytes(text).bytes)).toBe(printed);
  });

  it('splits a CIDR, and takes a bare address as a host prefix', () => {
    expect(cidrBytes('10.0.0.0/8')).toMatchObject({ prefixLen: 8, bytes: Buffer.from([10, 0, 0, 0]) });
    expect(cidrBytes('fd00::5').prefixLen).toBe(128);
    expect(() => ipBytes('10.0.0.256')).toThrow(/not an IP address/);
  });

  it('formats MACs in lower case', () => {
    expect(macText(macBytes('02:AB:00:00:00:0f'))).toBe('02:ab:00:00:00:0f');
  });
});

describe('netlink messages', () => {
  it('writes nested attributes with their lengths and reads them back', () => {
    const msg = new MessageBuilder(16, 0x5)
      .header(16, (h) => h.writeInt32LE(7, 4))
      .str(3, 'br0')
      .nest(18, (li) => li.str(1, 'vxlan').nest(2, (d) => d.u32(1, 100)))
      .finish(42);
    const [m, ...rest] = splitMessages(msg);
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ type: 16, flags: 0x5, seq: 42 });
    expect(m!.payload.readInt32LE(4)).toBe(7);
    const attrs = parseAttrs(m!.payload, 16);
    expect(attrStr(attrs.get(3))).toBe('br0');
    const linkinfo = parseAttrs(attrs.get(18)!);
    expect(attrStr(linkinfo.get(1))).toBe('vxlan');
    expect(attrU32(parseAttrs(linkinfo.get(2)!).get(1))).toBe(100);
    // Every attribute is padded to 4 bytes: 'br0\0' fits, 'vxlan\0' takes 8.
    expect(msg.length % 4).toBe(0);
  });

  it('refuses a datagram whose message runs past its end', () => {
    const msg = new MessageBuilder(16, 0).str(3, 'x').finish(1);
    expect(() => splitMessages(msg.subarray(0, msg.length - 4))).toThrow(RangeError);
  });
});
