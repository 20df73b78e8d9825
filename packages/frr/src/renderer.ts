// @fabrik/frr/renderer: the pure half of the package. Intent, model, templates and the text
// helpers; nothing here spawns a process or talks to FRR, so a pipeline can render and compare
// configurations without the runtime's modules (@fabrik/frr/runtime) in its module graph.
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
export {
  toFrrModel,
  frrObjectNames,
  vrfIbgpLinkNames,
  vrfIbgpRouterId,
  FRR_MODEL_VERSION,
} from './model/index.js';
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
export { diffConfigLines, expectedL3Vnis, droppedL3Vnis } from './config-text.js';
export type { FrrConfigChange } from './config-text.js';
export { diffLines } from './diff.js';
export type { DiffOptions } from './diff.js';
