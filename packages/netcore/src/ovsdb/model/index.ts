export type { AtomicType, ColumnType, TableColumns } from './columns.js';
export { VSWITCH_DATABASE, VSWITCH_SCHEMA_VERSION, vswitchColumns } from './vswitch.generated.js';
export type {
  VswitchTables,
  OpenVSwitchRow,
  BridgeRow,
  PortRow,
  InterfaceRow,
  FlowTableRow,
  QoSRow,
  QueueRow,
  MirrorRow,
  NetFlowRow,
  SFlowRow,
  IPFIXRow,
  FlowSampleCollectorSetRow,
  ControllerRow,
  ManagerRow,
  DatapathRow,
  CTZoneRow,
  CTTimeoutPolicyRow,
  SSLRow,
  AutoAttachRow,
} from './vswitch.generated.js';

import type { VswitchTables } from './vswitch.generated.js';
/** A table name of the Open_vSwitch schema. */
export type TableName = keyof VswitchTables;
