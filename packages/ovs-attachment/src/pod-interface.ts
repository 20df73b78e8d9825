import { readFile, stat } from 'node:fs/promises';
import type { z } from 'zod';
import {
  AddressSpecSchema,
  RouteSpecSchema,
  createNetlink,
  isKernelRejectedError,
  isLinkNotFoundError,
  isObjectExistsError,
  type NetlinkBatchOp,
  type ObservedRoute,
  type RouteSpec,
} from '@fabrik/netcore/netlink';
import { runCommand } from '@fabrik/netcore';
import { IpAddress, SysctlSafeInterfaceName } from '@fabrik/api';
import {
  describeFileType,
  fileSystemType,
  fsStep,
  isFsStepError,
  CniError,
  CniErrorCode,
} from '@fabrik/cni-skel';
import { marksAttachment } from './names.js';

// Every kernel-side step of an attachment, through netcore's netlink handles (a netns path such as
// CNI_NETNS works there; nothing here starts iproute2 or sysctl itself): the veth pair, the
// arp_notify sysctl of the Pod end, its addresses + link up + routes (with the 1.1.0 route
// attributes mtu, advmss and scope) as ONE `ip -batch` in the Pod netns (the handle's `batch`
// verb) instead of a process per object, which matters for a plugin that runs once per Pod, and
// what CHECK and GC read back.

/** The MTU the kernel gives a veth when none is asked for (ether_setup). */
export const VETH_DEFAULT_MTU = 1500;

