export { runInLab, LAB_MODULES } from './uml.js';
export type { RunInLabOptions, LabRunResult } from './uml.js';
export { LabUnavailableError, LabModuleError, LabCrashedError } from './errors.js';
export { buildTopology } from './topology.js';
export type { Topology, LinkEnd, BuiltTopology } from './topology.js';
