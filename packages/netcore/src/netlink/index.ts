// @fabrik/netcore/netlink: typed links, an imperative handle per namespace, and the pure
// observe -> plan -> apply pipeline. See README.md.
export { createNetlink, createIprouteNetlink } from './handle.js';
export {
  loadNativeNetlink,
  NativeNetlinkUnavailableError,
  isNativeNetlinkUnavailableError,
} from './native/libc.js';
export type { CreationJournal, Netlink, NetlinkOptions, RouteListFilter } from './handle.js';
export { NetlinkBatchOpSchema, batchOpArgs } from './batch.js';
export type { NetlinkBatchOp } from './batch.js';
export { plan, observeScopeOf } from './plan.js';
export type { Plan, PlanOp, PlanOptions, LinkSetChanges } from './plan-ops.js';
export { formatPlan, encodeOp } from './encode.js';
export type { EncodedOp } from './encode.js';
export { ownershipMark, isOwnedBy, FABRIK_ROUTE_PROTOCOL } from './ownership.js';
export { canonicalIp } from './ip-text.js';
export { decodeDumps, decodeSysctls } from './observe.js';
export type { ObserveScope, ObservedState, RawDumps } from './observe.js';
export type { ApplyResult } from './apply.js';
export { parseDesiredState, DesiredStateSchema, DesiredLinkSchema, OwnerSchema } from './desired.js';
export type { DesiredState, DesiredLink, LinkExtras } from './desired.js';
export {
  LinkSpecSchema,
  VrfSpecSchema,
  BridgeSpecSchema,
  VxlanSpecSchema,
  VlanSpecSchema,
  VethSpecSchema,
  MacvlanSpecSchema,
  DummySpecSchema,
  BridgePortFlagsSchema,
  linkAddArgs,
} from './links/index.js';
export type {
  LinkSpec,
  LinkKind,
  LinkAttrs,
  ObservedLinkSpec,
  GenericLinkSpec,
  VrfSpec,
  BridgeSpec,
  VxlanSpec,
  VlanSpec,
  VethSpec,
  MacvlanSpec,
  DummySpec,
  BridgePortFlags,
  BridgeOptions,
  ObservedVrfSpec,
  ObservedVxlanSpec,
  ObservedVlanSpec,
  ObservedVethSpec,
  ObservedMacvlanSpec,
} from './links/index.js';
export {
  AddressSpecSchema,
  RouteSpecSchema,
  NeighbourSpecSchema,
  FdbSpecSchema,
  InterfaceSysctlsSchema,
  ADDR_GEN_MODES,
  ROUTE_SCOPES,
  ROUTE_PROTOCOLS,
  routeProtocolNumber,
} from './objects.js';
export { desiredRouteKey, observedRouteKey } from './plan-routes.js';
export type {
  AddressSpec,
  RouteSpec,
  RouteScopeName,
  NeighbourSpec,
  FdbSpec,
  InterfaceSysctls,
  AddrGenMode,
} from './objects.js';
export type { ObservedLink, ObservedAddress } from './decode/link.js';
export type { ObservedRoute } from './decode/route.js';
export type { ObservedNeighbour } from './decode/neigh.js';
export type { ObservedFdbEntry } from './decode/fdb.js';
export { decodeLinkDump } from './decode/link.js';
export { decodeRouteDump } from './decode/route.js';
export { decodeNeighDump } from './decode/neigh.js';
export { decodeFdbDump } from './decode/fdb.js';
export { decodeMonitorLine } from './decode/monitor.js';
export type { NetlinkEvent, MonitorObject } from './decode/monitor.js';
export { checkInterfaceName, vlanLinkName, parseNetnsTarget, MAX_INTERFACE_NAME_LENGTH } from './names.js';
export type { NetnsTarget } from './names.js';
export {
  InvalidDesiredStateError,
  LinkNotFoundError,
  ObjectExistsError,
  KernelRejectedError,
  KernelFeatureMissingError,
  OwnershipConflictError,
  ApplyNotConvergedError,
  NetlinkDecodeError,
  DumpInterruptedError,
  isDumpInterruptedError,
  isInvalidDesiredStateError,
  isLinkNotFoundError,
  isObjectExistsError,
  isKernelRejectedError,
  isKernelFeatureMissingError,
  isOwnershipConflictError,
  isApplyNotConvergedError,
  isNetlinkDecodeError,
  KERNEL_MODULE_OF_KIND,
} from './errors.js';
