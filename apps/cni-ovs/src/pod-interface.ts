import { access } from 'node:fs/promises';
import type { z } from 'zod';
import {
  AddressSpecSchema,
  RouteSpecSchema,
  createNetlink,
  isLinkNotFoundError,
  isObjectExistsError,
  type NetlinkBatchOp,
} from '@fabrik/netcore/netlink';
import { IpAddress } from '@fabrik/api';
import { CniError, CniErrorCode } from './skel/index.js';

// Every kernel-side step of an attachment, through netcore's netlink handles (a netns path such as
// CNI_NETNS works there; nothing here starts iproute2 or sysctl itself): the veth pair, the
// arp_notify sysctl of the Pod end, its addresses + link up + routes (with the 1.1.0 route
// attributes mtu, advmss and scope) as ONE `ip -batch` in the Pod netns (the handle's `batch`
// verb) instead of a process per object, which matters for a plugin that runs once per Pod, and
// what CHECK and GC read back.

export interface VethSpec {
  readonly hostName: string;
  readonly hostMac: string;
  readonly podName: string;
  readonly podMac: string;
  readonly netnsPath: string;
  readonly mtu?: number;
  readonly alias: string;
}

export interface PodAddress {
  /** Address with prefix length, 10.0.0.5/24. */
  readonly cidr: string;
  readonly gateway?: string;
}

export interface PodRoute {
  readonly dst: string;
  readonly gw?: string;
  readonly mtu?: number;
  readonly advmss?: number;
  readonly priority?: number;
  readonly table?: number;
  readonly scope?: number;
}

/** Throws unless the netns path exists (code 4 names CNI_NETNS). */
export async function assertNetnsExists(netnsPath: string): Promise<void> {
  try {
    await access(netnsPath);
  } catch (e) {
    throw new CniError(CniErrorCode.invalidEnvironment, `CNI_NETNS ${netnsPath} does not exist`, undefined, {
      cause: e,
    });
  }
}

/**
 * Creates the veth pair: the host end (up, marked with its alias) in this netns and the Pod end,
 * already named CNI_IFNAME, directly inside the Pod netns (down until {@link configurePodInterface}).
 * Equivalent to: `ip link add HOST address MAC [mtu N] type veth peer name IF address MAC [mtu N] netns PATH; ip link set HOST alias A up`.
 */
export async function vethAdd(spec: VethSpec): Promise<void> {
  try {
    await createNetlink().linkAdd({
      kind: 'veth',
      name: spec.hostName,
      mac: spec.hostMac,
      up: true,
      alias: spec.alias,
      ...(spec.mtu !== undefined ? { mtu: spec.mtu } : {}),
      peer: {
        name: spec.podName,
        mac: spec.podMac,
        netns: spec.netnsPath,
        ...(spec.mtu !== undefined ? { mtu: spec.mtu } : {}),
      },
    });
  } catch (e) {
    if (isObjectExistsError(e)) {
      throw new CniError(
        CniErrorCode.internal,
        `interface ${spec.hostName} (host) or ${spec.podName} (in ${spec.netnsPath}) already exists`,
        (e as Error).message,
        { cause: e },
      );
    }
    throw e;
  }
}

/** Deletes a host link and with it its veth peer; false when it did not exist. Equivalent to: `ip link del NAME`. */
export async function hostLinkDel(name: string): Promise<boolean> {
  try {
    await createNetlink().linkDel(name);
    return true;
  } catch (e) {
    if (isLinkNotFoundError(e)) return false;
    throw e;
  }
}

/**
 * Turns on arp_notify for the Pod end, so that bringing it up announces its IPv4 addresses with a
 * gratuitous ARP (IPv6 sends an unsolicited neighbour advertisement by itself). Runs while the
 * link is still down. Equivalent to: `sysctl -w net.ipv4.conf.IF.arp_notify=1` in the Pod netns.
 */
export async function enableArpNotify(netnsPath: string, ifname: string): Promise<void> {
  await createNetlink({ netns: netnsPath }).sysctlSet(ifname, { arpNotify: 1 });
}

/**
 * Configures the Pod end in one process: addresses, link up, routes (see {@link podInterfaceOps}).
 * Equivalent to: `ip -batch -` with `addr add ...`, `link set dev IF up`, `route add ...` in the Pod netns.
 */
export async function configurePodInterface(
  netnsPath: string,
  ifname: string,
  addresses: readonly PodAddress[],
  routes: readonly PodRoute[],
): Promise<void> {
  await createNetlink({ netns: netnsPath }).batch(podInterfaceOps(ifname, addresses, routes));
}

