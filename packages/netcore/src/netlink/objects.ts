import { z } from 'zod';
import { InterfaceAddress, InterfaceName, IpAddress, MacAddress, Vni } from '@fabrik/api';
import { checkSysctlDevice } from './names.js';

/**
 * An interface address. `nodad` (IPv6 only) skips duplicate address detection, as an anycast
 * gateway needs; `noprefixroute` stops the kernel adding the route to the address's prefix (a
 * network manager that installs its own prefix route with a metric sets it).
 */
export const AddressSpecSchema = z
  .object({
    address: InterfaceAddress,
    nodad: z.boolean().optional(),
    noprefixroute: z.boolean().optional(),
  })
  .refine((a) => !a.nodad || a.address.includes(':'), {
    message: 'nodad applies to IPv6 addresses only',
    path: ['nodad'],
  });
export type AddressSpec = z.infer<typeof AddressSpecSchema>;

/** Route types fabrik manages. */
export const ROUTE_TYPES = ['unicast', 'blackhole', 'unreachable', 'prohibit'] as const;

/** Route scopes by the names iproute2 accepts (`/usr/share/iproute2/rt_scopes`); absent = global. */
export const ROUTE_SCOPES = { global: 0, site: 200, link: 253, host: 254, nowhere: 255 } as const;
export type RouteScopeName = keyof typeof ROUTE_SCOPES;

/**
 * Route protocols by the names iproute2 prints (`/usr/share/iproute2/rt_protos`): a route observed
 * with `protocol: 'dhcp'` is re-created with `proto 16`.
 */
export const ROUTE_PROTOCOLS: Readonly<Record<string, number>> = {
  unspec: 0,
  redirect: 1,
  kernel: 2,
  boot: 3,
  static: 4,
  gated: 8,
  ra: 9,
  mrt: 10,
  zebra: 11,
  bird: 12,
  dnrouted: 13,
  xorp: 14,
  ntk: 15,
  dhcp: 16,
  keepalived: 18,
  babel: 42,
  openr: 99,
  bgp: 186,
  isis: 187,
  ospf: 188,
  rip: 189,
  eigrp: 192,
};

/** The number of a route protocol as an observed route names it (a name or a number); undefined if unknown. */
export function routeProtocolNumber(protocol: string): number | undefined {
  if (/^[0-9]{1,3}$/.test(protocol)) return Number(protocol) <= 255 ? Number(protocol) : undefined;
  return Object.hasOwn(ROUTE_PROTOCOLS, protocol) ? ROUTE_PROTOCOLS[protocol] : undefined;
}

/** The numeric scope of a route (0 = global, the kernel's default for gateway routes). */
export const routeScopeNumber = (scope: number | RouteScopeName): number =>
  typeof scope === 'number' ? scope : ROUTE_SCOPES[scope];

/**
 * A route. `table` defaults to main (254). The kernel tells routes apart by table, destination,
 * `tos` and `metric` (default 0 for IPv4, 1024 for IPv6): two routes that differ in one of them
 * are two routes. `protocol` is the rtnetlink protocol number. `mtu` and
 * `advmss` are the route metrics of the same names (path MTU and TCP MSS advertised on this path);
 * `scope` a number 0-255 or an iproute2 scope name.
 */
export const RouteSpecSchema = z
  .object({
    dst: z.union([z.literal('default'), z.cidrv4(), z.cidrv6()]),
    type: z.enum(ROUTE_TYPES).optional(),
    table: z.number().int().min(1).max(4_294_967_295).optional(),
    dev: InterfaceName.optional(),
    via: IpAddress.optional(),
    src: IpAddress.optional(),
    /** Type of service (DS field), part of an IPv4 route's key like table, destination and metric. */
    tos: z
      .number()
      .int()
      .min(0)
      .max(255)
      .refine((t) => (t & 3) === 0, 'the two ECN bits (the low two) must be 0')
      .optional(),
    metric: z.number().int().min(0).max(4_294_967_295).optional(),
    protocol: z.number().int().min(0).max(255).optional(),
    mtu: z.number().int().min(68).max(65535).optional(),
    advmss: z.number().int().min(1).max(65535).optional(),
    scope: z
      .union([
        z.number().int().min(0).max(255),
        z.enum(Object.keys(ROUTE_SCOPES) as [RouteScopeName, ...RouteScopeName[]]),
      ])
      .optional(),
    /** Address family of a `default` route (other routes take it from `dst`). */
    family: z.enum(['inet', 'inet6']).optional(),
    /** The gateway is on the link even when no address's prefix covers it (`via` a /32 gateway). */
    onlink: z.boolean().optional(),
  })
  .refine((r) => (r.type ?? 'unicast') !== 'unicast' || r.dev !== undefined || r.via !== undefined, {
    message: 'a unicast route needs dev or via',
    path: ['dev'],
  })
  .refine((r) => (r.type ?? 'unicast') === 'unicast' || (r.dev === undefined && r.via === undefined), {
    message: 'blackhole/unreachable/prohibit routes take neither dev nor via',
    path: ['type'],
  });
