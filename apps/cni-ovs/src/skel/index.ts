// A CNI plugin skeleton (the TypeScript counterpart of libcni's pkg/skel), independent of OVS.
export { runPlugin, jsonDepth, MAX_CONTAINER_ID_LENGTH, MAX_CONFIG_DEPTH } from './run-plugin.js';
export type { CmdArgs, CniCommand, PluginFuncs, PluginIo, PluginOptions } from './run-plugin.js';
export { CniError, CniErrorCode, isCniError, toErrorJson } from './errors.js';
export { SPEC_VERSIONS, compareVersions, negotiateVersion, specHas, isSpecVersion } from './versions.js';
export type { SpecVersion } from './versions.js';
export { toVersionedResult } from './result.js';
export { parseCniResult } from './parse-result.js';
export type { CniResult, CniInterface, CniIpConfig, CniRoute, CniDns } from './result.js';
export { parseCniArgs } from './cni-args.js';
