// A CNI plugin skeleton (the TypeScript counterpart of libcni's pkg/skel) and what every fabrik
// plugin process needs around it: the node settings file, bounded file-system steps, `install`.
export {
  runPlugin,
  invocationErrorJson,
  jsonDepth,
  MAX_CONTAINER_ID_LENGTH,
  MAX_CONFIG_DEPTH,
} from './run-plugin.js';
export type { CmdArgs, CniCommand, PluginFuncs, PluginIo, PluginOptions } from './run-plugin.js';
export { runCniMain, CNI_LOG_LEVEL_ENV } from './main.js';
export type { CniMainOptions } from './main.js';
export { CniError, CniErrorCode, isCniError, toErrorJson } from './errors.js';
export { SPEC_VERSIONS, compareVersions, negotiateVersion, specHas, isSpecVersion } from './versions.js';
export type { SpecVersion } from './versions.js';
export { toVersionedResult } from './result.js';
export { parseCniResult } from './parse-result.js';
export type { CniResult, CniInterface, CniIpConfig, CniRoute, CniDns, FabrikResultField } from './result.js';
export { parseCniArgs, readCniArgs, RequestedIp } from './cni-args.js';
export type { CniArgs } from './cni-args.js';
export { loadNodeSettings } from './node-settings.js';
export type { NodeSettings } from './node-settings.js';
export {
  readConfigFile,
  readConfigText,
  parseConfigText,
  derivedFromText,
  ConfigSyntaxError,
} from './config-file.js';
export {
  FS_STEP_TIMEOUT_MS,
  FsStepError,
  isFsStepError,
  fsStep,
  readRegularFile,
  makeDirectory,
  fileSystemType,
  describeFileType,
} from './bounded-fs.js';
export { installPlugin, writeFileAtomic } from './install.js';
export {
  planNodeInstall,
  readInstallInputs,
  applyNodeInstall,
  parseInstallNodeArgs,
  serviceAccountKubeconfig,
  apiServerUrl,
  withInterpreter,
  InstallInputError,
  NODE_BINARY_NAME,
} from './install-node.js';
export type {
  NodeFile,
  NodeInstallInputs,
  InstallNodeOptions,
  ServiceAccountCredentials,
} from './install-node.js';
export {
  FAST_PATH_PROTOCOL_VERSION,
  MAX_FAST_PATH_MESSAGE_BYTES,
  encodeFastPathMessage,
  fastPathRefusal,
  parseFastPathRequest,
  parseFastPathResponse,
} from './fast-path.js';
export type { FastPathRequest, FastPathResponse, FastPathAnswer, FastPathRefusal } from './fast-path.js';
export {
  agentHostSocketOf,
  callAgent,
  fastPathEnv,
  untrustedSocket,
  agentTimeoutMs,
  AGENT_TIMEOUT_ENV,
  DEFAULT_AGENT_TIMEOUT_MS,
} from './fast-path-client.js';
export type { AgentCallOutcome } from './fast-path-client.js';
