import type { ObservedRoute } from '../decode/route.js';
import type { ObservedNeighbour } from '../decode/neigh.js';
import type { ObservedFdbEntry } from '../decode/fdb.js';
import { ROUTE_PROTOCOLS } from '../objects.js';
import { ipText, macText } from './addr-text.js';
import {
  AF_INET,
  AF_INET6,
  NDA_DST,
  NDA_LLADDR,
  NDMSG_LEN,
  RTA_DST,
  RTA_GATEWAY,
  RTA_METRICS,
  RTA_OIF,
  RTA_PREFSRC,
  RTA_PRIORITY,
  RTA_TABLE,
  RTAX_ADVMSS,
  RTAX_MTU,
  RTM_F_CLONED,
  RTMSG_LEN,
  RTNH_F_ONLINK,
} from './constants.js';
import { attrU32, parseAttrs } from './wire.js';

// RTM_NEWROUTE / RTM_NEWNEIGH messages -> the model's observed routes and neighbours, with the
// values iproute2 would print (protocol names of rt_protos, NUD states in lower case).

const ROUTE_TYPES: readonly string[] = [
  'none',
  'unicast',
  'local',
  'broadcast',
  'anycast',
  'multicast',
  'blackhole',
  'unreachable',
  'prohibit',
  'throw',
  'nat',
  'xresolve',
];
const PROTOCOL_NAMES = new Map(Object.entries(ROUTE_PROTOCOLS).map(([name, n]) => [n, name]));
export const protocolName = (n: number): string => PROTOCOL_NAMES.get(n) ?? String(n);

/**
 * One RTM_NEWROUTE as the model has it; `undefined` for what `ip route show` leaves out (other
 * families such as IPMR, cloned cache entries).
 */
export function decodeRouteMessage(
  payload: Buffer,
  names: ReadonlyMap<number, string>,
): ObservedRoute | undefined {
  const family = payload.readUInt8(0);
  if (family !== AF_INET && family !== AF_INET6) return undefined;
  const flags = payload.readUInt32LE(8);
  if ((flags & RTM_F_CLONED) !== 0) return undefined;
  const dstLen = payload.readUInt8(1);
  const attrs = parseAttrs(payload, RTMSG_LEN);
  const dst = attrs.get(RTA_DST);
  const oif = attrU32(attrs.get(RTA_OIF));
  const gateway = attrs.get(RTA_GATEWAY);
  const prefsrc = attrs.get(RTA_PREFSRC);
  const metrics = attrs.get(RTA_METRICS);
  const m = metrics === undefined ? undefined : parseAttrs(metrics);
  const type = ROUTE_TYPES[payload.readUInt8(7)] ?? String(payload.readUInt8(7));
  return {
    type,
    dst: dst === undefined || dstLen === 0 ? 'default' : `${ipText(dst)}/${dstLen}`,
    table: attrU32(attrs.get(RTA_TABLE)) ?? payload.readUInt8(4),
    protocol: protocolName(payload.readUInt8(5)),
    dev: oif === undefined ? undefined : (names.get(oif) ?? `if${oif}`),
    via: gateway === undefined ? undefined : ipText(gateway),
    src: prefsrc === undefined ? undefined : ipText(prefsrc),
    metric: attrU32(attrs.get(RTA_PRIORITY)),
    tos: payload.readUInt8(3),
    scope: payload.readUInt8(6),
    mtu: attrU32(m?.get(RTAX_MTU)),
    advmss: attrU32(m?.get(RTAX_ADVMSS)),
    ...((flags & RTNH_F_ONLINK) !== 0 ? { onlink: true } : {}),
    family: family === AF_INET ? 'inet' : 'inet6',
  };
}

/** NUD_* bits as iproute2 names them. */
const NUD_STATES: ReadonlyArray<[number, string]> = [
  [0x01, 'incomplete'],
  [0x02, 'reachable'],
  [0x04, 'stale'],
  [0x08, 'delay'],
  [0x10, 'probe'],
  [0x20, 'failed'],
  [0x40, 'noarp'],
  [0x80, 'permanent'],
];

/** One RTM_NEWNEIGH of the IPv4/IPv6 tables (not the bridge's FDB). */
export function decodeNeighMessage(
  payload: Buffer,
  names: ReadonlyMap<number, string>,
): ObservedNeighbour | undefined {
  const family = payload.readUInt8(0);
  if (family !== AF_INET && family !== AF_INET6) return undefined;
  const attrs = parseAttrs(payload, NDMSG_LEN);
  const dst = attrs.get(NDA_DST);
  if (dst === undefined) return undefined;
  const ifindex = payload.readInt32LE(4);
  const state = payload.readUInt16LE(8);
  const lladdr = attrs.get(NDA_LLADDR);
  return {
    dev: names.get(ifindex) ?? `if${ifindex}`,
    address: ipText(dst),
    lladdr: lladdr === undefined ? undefined : macText(lladdr),
    state: NUD_STATES.filter(([bit]) => (state & bit) !== 0).map(([, name]) => name),
  };
}

const NDA_VNI = 7;
const NDA_MASTER = 9;
const NTF_SELF = 0x02;
const NTF_MASTER = 0x04;
const NTF_EXT_LEARNED = 0x10;
const NUD_NOARP = 0x40;
const NUD_PERMANENT = 0x80;
const NUD_STALE = 0x04;

/** One RTM_NEWNEIGH of the bridge family as `bridge -j fdb show` prints it. */
export function decodeFdbMessage(
  payload: Buffer,
  names: ReadonlyMap<number, string>,
): ObservedFdbEntry | undefined {
  const attrs = parseAttrs(payload, NDMSG_LEN);
  const lladdr = attrs.get(NDA_LLADDR);
  if (lladdr === undefined) return undefined;
  const ifindex = payload.readInt32LE(4);
  const state = payload.readUInt16LE(8);
  const ntf = payload.readUInt8(10);
  const dst = attrs.get(NDA_DST);
  const master = attrU32(attrs.get(NDA_MASTER));
  const flags = [
    ...((ntf & NTF_SELF) !== 0 ? ['self'] : []),
    ...((ntf & NTF_MASTER) !== 0 ? ['master'] : []),
    ...((ntf & NTF_EXT_LEARNED) !== 0 ? ['extern_learn'] : []),
  ];
  return {
    mac: macText(lladdr),
    dev: names.get(ifindex) ?? `if${ifindex}`,
    dst: dst === undefined ? undefined : ipText(dst),
    vni: attrU32(attrs.get(NDA_VNI)),
    self: (ntf & NTF_SELF) !== 0,
    master: master === undefined ? undefined : (names.get(master) ?? `if${master}`),
    state:
      (state & NUD_PERMANENT) !== 0
        ? 'permanent'
        : (state & NUD_NOARP) !== 0
          ? 'static'
          : (state & NUD_STALE) !== 0
            ? 'stale'
            : '',
    flags,
  };
}
