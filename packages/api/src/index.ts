export {
  InterfaceName,
  SysctlSafeInterfaceName,
  MacAddress,
  NetnsName,
  VrfName,
  VlanId,
  Vni,
  Asn,
  RouteTableId,
  IpAddress,
  Cidr,
  InterfaceAddress,
  hasHostBits,
} from './primitives.js';
export {
  AGENT_HOST_CONFIG_PATH,
  AgentHostConfig,
  OvsBridgeConfig,
  SecondaryNetworkConfig,
} from './agent-host-config.js';
export {
  FrrIntentSchema,
  FRR_TEMPLATE_SETS,
  RouteTarget,
  UnderlayNeighbor,
  PrefixRule,
  StaticRoute,
  VrfIntent,
  Layer2Intent,
} from './routing-intent/schema.js';
export type {
  FrrIntent,
  FrrIntentInput,
  FrrTemplateSet,
  FrrVrfIntent,
  FrrLayer2Intent,
  FrrPrefixRule,
  FrrUnderlayNeighbor,
} from './routing-intent/schema.js';
export {
  FrrIntentError,
  isFrrIntentError,
  parseFrrIntent,
  redactIntent,
  frrIntentJsonSchema,
  REDACTED,
} from './routing-intent/parse.js';
export type { FrrIntentIssue } from './routing-intent/parse.js';
export { pathText } from './routing-intent/path.js';
