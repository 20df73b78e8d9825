import {
  ZERO_MAC,
  routeScopeNumber,
  type AddressSpec,
  type FdbSpec,
  type NeighbourSpec,
  type RouteSpec,
} from '../objects.js';
import { cidrBytes, ipBytes, macBytes } from './addr-text.js';
import {
  AF_BRIDGE,
  AF_INET,
  AF_INET6,
  IFA_ADDRESS,
  IFA_F_NODAD,
  IFA_F_NOPREFIXROUTE,
  IFA_FLAGS,
  IFA_LOCAL,
  IFADDRMSG_LEN,
  NDA_DST,
  NDA_LLADDR,
  NDMSG_LEN,
  NLM_F_APPEND,
  NLM_F_CREATE,
  NLM_F_EXCL,
  NLM_F_REPLACE,
  NUD_PERMANENT,
  RTA_DST,
  RTA_GATEWAY,
  RTA_METRICS,
  RTA_OIF,
  RTA_PREFSRC,
  RTA_PRIORITY,
  RTA_TABLE,
  RTAX_ADVMSS,
  RTAX_MTU,
  RTM_DELADDR,
  RTM_DELNEIGH,
  RTM_DELROUTE,
  RTM_NEWADDR,
  RTM_NEWNEIGH,
  RTM_NEWROUTE,
  RTMSG_LEN,
  RTN_BLACKHOLE,
  RTN_PROHIBIT,
  RTN_UNICAST,
  RTN_UNREACHABLE,
  RTNH_F_ONLINK,
  RT_TABLE_MAIN,
  RT_TABLE_UNSPEC,
} from './constants.js';
import type { IfindexOf, NativeRequest } from './encode-link.js';

// Address, route, neighbour and FDB requests with the defaults iproute2 gives the same command,
// so that both backends leave the same kernel state (the differential tests check it).

export type Verb = 'add' | 'replace' | 'del';

const createFlags = (verb: Verb): number =>
  verb === 'add' ? NLM_F_CREATE | NLM_F_EXCL : verb === 'replace' ? NLM_F_CREATE | NLM_F_REPLACE : 0;

/** RT_SCOPE_HOST: what iproute2 gives an IPv4 loopback address. */
const SCOPE_HOST = 254;
const SCOPE_LINK = 253;
const SCOPE_NOWHERE = 255;

/** `ip addr add|replace|del ADDRESS dev DEV [nodad] [noprefixroute]` */
export function addrRequest(verb: Verb, dev: string, a: AddressSpec, ifindex: IfindexOf): NativeRequest {
  const { family, bytes, prefixLen } = cidrBytes(a.address);
  const index = ifindex(dev);
  const flags =
    verb === 'del' ? 0 : (a.nodad ? IFA_F_NODAD : 0) | (a.noprefixroute ? IFA_F_NOPREFIXROUTE : 0);
  return {
    type: verb === 'del' ? RTM_DELADDR : RTM_NEWADDR,
    flags: createFlags(verb),
    fill: (b) => {
      b.header(IFADDRMSG_LEN, (h) => {
        h.writeUInt8(family, 0);
        h.writeUInt8(prefixLen, 1);
        h.writeUInt8(flags & 0xff, 2);
        h.writeUInt8(family === AF_INET && bytes[0] === 127 ? SCOPE_HOST : 0, 3);
        h.writeUInt32LE(index, 4);
      });
      b.bytes(IFA_LOCAL, bytes).bytes(IFA_ADDRESS, bytes);
      if (flags > 0xff) b.u32(IFA_FLAGS, flags);
    },
  };
}

const ROUTE_TYPE_NUMBERS: Readonly<Record<string, number>> = {
  unicast: RTN_UNICAST,
  blackhole: RTN_BLACKHOLE,
  unreachable: RTN_UNREACHABLE,
  prohibit: RTN_PROHIBIT,
};
const RTPROT_BOOT = 3;

