import { access } from 'node:fs/promises';
import { runCommand, isCommandError } from '@fabrik/netcore';
import { CniError, CniErrorCode } from './skel/index.js';

// Every kernel-side step of an attachment: the veth pair, the Pod end's addresses and routes, and
// what CHECK and GC read back. The Pod netns arrives as a path (CNI_NETNS), which `ip -n` does not
// accept (it takes names under /run/netns), so commands inside it run through `nsenter --net=PATH`;
// `ip link ... netns PATH` does accept a path.

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
 * Creates the veth pair: the host end (up, with its alias) in this netns and the Pod end, already
 * named CNI_IFNAME, directly inside the Pod netns (down until {@link configurePodInterface}).
 * Equivalent to: `ip link add HOST address MAC [mtu N] up alias A type veth peer name IF address MAC [mtu N] netns PATH`.
 */
export async function vethAdd(spec: VethSpec): Promise<void> {
  const mtu = spec.mtu !== undefined ? ['mtu', String(spec.mtu)] : [];
  try {
    await runCommand('ip', [
      'link', 'add', spec.hostName, 'address', spec.hostMac, ...mtu, 'up', 'alias', spec.alias,
      'type', 'veth', 'peer', 'name', spec.podName, 'address', spec.podMac, ...mtu, 'netns', spec.netnsPath,
    ]);
  } catch (e) {
    if (isCommandError(e) && /File exists/.test(e.stderr)) {
      throw new CniError(CniErrorCode.internal, `interface ${spec.hostName} (host) or ${spec.podName} (in ${spec.netnsPath}) already exists`, e.stderr.trim(), { cause: e });
    }
    throw e;
  }
}

/** Deletes a host link and with it its veth peer; a missing link is not an error. Equivalent to: `ip link del NAME`. */
export async function hostLinkDel(name: string): Promise<boolean> {
  try {
    await runCommand('ip', ['link', 'del', name]);
    return true;
  } catch (e) {
    if (isCommandError(e) && /Cannot find device|does not exist/.test(e.stderr)) return false;
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

export interface PodLinkState {
  readonly mac: string;
  readonly mtu: number;
  readonly up: boolean;
  readonly kind?: string;
  /** Addresses with prefix length. */
  readonly addresses: readonly string[];
}

/** Reads the Pod interface; undefined when it does not exist. Equivalent to: `ip -d -j addr show dev IF`. */
export async function podLinkGet(netnsPath: string, ifname: string): Promise<PodLinkState | undefined> {
  let out: string;
  try {
    out = (await runCommand('nsenter', [`--net=${netnsPath}`, 'ip', '-d', '-j', 'addr', 'show', 'dev', ifname])).stdout;
  } catch (e) {
    if (isCommandError(e) && /does not exist|Cannot find device/.test(e.stderr)) return undefined;
    throw e;
  }
  const [link] = JSON.parse(out) as Array<{
    address: string;
    mtu: number;
    flags: string[];
    linkinfo?: { info_kind?: string };
    addr_info?: Array<{ local: string; prefixlen: number }>;
  }>;
  if (!link) return undefined;
  return {
    mac: link.address,
    mtu: link.mtu,
    up: link.flags.includes('UP'),
    ...(link.linkinfo?.info_kind ? { kind: link.linkinfo.info_kind } : {}),
    addresses: (link.addr_info ?? []).map((a) => `${a.local}/${a.prefixlen}`),
  };
}

export interface HostVeth {
  readonly name: string;
  readonly mac: string;
  readonly alias?: string;
}

/** Host-side veths whose name starts with `prefix`. Equivalent to: `ip -j link show type veth`. */
export async function hostVethList(prefix: string): Promise<HostVeth[]> {
  const out = (await runCommand('ip', ['-j', 'link', 'show', 'type', 'veth'])).stdout;
  const links = JSON.parse(out || '[]') as Array<{ ifname: string; address: string; ifalias?: string }>;
  return links
    .filter((l) => l.ifname.startsWith(prefix))
    .map((l) => ({ name: l.ifname, mac: l.address, ...(l.ifalias ? { alias: l.ifalias } : {}) }));
}

/** The host link's MAC, or undefined when it does not exist. */
export async function hostLinkGet(name: string): Promise<HostVeth | undefined> {
  try {
    const out = (await runCommand('ip', ['-j', 'link', 'show', 'dev', name])).stdout;
    const [l] = JSON.parse(out) as Array<{ ifname: string; address: string; ifalias?: string }>;
    return l ? { name: l.ifname, mac: l.address, ...(l.ifalias ? { alias: l.ifalias } : {}) } : undefined;
  } catch (e) {
    if (isCommandError(e) && /does not exist|Cannot find device/.test(e.stderr)) return undefined;
    throw e;
  }
}
