// @fabrik/ipam: the fabrik-ipam CNI plugin. The binary is dist/fabrik-ipam (see README.md); the
// allocator itself is @fabrik/ippool. These exports serve tests, the benchmark and tools that
// embed the plugin.
export { fabrikIpamPlugin } from './plugin.js';
export { connectWithKubeconfig } from './context.js';
export type { PluginDeps } from './context.js';
export { loadIpamConf, podOwner, poolField } from './config.js';
export type { IpamConf } from './config.js';
export { IpamErrorCode, toCniError } from './errors.js';