/** netcore's route fields by the names of a CNI route (`gw`, `priority`); the others are the same. */
const CNI_ROUTE_FIELD: Readonly<Record<string, string>> = { via: 'gw', metric: 'priority' };

/**
 * The Pod end's configuration as netlink batch operations, in order: addresses (IPv6 without DAD,
 * so they are usable at once), link up, then routes (a route without `gw` uses the gateway of its
 * family). Pure. The values come from the IPAM plugin's result and are checked here with netcore's
 * own schemas, so that a bad one is a CNI error naming the IPAM field (`routes[1].gw`) rather
 * than a netlink error naming a batch operation.
 */
export function podInterfaceOps(
  ifname: string,
  addresses: readonly PodAddress[],
  routes: readonly PodRoute[],
): NetlinkBatchOp[] {
  const ops: NetlinkBatchOp[] = [];
  addresses.forEach((a, i) => {
    if (a.gateway !== undefined) ipamValue(IpAddress, a.gateway, `ips[${i}].gateway`);
    const address = ipamValue(
      AddressSpecSchema,
      { address: a.cidr, ...(a.cidr.includes(':') ? { nodad: true } : {}) },
      `ips[${i}]`,
    );
    ops.push({ op: 'addrAdd', dev: ifname, address });
  });
  ops.push({ op: 'linkSetUp', name: ifname });
  routes.forEach((r, i) => {
    const v6 = r.dst.includes(':');
    const gw = r.gw ?? addresses.find((a) => a.gateway && a.cidr.includes(':') === v6)?.gateway;
    const route = {
      dst: r.dst,
      dev: ifname,
      ...(gw !== undefined ? { via: gw } : {}),
      ...(r.mtu !== undefined ? { mtu: r.mtu } : {}),
      ...(r.advmss !== undefined ? { advmss: r.advmss } : {}),
      ...(r.priority !== undefined ? { metric: r.priority } : {}),
      ...(r.table !== undefined ? { table: r.table } : {}),
      ...(r.scope !== undefined ? { scope: r.scope } : {}),
    };
    ops.push({ op: 'routeAdd', route: ipamValue(RouteSpecSchema, route, `routes[${i}]`, CNI_ROUTE_FIELD) });
  });
  return ops;
}

/** Parses one value of the IPAM result; a bad one throws a CNI error naming its field and value. */
function ipamValue<T>(
  schema: z.ZodType<T>,
  value: unknown,
  field: string,
  fieldNames: Readonly<Record<string, string>> = {},
): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue?.path[0];
  const bad = typeof key === 'string' ? (value as Record<string, unknown>)[key] : value;
  const name = typeof key === 'string' ? `${field}.${fieldNames[key] ?? key}` : field;
  throw new CniError(
    CniErrorCode.internal,
    `IPAM result: invalid ${name} ${JSON.stringify(bad)}: ${issue?.message ?? 'invalid'}`,
  );
}

export interface PodLinkState {
  readonly mac: string;
  readonly mtu: number;
  readonly up: boolean;
  readonly kind: string;
  /** Addresses with prefix length. */
  readonly addresses: readonly string[];
}

/** Reads the Pod interface; undefined when it does not exist. Equivalent to: `ip -d -j addr show dev IF` in the Pod netns. */
export async function podLinkGet(netnsPath: string, ifname: string): Promise<PodLinkState | undefined> {
  try {
    const link = await createNetlink({ netns: netnsPath }).linkGet(ifname);
    return {
      mac: link.spec.mac ?? '',
      mtu: link.spec.mtu,
      up: link.spec.up,
      kind: link.spec.kind,
      addresses: (link.addresses ?? []).map((a) => a.address),
    };
  } catch (e) {
    if (isLinkNotFoundError(e)) return undefined;
    throw e;
  }
}

export interface HostVeth {
  readonly name: string;
  readonly alias?: string;
}

/** Host-side veths whose name starts with `prefix`. Equivalent to: `ip -j -d addr show`. */
export async function hostVethList(prefix: string): Promise<HostVeth[]> {
  return (await createNetlink().linkList())
    .filter((l) => l.spec.kind === 'veth' && l.spec.name.startsWith(prefix))
    .map((l) => ({ name: l.spec.name, ...(l.alias ? { alias: l.alias } : {}) }));
}

/** The host link, or undefined when it does not exist. */
export async function hostLinkGet(name: string): Promise<HostVeth | undefined> {
  try {
    const l = await createNetlink().linkGet(name);
    return { name: l.spec.name, ...(l.alias ? { alias: l.alias } : {}) };
  } catch (e) {
    if (isLinkNotFoundError(e)) return undefined;
    throw e;
  }
}
