export { runInLab, LAB_MODULES } from './uml.js';
export type { RunInLabOptions, LabRunResult } from './uml.js';
export { LabUnavailableError, LabModuleError, LabCrashedError } from './errors.js';
