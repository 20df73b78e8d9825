// The Open vSwitch operations fabrik needs, each one OVSDB transaction (plus one read before it),
// idempotent, and limited to rows fabrik created (see ownership.ts).
export { OVS_OWNER_KEY, DEFAULT_OVS_OWNER } from './ownership.js';
export type { OvsOwnerOption } from './ownership.js';
export { ensureBridge, deleteBridge } from './bridge.js';
export type { BridgeSpec } from './bridge.js';
export { addPort, addPorts, planAddPorts, setPortVlan, deletePort, deletePorts, findPorts } from './ports.js';
export type {
  OvsPortType,
  OvsVlanMode,
  PortSpec,
  PortVlanSettings,
  PortInfo,
  ObservedForAddPorts,
  PortOutcome,
} from './ports.js';
export { waitForOfport, waitForOfportInCache, waitForVswitchd } from './vswitchd.js';
export {
  OVS_STATE_COLUMNS,
  planOvs,
  formatOvsPlan,
  validateOvsDesiredState,
  ovsOwnershipConflicts,
} from './state.js';
export type {
  OvsDesiredState,
  OvsDesiredBridge,
  OvsDesiredPort,
  OvsObservedState,
  OvsPlan,
  OvsChange,
  OvsOwnershipConflict,
} from './state.js';
export { applyOvsPlan, reconcileOvs } from './reconcile.js';
export type { ReconcileOvsOptions } from './reconcile.js';
