export { createTempNetns, withTempNetns, uniqueName } from './netns-sandbox.js';
export type { TempNetns } from './netns-sandbox.js';
export { startOvs } from './ovs.js';
export type { OvsInstance, StartOvsOptions } from './ovs.js';
export { startFrr } from './frr.js';
export type { FrrInstance, StartFrrOptions } from './frr.js';
export { startApiServer } from './apiserver/server.js';
export type { ApiServer, StartApiServerOptions } from './apiserver/server.js';
export type { GrantedRule, PolicyRule } from './apiserver/auth.js';
