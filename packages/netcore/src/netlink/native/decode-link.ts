import { toObservedLink, type ObservedLink } from '../decode/link.js';
import { ipText, macText } from './addr-text.js';
import {
  AF_INET,
  AF_INET6,
  ETH_P_8021AD,
  ETH_P_8021Q,
  IFA_ADDRESS,
  IFA_F_NODAD,
  IFA_F_NOPREFIXROUTE,
  IFA_FLAGS,
  IFA_LOCAL,
  IFADDRMSG_LEN,
  IFF_LOWER_UP,
  IFF_UP,
  IFINFOMSG_LEN,
  IFLA_ADDRESS,
  IFLA_BR_VLAN_FILTERING,
  IFLA_BRPORT_LEARNING,
  IFLA_BRPORT_MODE,
  IFLA_BRPORT_NEIGH_SUPPRESS,
  IFLA_IFALIAS,
  IFLA_IFNAME,
  IFLA_INFO_DATA,
  IFLA_INFO_KIND,
  IFLA_INFO_SLAVE_DATA,
  IFLA_INFO_SLAVE_KIND,
  IFLA_LINK,
  IFLA_LINK_NETNSID,
  IFLA_LINKINFO,
  IFLA_MACVLAN_MODE,
  IFLA_MASTER,
  IFLA_MTU,
  IFLA_VLAN_ID,
  IFLA_VLAN_PROTOCOL,
  IFLA_VRF_TABLE,
  IFLA_VXLAN_GROUP,
  IFLA_VXLAN_GROUP6,
  IFLA_VXLAN_ID,
  IFLA_VXLAN_LEARNING,
  IFLA_VXLAN_LINK,
  IFLA_VXLAN_LOCAL,
  IFLA_VXLAN_LOCAL6,
  IFLA_VXLAN_PORT,
  MACVLAN_MODES,
} from './constants.js';
import { attrBe16, attrS32, attrStr, attrU16, attrU32, attrU8, parseAttrs, type Attrs } from './wire.js';

// RTM_NEWLINK / RTM_NEWADDR messages -> the same record `ip -j -d addr show` prints for a link
// (the fields this layer reads, named as iproute2 names them), then the shared decoder: a link
// observed natively and one observed through iproute2 go through the same model code.

type LinkRecord = Parameters<typeof toObservedLink>[0];
type AddrRecord = NonNullable<LinkRecord['addr_info']>[number];

/** One RTM_NEWLINK's ifinfomsg and attributes. */
export interface RawLink {
  readonly ifindex: number;
  readonly flags: number;
  readonly attrs: Attrs;
}

export function parseLinkMessage(payload: Buffer): RawLink {
  return {
    ifindex: payload.readInt32LE(4),
    flags: payload.readUInt32LE(8),
    attrs: parseAttrs(payload, IFINFOMSG_LEN),
  };
}

/** One RTM_NEWADDR: the link it is on, and the record iproute2 prints in `addr_info`. */
export function parseAddrMessage(payload: Buffer): { ifindex: number; record: AddrRecord } {
  const family = payload.readUInt8(0);
  const prefixlen = payload.readUInt8(1);
  const attrs = parseAttrs(payload, IFADDRMSG_LEN);
  const flags = attrU32(attrs.get(IFA_FLAGS)) ?? payload.readUInt8(2);
  const local = attrs.get(IFA_LOCAL) ?? attrs.get(IFA_ADDRESS);
  return {
    ifindex: payload.readUInt32LE(4),
    record: {
      family: family === AF_INET ? 'inet' : family === AF_INET6 ? 'inet6' : String(family),
      ...(local === undefined ? {} : { local: ipText(local) }),
      prefixlen,
      scope: scopeName(payload.readUInt8(3)),
      ...((flags & IFA_F_NODAD) !== 0 ? { nodad: true } : {}),
      ...((flags & IFA_F_NOPREFIXROUTE) !== 0 ? { noprefixroute: true } : {}),
    },
  };
}

const SCOPE_NAMES: Readonly<Record<number, string>> = {
  0: 'global',
  200: 'site',
  253: 'link',
  254: 'host',
  255: 'nowhere',
};
export const scopeName = (scope: number): string => SCOPE_NAMES[scope] ?? String(scope);

/** A link's lower device as iproute2 names it: its name when it is here, `if<N>` when unknown. */
const ifName = (names: ReadonlyMap<number, string>, index: number): string =>
  names.get(index) ?? `if${index}`;

function infoData(
  kind: string | undefined,
  data: Attrs,
  names: ReadonlyMap<number, string>,
): Record<string, unknown> {
  switch (kind) {
    case 'vrf':
      return optional({ table: attrU32(data.get(IFLA_VRF_TABLE)) });
    case 'bridge':
      return optional({ vlan_filtering: attrU8(data.get(IFLA_BR_VLAN_FILTERING)) });
    case 'vlan': {
      const proto = attrBe16(data.get(IFLA_VLAN_PROTOCOL));
      const protocol =
        proto === ETH_P_8021Q ? '802.1Q' : proto === ETH_P_8021AD ? '802.1ad' : proto?.toString(16);
      return optional({ protocol, id: attrU16(data.get(IFLA_VLAN_ID)) });
    }
    case 'macvlan': {
      const mode = attrU32(data.get(IFLA_MACVLAN_MODE));
      return optional({ mode: mode === undefined ? undefined : (MACVLAN_MODES[mode] ?? String(mode)) });
    }
    case 'vxlan':
      return vxlanData(data, names);
    default:
      return {};
  }
}

