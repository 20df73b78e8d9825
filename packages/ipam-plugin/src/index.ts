// @fabrik/ipam-plugin: the verbs of the fabrik-ipam CNI plugin as a library. The fabrik-ipam binary
// (apps/ipam) runs them with a client of its own per call; agent-host runs them in-process on its
// CNI socket with the client it holds. The allocator itself is @fabrik/ippool.
export { fabrikIpamPlugin, connectWithKubeconfig } from './plugin.js';
export type { PluginDeps, IpPoolConnectSettings } from './context.js';
export { loadIpamConf, podOwner, poolField } from './config.js';
export type { IpamConf } from './config.js';
export { IpamErrorCode, toCniError } from './errors.js';
