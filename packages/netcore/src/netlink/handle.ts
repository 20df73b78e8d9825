// The netlink handle: createNetlink speaks rtnetlink in this process (native/handle.ts); the
// iproute2 handle (iproute-handle.ts) is the tests' independent oracle.
export { createNativeNetlink as createNetlink } from './native/handle.js';
export { createIprouteNetlink } from './iproute-handle.js';
export type { CreationJournal, Netlink, NetlinkOptions, RouteListFilter } from './netlink-api.js';
