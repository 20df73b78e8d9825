import { z } from 'zod';

// Validated building blocks shared by every schema in fabrik (CRs, config files, FRR intent,
// CNI configs): one definition of each range and name rule, one wording of each error.

/** Linux interface names: 1-15 bytes (IFNAMSIZ-1), no '/', ':', whitespace; never '.' or '..'. */
export const InterfaceName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,15}$/, 'must be 1-15 characters of A-Z a-z 0-9 _ . - (the kernel limit is 15)')
  .refine((s) => s !== '.' && s !== '..', 'must not be "." or ".."');

/** A VRF name: an interface name (the VRF device carries it). */
export const VrfName = InterfaceName;

/** 802.1Q VLAN id that can be configured on a link: 1-4094. */
export const VlanId = z.number().int().min(1).max(4094);

/** A VXLAN network identifier: 1-16777215 (24 bits). */
export const Vni = z.number().int().min(1).max(16_777_215);

/** A BGP AS number (4-byte). */
export const Asn = z.number().int().min(1).max(4_294_967_295);

/** A kernel routing table id usable for a VRF (not 0, local 255, main 254, default 253). */
export const RouteTableId = z
  .number()
  .int()
  .min(1)
  .max(4_294_967_295)
  .refine((t) => t < 253 || t > 255, 'tables 253-255 are reserved by the kernel');

/** An IPv4 or IPv6 address without prefix length. */
export const IpAddress = z.union([z.ipv4(), z.ipv6()]);

/** A network in CIDR notation without host bits set (10.0.0.0/8, not 10.0.0.1/8). */
export const Cidr = z
  .union([z.cidrv4(), z.cidrv6()])
  .refine((c) => !hasHostBits(c), 'has host bits set (use the network address)');

/** An interface address in CIDR notation; host bits are expected (10.0.0.1/24). */
export const InterfaceAddress = z.union([z.cidrv4(), z.cidrv6()]);

/** True when the address part of a CIDR has bits set beyond its prefix length. */
export function hasHostBits(cidr: string): boolean {
  const [addr = '', lenText = ''] = cidr.split('/');
  const bits = toBits(addr);
  const len = Number(lenText);
  return bits.slice(len).includes('1');
}

function toBits(addr: string): string {
  if (addr.includes(':')) {
    const [head = '', tail = ''] = addr.split('::');
    const h = head ? head.split(':') : [];
    const t = addr.includes('::') ? (tail ? tail.split(':') : []) : [];
    const groups = addr.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
    return groups
      .map((g) =>
        parseInt(g || '0', 16)
          .toString(2)
          .padStart(16, '0'),
      )
      .join('');
  }
  return addr
    .split('.')
    .map((o) => Number(o).toString(2).padStart(8, '0'))
    .join('');
}
