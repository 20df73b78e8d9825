export { runInLab, LAB_MODULES } from './uml.js';
export type { RunInLabOptions, LabRunResult } from './uml.js';
export { LabUnavailableError, LabModuleError, LabCrashedError } from './errors.js';
export { buildTopology } from './topology.js';
export type { Topology, LinkEnd, StaticRoute, BuiltTopology } from './topology.js';
export { auditNode, formatAudit, mergeAudits, linkKey, ovsRowKey } from './audit/findings.js';
export type {
  AuditArea,
  AuditFinding,
  AuditResult,
  NodeInventory,
  NodeExpectation,
  OwnedLink,
  OwnedOvsRow,
  FrrConfigLine,
} from './audit/findings.js';
export { parseFrrRunningConfig } from './audit/frr-config.js';
export { auditIpPools } from './audit/ippools.js';
export type { AuditedIpPool, LiveAttachment } from './audit/ippools.js';
export {
  takeNodeInventory,
  ownedLinks,
  ownedOvsRows,
  frrConfigLines,
  filesUnder,
} from './audit/inventory.js';
export type { AuditTarget } from './audit/inventory.js';
