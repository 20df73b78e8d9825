import { isIP } from 'node:net';
import { AF_INET, AF_INET6 } from './constants.js';

// Addresses between the kernel's bytes and the text iproute2 prints (glibc's inet_ntop), so
// that an object observed natively compares equal to the same object observed through `ip -j`.

/** IPv4 or IPv6 bytes as inet_ntop writes them: compressed, lower case. */
export function ipText(b: Buffer): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (b.length !== 16) throw new RangeError(`an address of ${b.length} bytes is neither IPv4 nor IPv6`);
  const words = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  // The longest run of at least two zero words becomes `::` (the first of equal runs).
  let best = { base: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { base: i, len: j - i };
    i = j;
  }
  if (best.len < 2) best = { base: -1, len: 0 };
  // glibc prints an IPv4-compatible or -mapped address with its last 32 bits dotted.
  const embedsV4 = best.base === 0 && (best.len === 6 || (best.len === 5 && words[5] === 0xffff));
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === best.base) {
      out += i === 0 ? '::' : ':';
      i += best.len - 1;
      continue;
    }
    if (embedsV4 && i === 6) return `${out}${ipText(b.subarray(12, 16))}`;
    out += (words[i] as number).toString(16) + (i < 7 ? ':' : '');
  }
  return out;
}

/** Text address to the kernel's bytes and family. */
export function ipBytes(text: string): { family: typeof AF_INET | typeof AF_INET6; bytes: Buffer } {
  const v = isIP(text);
  if (v === 4) return { family: AF_INET, bytes: Buffer.from(text.split('.').map(Number)) };
  if (v !== 6) throw new RangeError(`${JSON.stringify(text)} is not an IP address`);
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string): number[] =>
    s === ''
      ? []
      : s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a = 0, c = 0, d = 0, e = 0] = g.split('.').map(Number);
          return [(a << 8) | c, (d << 8) | e];
        });
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = Buffer.alloc(16);
  words.forEach((w, i) => bytes.writeUInt16BE(w, i * 2));
  return { family: AF_INET6, bytes };
}

/** `ADDRESS/LEN` (or a bare address: a host prefix) split into bytes and prefix length. */
export function cidrBytes(cidr: string): { family: number; bytes: Buffer; prefixLen: number } {
  const [addr = '', len] = cidr.split('/');
  const { family, bytes } = ipBytes(addr);
  return { family, bytes, prefixLen: len === undefined ? bytes.length * 8 : Number(len) };
}

/** A hardware address as iproute2 prints it: lower-case hex pairs joined by colons. */
export const macText = (b: Buffer): string => [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');

export const macBytes = (mac: string): Buffer => Buffer.from(mac.split(':').map((x) => parseInt(x, 16)));
