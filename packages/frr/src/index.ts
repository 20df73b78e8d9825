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
export { toFrrModel, frrObjectNames, vrfIbgpLinkNames } from './model.js';
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
  FrrRouteTargetModel,
  FrrStaticRouteModel,
} from './model.js';
export { renderFrrConfig, renderFrrModel, frrPartialNames, FRR_TEMPLATE_HELPERS, BUILTIN_TEMPLATES_DIR, FrrTemplateError, isFrrTemplateError } from './render.js';
export type { RenderFrrOptions } from './render.js';
