import { closeSync, openSync } from 'node:fs';
import type { BridgeOptions, BridgePortFlags, LinkSpec } from '../links/index.js';
import type { LinkSetChanges } from '../plan-ops.js';
import { ADDR_GEN_MODES, type AddrGenMode } from '../objects.js';
import { ipBytes, macBytes } from './addr-text.js';
import {
  AF_INET,
  AF_INET6,
  ETH_P_8021AD,
  ETH_P_8021Q,
  IFF_UP,
  IFINFOMSG_LEN,
  IFLA_ADDRESS,
  IFLA_AF_SPEC,
  IFLA_BR_VLAN_FILTERING,
  IFLA_BRPORT_LEARNING,
  IFLA_BRPORT_MODE,
  IFLA_BRPORT_NEIGH_SUPPRESS,
  IFLA_IFALIAS,
  IFLA_IFNAME,
  IFLA_INET6_ADDR_GEN_MODE,
  IFLA_INFO_DATA,
  IFLA_INFO_KIND,
  IFLA_INFO_SLAVE_DATA,
  IFLA_INFO_SLAVE_KIND,
  IFLA_LINK,
  IFLA_LINKINFO,
  IFLA_MACVLAN_MODE,
  IFLA_MASTER,
  IFLA_MTU,
  IFLA_NET_NS_FD,
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
  NLM_F_CREATE,
  NLM_F_EXCL,
  RTM_DELLINK,
  RTM_NEWLINK,
  VETH_INFO_PEER,
} from './constants.js';
import { netnsFilePath } from './namespace.js';
import type { MessageBuilder } from './wire.js';

// Link requests (RTM_NEWLINK / RTM_DELLINK), the messages `ip link add|set|del` sends. Links are
// named by IFLA_IFNAME (the kernel looks them up by name); other links a message refers to
// (master, parent, vxlan underlay) by index, which `ifindex` resolves.

/** One request: message type, flags and body, and what it is (the equivalent iproute2 command, for errors). */
export interface NativeRequest {
  readonly type: number;
  readonly flags: number;
  readonly fill: (b: MessageBuilder) => void;
  /** Files to close once the request was answered (a namespace's fd given to the kernel). */
  readonly fds?: readonly number[];
}

/** Resolves a link name of the namespace to its index (LinkNotFoundError when missing). */
export type IfindexOf = (name: string) => number;

const ifinfo =
  (flags = 0, change = 0) =>
  (h: Buffer) => {
    h.writeUInt32LE(flags, 8);
    h.writeUInt32LE(change, 12);
  };

const MACVLAN_MODE_NUMBERS = new Map(Object.entries(MACVLAN_MODES).map(([n, name]) => [name, Number(n)]));

function kindData(b: MessageBuilder, spec: LinkSpec, ifindex: IfindexOf, fds: number[]): void {
  switch (spec.kind) {
    case 'vrf':
      b.u32(IFLA_VRF_TABLE, spec.table);
      return;
    case 'bridge':
      if (spec.vlanFiltering !== undefined) b.u8(IFLA_BR_VLAN_FILTERING, spec.vlanFiltering ? 1 : 0);
      return;
    case 'vlan':
      b.u16(IFLA_VLAN_ID, spec.id);
      if (spec.protocol !== undefined)
        b.be16(IFLA_VLAN_PROTOCOL, spec.protocol === '802.1ad' ? ETH_P_8021AD : ETH_P_8021Q);
      return;
    case 'macvlan':
      b.u32(IFLA_MACVLAN_MODE, MACVLAN_MODE_NUMBERS.get(spec.mode) ?? 0);
      return;
    case 'vxlan': {
      b.u32(IFLA_VXLAN_ID, spec.vni);
      if (spec.local !== undefined) {
        const l = ipBytes(spec.local);
        b.bytes(l.family === AF_INET6 ? IFLA_VXLAN_LOCAL6 : IFLA_VXLAN_LOCAL, l.bytes);
      }
      const dst = spec.remote ?? spec.group;
      if (dst !== undefined) {
        const d = ipBytes(dst);
        b.bytes(d.family === AF_INET6 ? IFLA_VXLAN_GROUP6 : IFLA_VXLAN_GROUP, d.bytes);
      }
      if (spec.dev !== undefined) b.u32(IFLA_VXLAN_LINK, ifindex(spec.dev));
      if (spec.dstport !== undefined) b.be16(IFLA_VXLAN_PORT, spec.dstport);
      if (spec.learning !== undefined) b.u8(IFLA_VXLAN_LEARNING, spec.learning ? 1 : 0);
      return;
    }
    case 'veth': {
      const peer = spec.peer;
      b.nest(VETH_INFO_PEER, (p) => {
        p.header(IFINFOMSG_LEN, () => undefined).str(IFLA_IFNAME, peer.name);
        if (peer.mtu !== undefined) p.u32(IFLA_MTU, peer.mtu);
        if (peer.mac !== undefined) p.bytes(IFLA_ADDRESS, macBytes(peer.mac));
        if (peer.netns !== undefined) {
          const fd = openSync(netnsFilePath(peer.netns), 'r');
          fds.push(fd);
          p.u32(IFLA_NET_NS_FD, fd);
        }
      });
      return;
    }
    case 'dummy':
      return;
  }
}