function vxlanData(data: Attrs, names: ReadonlyMap<number, string>): Record<string, unknown> {
  const out: Record<string, unknown> = optional({
    id: attrU32(data.get(IFLA_VXLAN_ID)),
    port: attrBe16(data.get(IFLA_VXLAN_PORT)),
    learning:
      attrU8(data.get(IFLA_VXLAN_LEARNING)) === undefined
        ? undefined
        : attrU8(data.get(IFLA_VXLAN_LEARNING)) !== 0,
  });
  const group = data.get(IFLA_VXLAN_GROUP) ?? data.get(IFLA_VXLAN_GROUP6);
  // iproute2 prints a multicast destination as `group`, a unicast one as `remote` (`6` for IPv6).
  if (group !== undefined && !group.every((b) => b === 0)) {
    const v6 = group.length === 16;
    const multicast = v6 ? group[0] === 0xff : ((group[0] ?? 0) & 0xf0) === 0xe0;
    out[`${multicast ? 'group' : 'remote'}${v6 ? '6' : ''}`] = ipText(group);
  }
  const local = data.get(IFLA_VXLAN_LOCAL) ?? data.get(IFLA_VXLAN_LOCAL6);
  if (local !== undefined && !local.every((b) => b === 0))
    out[local.length === 16 ? 'local6' : 'local'] = ipText(local);
  const link = attrU32(data.get(IFLA_VXLAN_LINK));
  if (link !== undefined && link !== 0) out['link'] = ifName(names, link);
  return out;
}

function portData(data: Attrs): Record<string, unknown> {
  const flag = (t: number): boolean | undefined => {
    const v = attrU8(data.get(t));
    return v === undefined ? undefined : v !== 0;
  };
  return optional({
    learning: flag(IFLA_BRPORT_LEARNING),
    neigh_suppress: flag(IFLA_BRPORT_NEIGH_SUPPRESS),
    hairpin: flag(IFLA_BRPORT_MODE),
  });
}

const optional = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** The record `ip -j -d addr show` prints for `link`, with its addresses. */
export function linkRecord(
  link: RawLink,
  names: ReadonlyMap<number, string>,
  addresses: readonly AddrRecord[] | undefined,
): LinkRecord {
  const a = link.attrs;
  const info = a.get(IFLA_LINKINFO);
  const li = info === undefined ? undefined : parseAttrs(info);
  const kind = attrStr(li?.get(IFLA_INFO_KIND));
  const slaveKind = attrStr(li?.get(IFLA_INFO_SLAVE_KIND));
  const data = li?.get(IFLA_INFO_DATA);
  const slaveData = li?.get(IFLA_INFO_SLAVE_DATA);
  const netnsId = attrS32(a.get(IFLA_LINK_NETNSID));
  const lower = attrU32(a.get(IFLA_LINK));
  const master = attrU32(a.get(IFLA_MASTER));
  const mac = a.get(IFLA_ADDRESS);
  const alias = attrStr(a.get(IFLA_IFALIAS));
  const flags = [...(link.flags & IFF_UP ? ['UP'] : []), ...(link.flags & IFF_LOWER_UP ? ['LOWER_UP'] : [])];
  return {
    ifindex: link.ifindex,
    ifname: attrStr(a.get(IFLA_IFNAME)) ?? `if${link.ifindex}`,
    flags,
    mtu: attrU32(a.get(IFLA_MTU)) ?? 0,
    ...(mac === undefined || mac.length === 0 ? {} : { address: macText(mac) }),
    ...(master === undefined || master === 0 ? {} : { master: ifName(names, master) }),
    ...(alias === undefined || alias === '' ? {} : { ifalias: alias }),
    // A lower device in another namespace is an index there, not a name here (iproute2: `link_index`).
    ...(lower === undefined || netnsId !== undefined
      ? {}
      : { link: lower === 0 ? null : ifName(names, lower) }),
    ...(netnsId === undefined ? {} : { link_netnsid: netnsId }),
    ...(li === undefined
      ? {}
      : {
          linkinfo: {
            ...(kind === undefined ? {} : { info_kind: kind }),
            ...(data === undefined ? {} : { info_data: infoData(kind, parseAttrs(data), names) }),
            ...(slaveKind === undefined ? {} : { info_slave_kind: slaveKind }),
            ...(slaveData === undefined || slaveKind !== 'bridge'
              ? {}
              : { info_slave_data: portData(parseAttrs(slaveData)) }),
          },
        }),
    ...(addresses === undefined ? {} : { addr_info: [...addresses] }),
  };
}

/** Links with their addresses, in the model: what `decodeLinkDump` makes of `ip -j -d addr show`. */
export function decodeLinks(
  links: readonly RawLink[],
  addrs: ReadonlyMap<number, readonly AddrRecord[]> | undefined,
): ObservedLink[] {
  const names = new Map(links.map((l) => [l.ifindex, attrStr(l.attrs.get(IFLA_IFNAME)) ?? `if${l.ifindex}`]));
  return links.map((l) =>
    toObservedLink(linkRecord(l, names, addrs === undefined ? undefined : (addrs.get(l.ifindex) ?? []))),
  );
}

export type { AddrRecord };
