import { access } from 'node:fs/promises';
import { runCommand } from '@fabrik/netcore';
import { createNetlink, isLinkNotFoundError, isObjectExistsError } from '@fabrik/netcore/netlink';
import { InterfaceAddress, IpAddress } from '@fabrik/api';
import { CniError, CniErrorCode } from './skel/index.js';

// Every kernel-side step of an attachment: the veth pair, the Pod end's addresses and routes, and
// what CHECK and GC read back, through netcore's netlink handles (a netns path such as CNI_NETNS
// works there). Two steps still call iproute2 directly because netcore has no verb for them yet:
// the arp_notify sysctl, and addresses + link up + routes (with the 1.1.0 route attributes mtu,
// advmss and scope) as ONE `ip -batch` in the Pod netns instead of a process per object, which
// matters for a plugin that runs once per Pod.

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
    throw new CniError(CniErrorCode.invalidEnvironment, `CNI_NETNS ${netnsPath} does not exist`, undefined, { cause: e });
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
      peer: { name: spec.podName, mac: spec.podMac, netns: spec.netnsPath, ...(spec.mtu !== undefined ? { mtu: spec.mtu } : {}) },
    });
  } catch (e) {
    if (isObjectExistsError(e)) {
      throw new CniError(CniErrorCode.internal, `interface ${spec.hostName} (host) or ${spec.podName} (in ${spec.netnsPath}) already exists`, (e as Error).message, { cause: e });
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
  // sysctl spells a '.' inside a name component as '/'.
  await runCommand('nsenter', [`--net=${netnsPath}`, 'sysctl', '-q', '-w', `net.ipv4.conf.${ifname.replaceAll('.', '/')}.arp_notify=1`]);
}

/**
 * Configures the Pod end in one `ip -batch`: addresses (IPv6 without DAD, so they are usable at
 * once), link up, then routes (a route without `gw` uses the gateway of its family).
 * Equivalent to: `ip addr add ...; ip link set IF up; ip route add ...` in the Pod netns.
 */
export async function configurePodInterface(netnsPath: string, ifname: string, addresses: readonly PodAddress[], routes: readonly PodRoute[]): Promise<void> {
  checkIpamValues(addresses, routes);
  const lines: string[] = [];
  for (const a of addresses) lines.push(`addr add ${a.cidr} dev ${ifname}${a.cidr.includes(':') ? ' nodad' : ''}`);
  lines.push(`link set ${ifname} up`);
  for (const r of routes) {
    const v6 = r.dst.includes(':');
    const gw = r.gw ?? addresses.find((a) => a.gateway && a.cidr.includes(':') === v6)?.gateway;
    const parts = [`route add ${r.dst}`];
    if (gw) parts.push(`via ${gw}`);
    parts.push(`dev ${ifname}`);
    if (r.mtu !== undefined) parts.push(`mtu ${r.mtu}`);
    if (r.advmss !== undefined) parts.push(`advmss ${r.advmss}`);
    if (r.priority !== undefined) parts.push(`metric ${r.priority}`);
    if (r.table !== undefined) parts.push(`table ${r.table}`);
    if (r.scope !== undefined) parts.push(`scope ${r.scope}`);
    lines.push(parts.join(' '));
  }
  await runCommand('nsenter', [`--net=${netnsPath}`, 'ip', '-batch', '-'], { input: lines.join('\n') + '\n' });
}

/**
 * The addresses and routes come from the IPAM plugin's output and end up in `ip -batch` lines:
 * check each value's shape (no spaces or newlines can slip through) and name what is wrong.
 */
function checkIpamValues(addresses: readonly PodAddress[], routes: readonly PodRoute[]): void {
  const bad = (what: string, value: unknown) => new CniError(CniErrorCode.internal, `IPAM result: invalid ${what} ${JSON.stringify(value)}`);
  const uint = (n: number | undefined) => n === undefined || (Number.isInteger(n) && n >= 0 && n <= 4_294_967_295);
  for (const a of addresses) {
    if (!InterfaceAddress.safeParse(a.cidr).success) throw bad('ips[].address', a.cidr);
    if (a.gateway !== undefined && !IpAddress.safeParse(a.gateway).success) throw bad('ips[].gateway', a.gateway);
  }
  for (const r of routes) {
    if (!InterfaceAddress.safeParse(r.dst).success) throw bad('routes[].dst', r.dst);
    if (r.gw !== undefined && !IpAddress.safeParse(r.gw).success) throw bad('routes[].gw', r.gw);
    if (![r.mtu, r.advmss, r.priority, r.table, r.scope].every(uint)) throw bad('route attribute of', r.dst);
  }
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
    return { mac: link.spec.mac ?? '', mtu: link.spec.mtu, up: link.spec.up, kind: link.spec.kind, addresses: (link.addresses ?? []).map((a) => a.address) };
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