/** `ip link add [link P] name N [mtu] [address] type KIND ...`: exclusive. */
export function linkAddRequest(spec: LinkSpec, ifindex: IfindexOf): NativeRequest {
  const fds: number[] = [];
  // Resolved before the message is built: a missing parent fails before a namespace fd is opened.
  const parent = spec.kind === 'vlan' || spec.kind === 'macvlan' ? ifindex(spec.parent) : undefined;
  const fill = (b: MessageBuilder) => {
    b.header(IFINFOMSG_LEN, ifinfo()).str(IFLA_IFNAME, spec.name);
    if (spec.mtu !== undefined) b.u32(IFLA_MTU, spec.mtu);
    if (spec.mac !== undefined) b.bytes(IFLA_ADDRESS, macBytes(spec.mac));
    if (parent !== undefined) b.u32(IFLA_LINK, parent);
    b.nest(IFLA_LINKINFO, (li) => {
      li.str(IFLA_INFO_KIND, spec.kind);
      if (spec.kind !== 'dummy') li.nest(IFLA_INFO_DATA, (d) => kindData(d, spec, ifindex, fds));
    });
  };
  return { type: RTM_NEWLINK, flags: NLM_F_CREATE | NLM_F_EXCL, fill, fds };
}

/** `ip link set dev N [alias] [mtu] [address] [master M|nomaster] [up|down]`. */
export function linkSetRequest(name: string, c: LinkSetChanges, ifindex: IfindexOf): NativeRequest {
  const master = c.master === undefined ? undefined : c.master === null ? 0 : ifindex(c.master);
  return {
    type: RTM_NEWLINK,
    flags: 0,
    fill: (b) => {
      b.header(IFINFOMSG_LEN, c.up === undefined ? ifinfo() : ifinfo(c.up ? IFF_UP : 0, IFF_UP)).str(
        IFLA_IFNAME,
        name,
      );
      if (c.alias !== undefined) b.str(IFLA_IFALIAS, c.alias);
      if (c.mtu !== undefined) b.u32(IFLA_MTU, c.mtu);
      if (c.mac !== undefined) b.bytes(IFLA_ADDRESS, macBytes(c.mac));
      if (master !== undefined) b.u32(IFLA_MASTER, master);
    },
  };
}

/** `ip link set dev N netns NS`: moves the link into another namespace. */
export function linkSetNetnsRequest(name: string, netns: string): NativeRequest {
  const fd = openSync(netnsFilePath(netns), 'r');
  return {
    type: RTM_NEWLINK,
    flags: 0,
    fill: (b) => b.header(IFINFOMSG_LEN, ifinfo()).str(IFLA_IFNAME, name).u32(IFLA_NET_NS_FD, fd),
    fds: [fd],
  };
}

/** `ip link set dev N name NEW`: a rename needs the link's index (the name is what changes). */
export const linkRenameRequest = (name: string, newName: string, ifindex: IfindexOf): NativeRequest => {
  const index = ifindex(name);
  return {
    type: RTM_NEWLINK,
    flags: 0,
    fill: (b) => b.header(IFINFOMSG_LEN, (h) => h.writeInt32LE(index, 4)).str(IFLA_IFNAME, newName),
  };
};

