import type { StreamExit, LineStream } from '../../exec/stream.js';
import type { MonitorObject, NetlinkEvent } from '../decode/monitor.js';
import { ipText } from './addr-text.js';
import {
  IFA_ADDRESS,
  IFA_LOCAL,
  IFADDRMSG_LEN,
  IFF_UP,
  IFLA_IFNAME,
  IFLA_MASTER,
  RTA_DST,
  RTA_OIF,
  RTA_TABLE,
  RTM_DELADDR,
  RTM_DELLINK,
  RTM_DELROUTE,
  RTM_NEWADDR,
  RTM_NEWLINK,
  RTM_NEWROUTE,
  RTMSG_LEN,
  RTNLGRP_IPV4_IFADDR,
  RTNLGRP_IPV4_ROUTE,
  RTNLGRP_IPV6_IFADDR,
  RTNLGRP_IPV6_ROUTE,
  RTNLGRP_LINK,
} from './constants.js';
import { parseLinkMessage } from './decode-link.js';
import { protocolName } from './decode-route.js';
import { openSocketIn } from './namespace.js';
import type { NetlinkSocket } from './socket.js';
import { attrStr, attrU32, parseAttrs, type NetlinkMessage } from './wire.js';

// Following a namespace's changes on a socket subscribed to rtnetlink's multicast groups, the
// events `ip monitor` printed, decoded from the messages themselves. The socket waits on a pool
// thread with a receive timeout, which bounds how long stop() waits for that thread to come back;
// once a second, so that an idle agent wakes no more often than its metrics sampling does.

const GROUPS: Readonly<Record<MonitorObject, readonly number[]>> = {
  link: [RTNLGRP_LINK],
  address: [RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR],
  route: [RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE],
};
const WAKE_MS = 1000;
const RTPROT_BOOT = 3;
const TABLE_NAMES: Readonly<Record<number, string>> = { 253: 'default', 255: 'local' };

/** The event of one multicast message, as {@link decodeMonitorLine} gives it for `ip monitor`'s line. */
export function eventOf(m: NetlinkMessage, names: Map<number, string>, at: Date): NetlinkEvent | undefined {
  switch (m.type) {
    case RTM_NEWLINK:
    case RTM_DELLINK: {
      const l = parseLinkMessage(m.payload);
      const name = attrStr(l.attrs.get(IFLA_IFNAME)) ?? `if${l.ifindex}`;
      if (m.type === RTM_NEWLINK) names.set(l.ifindex, name);
      const master = attrU32(l.attrs.get(IFLA_MASTER));
      return {
        object: 'link',
        deleted: m.type === RTM_DELLINK,
        name,
        up: (l.flags & IFF_UP) !== 0,
        ...(master === undefined || master === 0 ? {} : { master: names.get(master) ?? `if${master}` }),
        at,
      };
    }
    case RTM_NEWADDR:
    case RTM_DELADDR: {
      const attrs = parseAttrs(m.payload, IFADDRMSG_LEN);
      const local = attrs.get(IFA_LOCAL) ?? attrs.get(IFA_ADDRESS);
      if (local === undefined) return undefined;
      const index = m.payload.readUInt32LE(4);
      return {
        object: 'address',
        deleted: m.type === RTM_DELADDR,
        dev: names.get(index) ?? `if${index}`,
        address: `${ipText(local)}/${m.payload.readUInt8(1)}`,
        at,
      };
    }
    case RTM_NEWROUTE:
    case RTM_DELROUTE: {
      const attrs = parseAttrs(m.payload, RTMSG_LEN);
      const dst = attrs.get(RTA_DST);
      const len = m.payload.readUInt8(1);
      const oif = attrU32(attrs.get(RTA_OIF));
      const table = attrU32(attrs.get(RTA_TABLE)) ?? m.payload.readUInt8(4);
      return {
        object: 'route',
        deleted: m.type === RTM_DELROUTE,
        // As ip prints it: `default`, a host route without its length.
        dst:
          dst === undefined || len === 0
            ? 'default'
            : len === dst.length * 8
              ? ipText(dst)
              : `${ipText(dst)}/${len}`,
        ...(oif === undefined ? {} : { dev: names.get(oif) ?? `if${oif}` }),
        ...(table === 254 ? {} : { table: TABLE_NAMES[table] ?? String(table) }),
        // ip prints no `proto` for boot, the protocol of routes added without one.
        ...(m.payload.readUInt8(5) === RTPROT_BOOT ? {} : { protocol: protocolName(m.payload.readUInt8(5)) }),
        at,
      };
    }
    default:
      return undefined;
  }
}

/**
 * Subscribes to the groups of `objects` in `netns` and calls `onEvent` per change until `stop()`.
 * `names` seeds the index -> name map (events of addresses and routes carry indexes); new links
 * add themselves as their events arrive.
 */
export function monitorNative(
  netns: string | undefined,
  objects: readonly MonitorObject[],
  names: Map<number, string>,
  onEvent: (event: NetlinkEvent) => void,
): LineStream {
  const mask = objects.flatMap((o) => GROUPS[o]).reduce((m, g) => m | (1 << (g - 1)), 0);
  const socket: NetlinkSocket = openSocketIn(netns, mask);
  socket.setReceiveTimeout(WAKE_MS);
  let stopped = false;
  const exited: Promise<StreamExit> = (async () => {
    try {
      while (!stopped) {
        const messages = await socket.next();
        if (stopped) break;
        const at = new Date();
        for (const m of messages) {
          const e = eventOf(m, names, at);
          if (e !== undefined) onEvent(e);
        }
      }
      return { exitCode: 0, signal: null, stderr: '' };
    } catch (e) {
      return { exitCode: 1, signal: null, stderr: (e as Error).message };
    } finally {
      socket.close();
    }
  })();
  return {
    exited,
    async stop() {
      stopped = true;
      await exited;
    },
  };
}
