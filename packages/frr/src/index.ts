export {
  FrrIntentSchema,
  FRR_TEMPLATE_SETS,
  RouteTarget,
  FrrIntentError,
  isFrrIntentError,
  parseFrrIntent,
  redactIntent,
  redactConfigText,
  frrIntentJsonSchema,
  pathText,
  REDACTED,
} from './intent.js';
export type {
  FrrIntent,
  FrrIntentInput,
  FrrIntentIssue,
  FrrTemplateSet,
  FrrVrfIntent,
  FrrLayer2Intent,
  FrrPrefixRule,
  FrrUnderlayNeighbor,
} from './intent.js';
export { toFrrModel, frrObjectNames, vrfIbgpLinkNames, vrfIbgpRouterId } from './model/index.js';
export type {
  FrrModel,
  FrrModelOptions,
  FrrNeighborModel,
  FrrVrfModel,
  FrrIbgpLinkModel,
  FrrPrefixListModel,
  FrrPrefixListEntryModel,
  FrrRouteMapEntryModel,
  FrrLargeCommunityListModel,
  FrrCommunityListModel,
  FrrCommunityListEntryModel,
  FrrNeighborAfModel,
  FrrVrfIpv6Model,
  FrrBfdProfileModel,
  FrrRouteTargetModel,
  FrrStaticRouteModel,
} from './model/index.js';
export {
  renderFrrConfig,
  renderFrrModel,
  frrPartialNames,
  FRR_TEMPLATE_HELPERS,
  BUILTIN_TEMPLATES_DIR,
  FrrTemplateError,
  isFrrTemplateError,
} from './render.js';
export type { RenderFrrOptions } from './render.js';
export { checkFrrConfig } from './check.js';
export { checkBgpdConfig, FRR_DAEMON_DIR } from './bgpd-check.js';
export type { FrrCheckResult, FrrCheckProblem } from './check.js';
export {
  reloadFrr,
  FrrReloadError,
  isFrrReloadError,
  FrrVniMappingError,
  isFrrVniMappingError,
  checkVniMapping,
  withFrrReloadLock,
  releaseL3Vnis,
  FRR_RELOAD_SCRIPT,
} from './reload.js';
export type { ReloadFrrOptions, FrrReloadResult, FrrReloadStage, FrrVniMismatch } from './reload.js';
export { diffConfigLines, parseReloadTest, expectedL3Vnis, droppedL3Vnis } from './config-text.js';
export type { FrrConfigChange } from './config-text.js';
export { pendingFrrChanges } from './pending.js';
export {
  readFrrStatus,
  readVrfVnis,
  readRunningConfigAndVrfVnis,
  parseFrrStatus,
  parseShowVrfVni,
} from './status.js';
export type { FrrStatus, FrrBgpSession, FrrEvpnVni, FrrVrfVni } from './status.js';
export { showRunningConfig, vtyshCommands, splitEchoedOutput } from './vtysh.js';
export type { FrrTarget } from './vtysh.js';
export { diffLines } from './diff.js';
export type { DiffOptions } from './diff.js';