/** `ip link set dev N addrgenmode MODE`. */
export const linkAddrGenModeRequest = (name: string, mode: AddrGenMode): NativeRequest => ({
  type: RTM_NEWLINK,
  flags: 0,
  fill: (b) =>
    b
      .header(IFINFOMSG_LEN, ifinfo())
      .str(IFLA_IFNAME, name)
      .nest(IFLA_AF_SPEC, (s) =>
        s.nest(AF_INET6, (i) => i.u8(IFLA_INET6_ADDR_GEN_MODE, ADDR_GEN_MODES.indexOf(mode))),
      ),
});

/** `ip link set dev N type bridge vlan_filtering 0|1`. */
export const bridgeSetRequest = (name: string, options: BridgeOptions): NativeRequest => ({
  type: RTM_NEWLINK,
  flags: 0,
  fill: (b) =>
    b
      .header(IFINFOMSG_LEN, ifinfo())
      .str(IFLA_IFNAME, name)
      .nest(IFLA_LINKINFO, (li) =>
        li.str(IFLA_INFO_KIND, 'bridge').nest(IFLA_INFO_DATA, (d) => {
          if (options.vlanFiltering !== undefined)
            d.u8(IFLA_BR_VLAN_FILTERING, options.vlanFiltering ? 1 : 0);
        }),
      ),
});

/** `ip link set dev N type bridge_slave learning on|off neigh_suppress on|off hairpin on|off`. */
export const portSetRequest = (name: string, flags: BridgePortFlags): NativeRequest => ({
  type: RTM_NEWLINK,
  flags: 0,
  fill: (b) =>
    b
      .header(IFINFOMSG_LEN, ifinfo())
      .str(IFLA_IFNAME, name)
      .nest(IFLA_LINKINFO, (li) =>
        li.str(IFLA_INFO_SLAVE_KIND, 'bridge').nest(IFLA_INFO_SLAVE_DATA, (d) => {
          if (flags.learning !== undefined) d.u8(IFLA_BRPORT_LEARNING, flags.learning ? 1 : 0);
          if (flags.neighSuppress !== undefined)
            d.u8(IFLA_BRPORT_NEIGH_SUPPRESS, flags.neighSuppress ? 1 : 0);
          if (flags.hairpin !== undefined) d.u8(IFLA_BRPORT_MODE, flags.hairpin ? 1 : 0);
        }),
      ),
});

/** `ip link del dev N`. */
export const linkDelRequest = (name: string): NativeRequest => ({
  type: RTM_DELLINK,
  flags: 0,
  fill: (b) => b.header(IFINFOMSG_LEN, ifinfo()).str(IFLA_IFNAME, name),
});

/** Closes the files a request handed to the kernel (after its answer). */
export const releaseRequest = (r: NativeRequest): void => r.fds?.forEach((fd) => closeSync(fd));

/** IFLA_INET_CONF inside IFLA_AF_SPEC/AF_INET: the IPv4 devconf of a link (what /proc/sys/net/ipv4/conf/DEV shows). */
const IFLA_INET_CONF = 1;
const IPV4_DEVCONF_ARP_ACCEPT = 21;
const IPV4_DEVCONF_ARP_NOTIFY = 22;

/**
 * `sysctl -w net.ipv4.conf.DEV.arp_accept=N net.ipv4.conf.DEV.arp_notify=N` as a netlink message:
 * the kernel sets a link's IPv4 devconf from RTM_NEWLINK, with no /proc/sys at all (which a
 * container may have mounted read-only). IPv6's devconf has no such message (accept_dad is a file).
 */
export const ipv4ConfRequest = (
  name: string,
  conf: { arpAccept?: number; arpNotify?: number },
): NativeRequest => ({
  type: RTM_NEWLINK,
  flags: 0,
  fill: (b) =>
    b
      .header(IFINFOMSG_LEN, ifinfo())
      .str(IFLA_IFNAME, name)
      .nest(IFLA_AF_SPEC, (s) =>
        s.nest(AF_INET, (i) =>
          i.nest(IFLA_INET_CONF, (c) => {
            if (conf.arpAccept !== undefined) c.u32(IPV4_DEVCONF_ARP_ACCEPT, conf.arpAccept);
            if (conf.arpNotify !== undefined) c.u32(IPV4_DEVCONF_ARP_NOTIFY, conf.arpNotify);
          }),
        ),
      ),
});