/** `ip route add|replace|del [TYPE] DST [via] [dev] [src] [table] [tos] [metric] [proto] [scope] [mtu] [advmss] [onlink]` */
export function routeRequest(verb: Verb, r: RouteSpec, ifindex: IfindexOf): NativeRequest {
  const dst = r.dst === 'default' ? undefined : cidrBytes(r.dst);
  const via = r.via === undefined ? undefined : ipBytes(r.via);
  const family =
    dst?.family ??
    (r.family === 'inet6' ? AF_INET6 : r.family === 'inet' ? AF_INET : (via?.family ?? AF_INET));
  const oif = r.dev === undefined ? undefined : ifindex(r.dev);
  const table = r.table ?? RT_TABLE_MAIN;
  const del = verb === 'del';
  const type = r.type === undefined ? (del ? 0 : RTN_UNICAST) : (ROUTE_TYPE_NUMBERS[r.type] ?? RTN_UNICAST);
  // iproute2's defaults: a unicast route without a gateway is link-scoped; deletion matches any scope.
  const scope =
    r.scope !== undefined
      ? routeScopeNumber(r.scope)
      : del
        ? SCOPE_NOWHERE
        : type === RTN_UNICAST && via === undefined
          ? SCOPE_LINK
          : 0;
  return {
    type: del ? RTM_DELROUTE : RTM_NEWROUTE,
    flags: createFlags(verb),
    fill: (b) => {
      b.header(RTMSG_LEN, (h) => {
        h.writeUInt8(family, 0);
        h.writeUInt8(dst?.prefixLen ?? 0, 1);
        h.writeUInt8(r.tos ?? 0, 3);
        h.writeUInt8(table < 256 ? table : RT_TABLE_UNSPEC, 4);
        h.writeUInt8(r.protocol ?? (del ? 0 : RTPROT_BOOT), 5);
        h.writeUInt8(scope, 6);
        h.writeUInt8(type, 7);
        h.writeUInt32LE(r.onlink && !del ? RTNH_F_ONLINK : 0, 8);
      });
      if (table >= 256) b.u32(RTA_TABLE, table);
      if (dst !== undefined) b.bytes(RTA_DST, dst.bytes);
      if (via !== undefined) b.bytes(RTA_GATEWAY, via.bytes);
      if (oif !== undefined) b.u32(RTA_OIF, oif);
      if (r.src !== undefined) b.bytes(RTA_PREFSRC, ipBytes(r.src).bytes);
      if (r.metric !== undefined) b.u32(RTA_PRIORITY, r.metric);
      if (r.mtu !== undefined || r.advmss !== undefined)
        b.nest(RTA_METRICS, (m) => {
          if (r.mtu !== undefined) m.u32(RTAX_MTU, r.mtu);
          if (r.advmss !== undefined) m.u32(RTAX_ADVMSS, r.advmss);
        });
    },
  };
}

const NUD_NUMBERS: Readonly<Record<string, number>> = {
  permanent: NUD_PERMANENT,
  noarp: 0x40,
  reachable: 0x02,
  stale: 0x04,
};

/** `ip neigh add|replace|del ADDRESS [lladdr MAC] dev DEV [nud STATE]` */
export function neighRequest(verb: Verb, n: NeighbourSpec, ifindex: IfindexOf): NativeRequest {
  const dst = ipBytes(n.address);
  const index = ifindex(n.dev);
  return {
    type: verb === 'del' ? RTM_DELNEIGH : RTM_NEWNEIGH,
    flags: createFlags(verb),
    fill: (b) => {
      b.header(NDMSG_LEN, (h) => {
        h.writeUInt8(dst.family, 0);
        h.writeInt32LE(index, 4);
        h.writeUInt16LE(verb === 'del' ? 0 : (NUD_NUMBERS[n.state ?? 'permanent'] ?? NUD_PERMANENT), 8);
      });
      b.bytes(NDA_DST, dst.bytes);
      if (verb !== 'del') b.bytes(NDA_LLADDR, macBytes(n.lladdr));
    },
  };
}

const NDA_VNI = 7;
const NTF_SELF = 0x02;
const NTF_MASTER = 0x04;
const NUD_NOARP = 0x40;

/** `bridge fdb append|replace|del MAC dev DEV [dst IP] [vni N] self|master [permanent|static]` */
export function fdbRequest(verb: 'add' | 'del', f: FdbSpec, ifindex: IfindexOf): NativeRequest {
  const self = f.self ?? f.dst !== undefined;
  const state = (f.state ?? (self ? 'permanent' : 'static')) === 'permanent' ? NUD_PERMANENT : NUD_NOARP;
  const index = ifindex(f.dev);
  // The flood list (all-zero MAC) holds several destinations: appended, never replaced.
  const flags = verb === 'del' ? 0 : NLM_F_CREATE | (f.mac === ZERO_MAC ? NLM_F_APPEND : NLM_F_REPLACE);
  return {
    type: verb === 'del' ? RTM_DELNEIGH : RTM_NEWNEIGH,
    flags,
    fill: (b) => {
      b.header(NDMSG_LEN, (h) => {
        h.writeUInt8(AF_BRIDGE, 0);
        h.writeInt32LE(index, 4);
        h.writeUInt16LE(verb === 'del' ? 0 : state, 8);
        h.writeUInt8(self ? NTF_SELF : NTF_MASTER, 10);
      });
      b.bytes(NDA_LLADDR, macBytes(f.mac));
      if (f.dst !== undefined) b.bytes(NDA_DST, ipBytes(f.dst).bytes);
      if (f.vni !== undefined) b.u32(NDA_VNI, f.vni);
    },
  };
}
