import { sysctlPrintedKey } from '../exec.js';
import { decodeSysctls, sysctlPaths, type ObserveScope, type ObservedState } from '../observe.js';
import type { ObservedLink } from '../decode/link.js';
import type { ObservedRoute } from '../decode/route.js';
import {
  AF_BRIDGE,
  AF_UNSPEC,
  IFADDRMSG_LEN,
  IFINFOMSG_LEN,
  IFLA_EXT_MASK,
  NDMSG_LEN,
  RTEXT_FILTER_SKIP_STATS,
  RTM_GETADDR,
  RTM_GETLINK,
  RTM_GETNEIGH,
  RTM_GETROUTE,
  RTMSG_LEN,
} from './constants.js';
import {
  decodeLinks,
  parseAddrMessage,
  parseLinkMessage,
  type AddrRecord,
  type RawLink,
} from './decode-link.js';
import { decodeFdbMessage, decodeNeighMessage, decodeRouteMessage } from './decode-route.js';
import { readSysctls } from './namespace.js';
import type { NetlinkSocket } from './socket.js';

// Observing a namespace through its own rtnetlink socket: one dump per object type, no process.
// The result is the model `observe` returns from iproute2's JSON (the differential tests hold the
// two to each other, link kind by link kind).

const familyHeader = (family: number) => (b: Buffer) => b.writeUInt8(family, 0);

/** Every link (RTM_GETLINK dump, statistics left out). */
export function dumpRawLinks(sock: NetlinkSocket): RawLink[] {
  return sock
    .dump('rtnetlink link dump', RTM_GETLINK, (b) =>
      b.header(IFINFOMSG_LEN, familyHeader(AF_UNSPEC)).u32(IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS),
    )
    .map((m) => parseLinkMessage(m.payload));
}

/** Addresses of both families by link index, in the kernel's order. */
export function dumpAddresses(sock: NetlinkSocket): Map<number, AddrRecord[]> {
  const out = new Map<number, AddrRecord[]>();
  for (const m of sock.dump('rtnetlink address dump', RTM_GETADDR, (b) =>
    b.header(IFADDRMSG_LEN, familyHeader(AF_UNSPEC)),
  )) {
    const { ifindex, record } = parseAddrMessage(m.payload);
    const list = out.get(ifindex) ?? [];
    list.push(record);
    out.set(ifindex, list);
  }
  return out;
}

/** Every link with its addresses: what `ip -j -d addr show` gives. */
export function observeLinks(sock: NetlinkSocket): ObservedLink[] {
  return decodeLinks(dumpRawLinks(sock), dumpAddresses(sock));
}

const namesOf = (links: readonly ObservedLink[]): Map<number, string> =>
  new Map(links.map((l) => [l.ifindex, l.spec.name]));

/** Routes of every table, both families; only those of `protocol` when given. */
export function observeRoutes(
  sock: NetlinkSocket,
  names: ReadonlyMap<number, string>,
  protocol?: number,
): ObservedRoute[] {
  const messages = sock.dump('rtnetlink route dump', RTM_GETROUTE, (b) =>
    b.header(RTMSG_LEN, (h) => {
      h.writeUInt8(AF_UNSPEC, 0);
      // With strict checking (NETLINK_GET_STRICT_CHK) the kernel filters by protocol itself.
      if (protocol !== undefined) h.writeUInt8(protocol, 5);
    }),
  );
  const wanted = protocol === undefined ? undefined : String(protocol);
  const out: ObservedRoute[] = [];
  for (const m of messages) {
    const r = decodeRouteMessage(m.payload, names);
    if (r === undefined) continue;
    if (wanted !== undefined && r.protocol !== wanted && m.payload.readUInt8(5) !== protocol) continue;
    out.push(r);
  }
  return out;
}

/**
 * Observes the namespace the socket lives in: links and addresses always, the rest as `scope`
 * asks; sysctls are read from /proc/sys inside `netns` (no process).
 */
export function observeNative(
  sock: NetlinkSocket,
  netns: string | undefined,
  scope: ObserveScope = {},
): ObservedState {
  const links = observeLinks(sock);
  const names = namesOf(links);
  const neighbours = scope.neighbours
    ? sock
        .dump('rtnetlink neighbour dump', RTM_GETNEIGH, (b) => b.header(NDMSG_LEN, familyHeader(AF_UNSPEC)))
        .flatMap((m) => decodeNeighMessage(m.payload, names) ?? [])
        // `ip neigh show` leaves out entries that are NOARP only (multicast, loopback) or have no state.
        .filter((n) => n.state.some((s) => s !== 'noarp'))
    : undefined;
  const fdb = scope.fdb
    ? sock
        .dump('rtnetlink fdb dump', RTM_GETNEIGH, (b) => b.header(NDMSG_LEN, familyHeader(AF_BRIDGE)))
        .flatMap((m) => decodeFdbMessage(m.payload, names) ?? [])
    : undefined;
  const devs = scope.sysctlsOf ?? [];
  let sysctls: ObservedState['sysctls'];
  if (devs.length > 0) {
    const values = readSysctls(netns, sysctlPaths(devs, scope.sysctlKeys));
    const text = [...values].map(([path, v]) => `${sysctlPrintedKey(path)} = ${v}`).join('\n');
    sysctls = decodeSysctls(text, devs);
  }
  return {
    links,
    routes: scope.routes ? observeRoutes(sock, names, scope.routeProtocol) : undefined,
    neighbours,
    fdb,
    sysctls,
  };
}
