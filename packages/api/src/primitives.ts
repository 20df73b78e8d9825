import { z } from 'zod';

// Validated building blocks shared by every schema in fabrik (CRs, config files, FRR intent,
// CNI configs): one definition of each range and name rule, one wording of each error.

/** Directory names below net/{ipv4,ipv6}/conf/ that are not a plain interface of the caller's. */
const SYSCTL_RESERVED_NAMES: ReadonlySet<string> = new Set(['all', 'default', 'lo']);

/** Linux interface names: 1-15 bytes (IFNAMSIZ-1), no '/', ':', whitespace; never '.' or '..'. */
export const InterfaceName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,15}$/, 'must be 1-15 characters of A-Z a-z 0-9 _ . - (the kernel limit is 15)')
  .refine((s) => s !== '.' && s !== '..', 'must not be "." or ".."');

/**
 * An interface name that may become a segment of a sysctl path (`net/ipv4/conf/NAME/...`). The
 * kernel keeps namespace-wide knobs beside the per-interface ones: `all` and `default` would turn
 * a per-interface setting into one for every interface, `lo` is the loopback's.
 */
export const SysctlSafeInterfaceName = InterfaceName.refine(
  (s) => !SYSCTL_RESERVED_NAMES.has(s),
  'must not be "all", "default" or "lo" (they name namespace-wide sysctls or the loopback)',
);

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

/**
 * A MAC address a link may carry: six colon-separated octets (either case in, lower case out, as
 * iproute2 prints them), unicast (the group bit of the first octet clear) and not all zero.
 */
export const MacAddress = z
  .string()
  .regex(/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/, 'must be a MAC address like 02:00:00:00:00:01')
  .transform((m) => m.toLowerCase())
  .refine((m) => (parseInt(m.slice(0, 2), 16) & 1) === 0, 'must be a unicast MAC address (first octet even)')
  .refine((m) => m !== '00:00:00:00:00:00', 'must not be the all-zero MAC address');

/**
 * A named network namespace (`ip netns add NAME`): 1-64 of A-Z a-z 0-9 _ . -, starting with a
 * letter or digit. Stricter than iproute2: the name also becomes a file under /run/netns and an
 * FRR pathspace (`-N NAME`, /etc/frr/NAME), so it must be safe as both.
 */
export const NetnsName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be 1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit',
  );

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