export type RouteSpec = z.infer<typeof RouteSpecSchema>;

/** A static neighbour (ARP/NDP) entry. */
export const NeighbourSpecSchema = z.object({
  dev: InterfaceName,
  address: IpAddress,
  lladdr: MacAddress,
  state: z.enum(['permanent', 'noarp', 'reachable', 'stale']).optional(),
});
export type NeighbourSpec = z.infer<typeof NeighbourSpecSchema>;

/** The all-zero MAC: in a VXLAN device's FDB, the list of flood destinations. */
export const ZERO_MAC = '00:00:00:00:00:00';

/**
 * A static forwarding-database entry. `self` entries go into the device's own table (VXLAN:
 * `dst` = remote VTEP; the all-zero MAC is the flood list and is appended, not replaced);
 * otherwise into the table of the bridge the device is a port of.
 */
export const FdbSpecSchema = z.object({
  dev: InterfaceName,
  /** A unicast MAC, or the all-zero MAC of a VXLAN device's flood list. */
  mac: z.union([z.literal(ZERO_MAC), MacAddress], {
    error: 'must be a unicast MAC address like 02:00:00:00:00:01, or 00:00:00:00:00:00 (flood list)',
  }),
  dst: IpAddress.optional(),
  vni: Vni.optional(),
  self: z.boolean().optional(),
  state: z.enum(['permanent', 'static']).optional(),
});
export type FdbSpec = z.infer<typeof FdbSpecSchema>;

/** IPv6 address generation modes (`net.ipv6.conf.DEV.addr_gen_mode`), in kernel order. */
export const ADDR_GEN_MODES = ['eui64', 'none', 'stable_secret', 'random'] as const;
export type AddrGenMode = (typeof ADDR_GEN_MODES)[number];

/** Per-interface sysctls fabrik manages. */
export const InterfaceSysctlsSchema = z.object({
  /** net.ipv4.conf.DEV.arp_accept: 0 drop, 1 create neighbours from gratuitous ARP, 2 only in subnet. */
  arpAccept: z.number().int().min(0).max(2).optional(),
  /** net.ipv6.conf.DEV.accept_dad: 0 off, 1 on, 2 on and disable IPv6 on a duplicate. */
  acceptDad: z.number().int().min(0).max(2).optional(),
  /** net.ipv6.conf.DEV.addr_gen_mode. `none` stops the kernel creating link-local addresses. */
  addrGenMode: z.enum(ADDR_GEN_MODES).optional(),
  /** net.ipv4.conf.DEV.arp_notify: 1 sends a gratuitous ARP when the link comes up or its address changes. */
  arpNotify: z.number().int().min(0).max(1).optional(),
});
export type InterfaceSysctls = z.infer<typeof InterfaceSysctlsSchema>;

/** The sysctl file (slash form, so dots in names like `tr.100` survive) of each managed key. */
export const SYSCTL_KEYS: Readonly<Record<keyof InterfaceSysctls, (dev: string) => string>> = {
  arpAccept: (dev) => `net/ipv4/conf/${dev}/arp_accept`,
  acceptDad: (dev) => `net/ipv6/conf/${dev}/accept_dad`,
  addrGenMode: (dev) => `net/ipv6/conf/${dev}/addr_gen_mode`,
  arpNotify: (dev) => `net/ipv4/conf/${dev}/arp_notify`,
};

/** The managed sysctls written with `sysctl -w` (addr_gen_mode goes through `ip link set ... addrgenmode`). */
export const NUMERIC_SYSCTLS = ['arpAccept', 'acceptDad', 'arpNotify'] as const satisfies ReadonlyArray<
  keyof InterfaceSysctls
>;
export type NumericSysctls = Pick<InterfaceSysctls, (typeof NUMERIC_SYSCTLS)[number]>;

/** The numeric sysctl value of a setting. */
export function sysctlValue(key: keyof InterfaceSysctls, value: number | AddrGenMode): number {
  return key === 'addrGenMode' ? ADDR_GEN_MODES.indexOf(value as AddrGenMode) : (value as number);
}

/**
 * `sysctl -w` assignments (`net/ipv4/conf/DEV/arp_notify=1`) of the settings that are set. Pure.
 * Throws InvalidDesiredStateError for a `dev` that names a namespace-wide knob (`all`, `default`)
 * or the loopback.
 */
export function sysctlAssignments(dev: string, sysctls: InterfaceSysctls): string[] {
  checkSysctlDevice(dev);
  return (Object.keys(SYSCTL_KEYS) as Array<keyof InterfaceSysctls>)
    .filter((k) => sysctls[k] !== undefined)
    .map((k) => `${SYSCTL_KEYS[k](dev)}=${sysctlValue(k, sysctls[k] as number | AddrGenMode)}`);
}
