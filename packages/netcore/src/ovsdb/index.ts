// @fabrik/netcore/ovsdb: an RFC 7047 client for Open vSwitch's database and the OVS operations
// fabrik needs. See README.md in this folder.
export { connectOvsdb, checkTransactResult, parseEndpoint, CACHED_TABLES } from './client/index.js';
export type {
  OvsdbClient,
  ConnectOptions,
  ReconnectOptions,
  RequestOptions,
  MonitorTables,
  ConnectionState,
  OvsdbCache,
  RowChange,
  CachedTable,
  Endpoint,
  OvsdbLogger,
} from './client/index.js';
export { insert, where, comment, selectedRows, insertedUuid } from './ops/index.js';
export type {
  ColumnName,
  RowInput,
  ConditionInput,
  MutationInput,
  WaitOptions,
  TableQuery,
} from './ops/index.js';
export {
  OVS_OWNER_KEY,
  DEFAULT_OVS_OWNER,
  ensureBridge,
  deleteBridge,
  addPort,
  addPorts,
  planAddPorts,
  setPortVlan,
  deletePort,
  deletePorts,
  findPorts,
  waitForOfport,
  waitForVswitchd,
} from './ovs/index.js';
export type {
  OvsPortType,
  OvsOwnerOption,
  OvsVlanMode,
  BridgeSpec,
  PortSpec,
  PortVlanSettings,
  PortInfo,
  ObservedForAddPorts,
  PortOutcome,
} from './ovs/index.js';
export {
  OvsdbError,
  OvsdbConnectionError,
  OvsdbTimeoutError,
  OvsdbProtocolError,
  OvsdbRpcError,
  OvsdbOperationError,
  OvsdbNotFoundError,
  OvsdbOwnershipError,
  OvsdbConflictError,
  OvsdbInvalidInputError,
  OvsInterfaceError,
  isOvsdbError,
  isOvsdbConnectionError,
  isOvsdbTimeoutError,
  isOvsdbProtocolError,
  isOvsdbRpcError,
  isOvsdbOperationError,
  isOvsdbConstraintViolation,
  isOvsdbReferentialIntegrityError,
  isOvsdbNotFoundError,
  isOvsdbOwnershipError,
  isOvsdbConflictError,
  isOvsdbInvalidInputError,
  isOvsInterfaceError,
} from './errors.js';
export type { OvsdbOperationErrorKind } from './errors.js';
export { uuid, namedUuid, set, map, isUuidString, JsonStreamDecoder } from './wire/index.js';
export type {
  Uuid,
  NamedUuid,
  Atom,
  OvsSet,
  OvsMap,
  Value,
  WireRow,
  Condition,
  Mutation,
  Operation,
  OperationResult,
} from './wire/index.js';
export { VSWITCH_DATABASE, VSWITCH_SCHEMA_VERSION, vswitchColumns } from './model/index.js';
export type {
  TableName,
  VswitchTables,
  OpenVSwitchRow,
  BridgeRow,
  PortRow,
  InterfaceRow,
  ColumnType,
  TableColumns,
} from './model/index.js';
