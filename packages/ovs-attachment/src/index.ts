// @fabrik/ovs-attachment: the verbs of the fabrik-ovs CNI plugin as a library. The fabrik-ovs
// binary (apps/cni-ovs) runs them by itself; agent-host runs them for it on its CNI socket.
export { fabrikOvsPlugin, standalonePlugin } from './plugin.js';
export { loadNetConf, NODE_LEVEL_FIELDS } from './config.js';
export type { NetConf } from './config.js';
export { resolveBridge } from './default-bridge.js';
export { hostVethName, HOST_VETH_PREFIX, MAX_NETWORK_NAME_LENGTH } from './names.js';
export { vlanSettings } from './ovs.js';
export type { OvsSession, AttachedPort, VlanSettings, OpenOvs } from './ovs.js';
export { PluginErrorCode } from './codes.js';
export { openOvsSession, monitoredOvsSession } from './ovs-session.js';
export type { PluginDeps, AttachmentRequest } from './commands/context.js';
export type { InProcessIpam } from './ipam.js';