export interface VethSpec {
  readonly hostName: string;
  readonly hostMac: string;
  readonly podName: string;
  readonly podMac: string;
  readonly netnsPath: string;
  readonly mtu: number;
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

/** statfs f_type of nsfs, the file system of namespace files (/proc/PID/ns/*, their bind mounts). */
const NSFS_MAGIC = 0x6e736673;

/**
 * Throws code 4 naming CNI_NETNS unless the path is a namespace file: a missing path, a regular
 * file, a directory are refused before anything is created. Whether it is a *network* namespace
 * only the kernel can tell (setns checks the type): see {@link assertNetworkNamespaceAfter}.
 */
export async function assertNamespaceFile(netnsPath: string): Promise<void> {
  const refuse = (why: string, cause?: unknown) =>
    new CniError(CniErrorCode.invalidEnvironment, `CNI_NETNS ${netnsPath} ${why}`, undefined, { cause });
  let type: number;
  try {
    type = await fileSystemType(netnsPath);
  } catch (e) {
    if (isFsStepError(e) && e.errno === 'ENOENT') throw refuse('does not exist', e);
    throw refuse(`cannot be read: ${(e as Error).message}`, e);
  }
  if (type !== NSFS_MAGIC) {
    const st = await fsStep('stat', netnsPath, () => stat(netnsPath)).catch(() => undefined);
    throw refuse(`is not a network namespace (${st ? describeFileType(st) : 'not a namespace file'})`);
  }
}

/**
 * After the kernel refused to put the Pod end into CNI_NETNS: code 4 when that is because the
 * namespace file is of another type (mnt, uts, ...), otherwise the original error. Asking only
 * then keeps the check off the path of every successful ADD.
 */
async function assertNetworkNamespaceAfter(netnsPath: string, failure: unknown): Promise<never> {
  const isNet = await runCommand('nsenter', [`--net=${netnsPath}`, 'true'], { timeoutMs: 5000 }).then(
    () => true,
    () => false,
  );
  if (!isNet)
    throw new CniError(
      CniErrorCode.invalidEnvironment,
      `CNI_NETNS ${netnsPath} is not a network namespace (a namespace of another type)`,
      undefined,
      { cause: failure },
    );
  throw failure;
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
      mtu: spec.mtu,
      peer: { name: spec.podName, mac: spec.podMac, netns: spec.netnsPath, mtu: spec.mtu },
    });
  } catch (e) {
    if (isKernelRejectedError(e)) await assertNetworkNamespaceAfter(spec.netnsPath, e);
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
 * Deletes the host veth `name` (and with it the Pod end) only when its ownership mark names this
 * container and interface. `foreign`: a link of that name exists but is not this attachment's,
 * and is left alone.
 */
export async function attachmentVethDel(
  name: string,
  containerId: string,
  ifname: string,
): Promise<'deleted' | 'absent' | 'foreign'> {
  // The mark from sysfs when it lists the link (one process less per DEL), else from iproute2.
  let alias = await sysfsAlias(name);
  if (alias === undefined) {
    const link = await hostLinkGet(name);
    if (!link) return 'absent';
    alias = link.alias;
  }
  if (!marksAttachment(alias || undefined, containerId, ifname)) return 'foreign';
  return (await hostLinkDel(name)) ? 'deleted' : 'absent';
}

/**
 * The ifalias of the host link `name` as sysfs shows it ('' for none), read without starting a
 * process: `/sys/class/net/NAME/ifalias` of this network namespace (agent-host runs with the host
 * network, where a container's read-only /sys is the host's). Undefined when sysfs does not list
 * the link or cannot be read; the caller then asks the kernel through iproute2, which decides.
 */
async function sysfsAlias(name: string): Promise<string | undefined> {
  if (!SysctlSafeInterfaceName.safeParse(name).success) return undefined;
  try {
    return (await readFile(`/sys/class/net/${name}/ifalias`, 'utf8')).replace(/\n$/, '');
  } catch {
    return undefined;
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
  podRouteSpecs(ifname, addresses, routes).forEach((route) => ops.push({ op: 'routeAdd', route }));
  return ops;
}

/**
 * The kernel routes of the Pod's CNI routes, as ADD adds them and CHECK expects them: on the Pod
 * interface, a route without `gw` through the gateway of its family. Pure; a bad value is a CNI
 * error naming the IPAM field (`routes[1].gw`).
 */
export function podRouteSpecs(
  ifname: string,
  addresses: readonly PodAddress[],
  routes: readonly PodRoute[],
): RouteSpec[] {
  return routes.map((r, i) => {
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
    return ipamValue(RouteSpecSchema, route, `routes[${i}]`, CNI_ROUTE_FIELD);
  });
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

/** The Pod interface as CHECK reads it, with the routes through it. */
export interface PodInterfaceState {
  /** Undefined when the interface does not exist. */
  readonly link: PodLinkState | undefined;
  /** The routes through the interface, every table, both families. */
  readonly routes: readonly ObservedRoute[];
}

/**
 * Reads the Pod interface and the routes through it in one process (a process start is the
 * largest part of a CHECK in the lab kernel; the Pod netns holds few links). Equivalent to:
 * `ip -j -d addr show` + `ip -j route show table all` in the Pod netns, as one `ip -batch`.
 */
export async function podInterfaceState(netnsPath: string, ifname: string): Promise<PodInterfaceState> {
  const observed = await createNetlink({ netns: netnsPath }).observe({ routes: true });
  const link = observed.links.find((l) => l.spec.name === ifname);
  return {
    link: link && {
      mac: link.spec.mac ?? '',
      mtu: link.spec.mtu,
      up: link.spec.up,
      kind: link.spec.kind,
      addresses: (link.addresses ?? []).map((a) => a.address),
    },
    routes: (observed.routes ?? []).filter((r) => r.dev === ifname),
  };
}

export interface HostVeth {
  readonly name: string;
  readonly mtu: number;
  readonly alias?: string;
}

/** Host-side veths whose name starts with `prefix`. Equivalent to: `ip -j -d addr show`. */
export async function hostVethList(prefix: string): Promise<HostVeth[]> {
  return (await createNetlink().linkList())
    .filter((l) => l.spec.kind === 'veth' && l.spec.name.startsWith(prefix))
    .map((l) => ({ name: l.spec.name, mtu: l.spec.mtu, ...(l.alias ? { alias: l.alias } : {}) }));
}

/** The host link, or undefined when it does not exist. */
export async function hostLinkGet(name: string): Promise<HostVeth | undefined> {
  try {
    const l = await createNetlink().linkGet(name);
    return { name: l.spec.name, mtu: l.spec.mtu, ...(l.alias ? { alias: l.alias } : {}) };
  } catch (e) {
    if (isLinkNotFoundError(e)) return undefined;
    throw e;
  }
}

/**
 * Whether the kernel route `observed` is `want` (from {@link podRouteSpecs}): same destination,
 * table, TOS (0: CNI routes have none), device and gateway, and the metric, MTU, advmss and scope
 * that `want` sets. Pure.
 */
export function routeIs(want: RouteSpec, observed: ObservedRoute): boolean {
  const dst = (d: string) =>
    d.endsWith('/0') ? 'default' : d.includes('/') ? d : `${d}/${d.includes(':') ? 128 : 32}`;
  const family = want.dst.includes(':') ? 'inet6' : 'inet';
  return (
    dst(want.dst.toLowerCase()) === observed.dst.toLowerCase() &&
    family === observed.family &&
    (want.table ?? 254) === observed.table &&
    observed.tos === 0 &&
    want.dev === observed.dev &&
    want.via?.toLowerCase() === observed.via?.toLowerCase() &&
    (want.metric === undefined || want.metric === observed.metric) &&
    (want.mtu === undefined || want.mtu === observed.mtu) &&
    (want.advmss === undefined || want.advmss === observed.advmss) &&
    (want.scope === undefined || want.scope === observed.scope)
  );
}
