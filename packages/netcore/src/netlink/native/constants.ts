// rtnetlink numbers from the kernel's uapi headers (linux/netlink.h, linux/rtnetlink.h,
// linux/if_link.h, linux/if_addr.h, linux/neighbour.h). Only what this backend encodes or decodes.

export const AF_UNSPEC = 0;
export const AF_INET = 2;
export const AF_INET6 = 10;
export const AF_BRIDGE = 7;
export const AF_NETLINK = 16;
export const SOCK_RAW = 3;
export const SOCK_CLOEXEC = 0o2000000;
export const NETLINK_ROUTE = 0;
export const SOL_NETLINK = 270;
export const NETLINK_EXT_ACK = 11;
export const NETLINK_GET_STRICT_CHK = 12;
export const CLONE_NEWNET = 0x40000000;

/** nlmsghdr: length, type, flags, seq, pid. */
export const NLMSG_HDRLEN = 16;
export const NLMSG_ERROR = 2;
export const NLMSG_DONE = 3;

export const NLM_F_REQUEST = 0x1;
export const NLM_F_MULTI = 0x2;
export const NLM_F_ACK = 0x4;
export const NLM_F_DUMP_INTR = 0x10;
export const NLM_F_DUMP = 0x300;
export const NLM_F_REPLACE = 0x100;
export const NLM_F_EXCL = 0x200;
export const NLM_F_CREATE = 0x400;
export const NLM_F_APPEND = 0x800;
/** In an NLMSG_ERROR message: extended ACK attributes follow. */
export const NLM_F_ACK_TLVS = 0x200;
export const NLMSGERR_ATTR_MSG = 1;

export const RTM_NEWLINK = 16;
export const RTM_DELLINK = 17;
export const RTM_GETLINK = 18;
export const RTM_SETLINK = 19;
export const RTM_NEWADDR = 20;
export const RTM_DELADDR = 21;
export const RTM_GETADDR = 22;
export const RTM_NEWROUTE = 24;
export const RTM_DELROUTE = 25;
export const RTM_GETROUTE = 26;
export const RTM_NEWNEIGH = 28;
export const RTM_DELNEIGH = 29;
export const RTM_GETNEIGH = 30;

/** Multicast groups (bit numbers, 1-based, as RTNLGRP_*). */
export const RTNLGRP_LINK = 1;
export const RTNLGRP_IPV4_IFADDR = 5;
export const RTNLGRP_IPV4_ROUTE = 7;
export const RTNLGRP_IPV6_IFADDR = 9;
export const RTNLGRP_IPV6_ROUTE = 11;

/** Fixed headers after nlmsghdr. */
export const IFINFOMSG_LEN = 16;
export const IFADDRMSG_LEN = 8;
export const RTMSG_LEN = 12;
export const NDMSG_LEN = 12;

export const IFF_UP = 0x1;
export const IFF_LOWER_UP = 0x10000;

export const IFLA_ADDRESS = 1;
export const IFLA_IFNAME = 3;
export const IFLA_MTU = 4;
export const IFLA_LINK = 5;
export const IFLA_MASTER = 10;
export const IFLA_PROTINFO = 12;
export const IFLA_LINKINFO = 18;
export const IFLA_NET_NS_PID = 19;
export const IFLA_IFALIAS = 20;
export const IFLA_AF_SPEC = 26;
export const IFLA_NET_NS_FD = 28;
export const IFLA_EXT_MASK = 29;
export const IFLA_LINK_NETNSID = 37;
export const RTEXT_FILTER_SKIP_STATS = 1 << 3;

export const IFLA_INFO_KIND = 1;
export const IFLA_INFO_DATA = 2;
export const IFLA_INFO_SLAVE_KIND = 4;
export const IFLA_INFO_SLAVE_DATA = 5;

export const IFLA_BR_VLAN_FILTERING = 7;

export const IFLA_BRPORT_MODE = 4; // hairpin
export const IFLA_BRPORT_LEARNING = 8;
export const IFLA_BRPORT_NEIGH_SUPPRESS = 32;

export const IFLA_VLAN_ID = 1;
export const IFLA_VLAN_PROTOCOL = 5;

export const IFLA_VRF_TABLE = 1;

export const IFLA_MACVLAN_MODE = 1;

export const VETH_INFO_PEER = 1;

export const IFLA_VXLAN_ID = 1;
export const IFLA_VXLAN_GROUP = 2;
export const IFLA_VXLAN_LINK = 3;
export const IFLA_VXLAN_LOCAL = 4;
export const IFLA_VXLAN_LEARNING = 7;
export const IFLA_VXLAN_PORT = 15;
export const IFLA_VXLAN_GROUP6 = 16;
export const IFLA_VXLAN_LOCAL6 = 17;

export const IFLA_INET6_ADDR_GEN_MODE = 8;

export const IFA_ADDRESS = 1;
export const IFA_LOCAL = 2;
export const IFA_LABEL = 3;
export const IFA_FLAGS = 8;
export const IFA_F_NODAD = 0x02;
export const IFA_F_PERMANENT = 0x80;
export const IFA_F_NOPREFIXROUTE = 0x200;

export const RTA_DST = 1;
export const RTA_OIF = 4;
export const RTA_GATEWAY = 5;
export const RTA_PRIORITY = 6;
export const RTA_PREFSRC = 7;
export const RTA_METRICS = 8;
export const RTA_TABLE = 15;
export const RTA_VIA = 18;
export const RTA_PREF = 20;
export const RTAX_MTU = 2;
export const RTAX_ADVMSS = 8;
export const RTNH_F_ONLINK = 4;
export const RTM_F_CLONED = 0x200;
export const RT_TABLE_UNSPEC = 0;
export const RT_TABLE_MAIN = 254;

export const RTN_UNICAST = 1;
export const RTN_LOCAL = 2;
export const RTN_BROADCAST = 3;
export const RTN_ANYCAST = 4;
export const RTN_MULTICAST = 5;
export const RTN_BLACKHOLE = 6;
export const RTN_UNREACHABLE = 7;
export const RTN_PROHIBIT = 8;

export const NDA_DST = 1;
export const NDA_LLADDR = 2;
export const NUD_PERMANENT = 0x80;

/** The kernel's vlan protocol numbers as iproute2 names them. */
export const ETH_P_8021Q = 0x8100;
export const ETH_P_8021AD = 0x88a8;

/** macvlan modes (`MACVLAN_MODE_*`) as iproute2 names them. */
export const MACVLAN_MODES: Readonly<Record<number, string>> = {
  1: 'private',
  2: 'vepa',
  4: 'bridge',
  8: 'passthru',
  16: 'source',
};
