// @fabrik/cni-ovs: the fabrik-ovs CNI plugin. The binary is dist/fabrik-ovs (see README.md);
// these exports serve tests, the benchmark and tools that embed the plugin.
export { fabrikOvsPlugin } from './plugin.js';
export { loadNetConf, NODE_LEVEL_FIELDS } from './config.js';
export type { NetConf } from './config.js';
export { resolveBridge } from './default-bridge.js';
export { hostVethName, HOST_VETH_PREFIX, MAX_NETWORK_NAME_LENGTH } from './names.js';
export { vlanSettings } from './ovs.js';
export type { OvsSession, AttachedPort, VlanSettings, OpenOvs } from './ovs.js';
export { PluginErrorCode } from './codes.js';
export type { PluginDeps } from './commands/context.js';
