export { createTempNetns, withTempNetns, uniqueName } from './netns-sandbox.js';
export type { TempNetns } from './netns-sandbox.js';
export { startOvs } from './ovs.js';
export type { OvsInstance, StartOvsOptions } from './ovs.js';
export { startFrr } from './frr.js';
export type { FrrInstance, StartFrrOptions } from './frr.js';
