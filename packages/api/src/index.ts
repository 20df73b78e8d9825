export { FabrikError, isFabrikError, errorGuard } from './errors.js';
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
export { ApiValidationError, isApiValidationError, isPathWithin, parseWith } from './validation.js';
export type { FieldIssue, ParseOptions, ParseResult } from './validation.js';
export { withRules, CEL_VALIDATIONS } from './rules.js';
export type { ObjectRule, CelValidation } from './rules.js';
export {
  ObjectName,
  NamespaceName,
  LabelKey,
  LabelValue,
  Timestamp,
  objectMeta,
  objectNameOf,
  boundedRecord,
  LABEL_SELECTOR_OPERATORS,
  labelKeyProblem,
  labelValueProblem,
  LabelSelectorRequirement,
  LabelSelector,
  Condition,
  Conditions,
} from './kube/meta.js';
export type { LabelSelectorOperator } from './kube/meta.js';
export { GROUP, VERSION, API_VERSION } from './network/group.js';
export type { PrinterColumn, ResourceKind } from './network/group.js';
export {
  VrfObjectName,
  VrfPrefixRule,
  VrfStaticRoute,
  VrfImportFilter,
  vrfAddressFamilies,
  VRF_ADDRESS_FAMILIES,
  VrfSpec,
  VrfStatus,
  Vrf,
  VRF_RESOURCE,
  parseVrf,
} from './network/vrf.js';
export {
  DEFAULT_BGP_PASSWORD_KEY,
  SecretKeyReference,
  BgpPeeringSpec,
  BgpPeeringStatus,
  BgpPeering,
  BGP_PEERING_RESOURCE,
  parseBgpPeering,
} from './network/bgp-peering.js';
export { KubePrefixMatch, KubeFilterItem, KubeFilter } from './network/filter.js';
export {
  DEFAULT_LAYER2_MTU,
  Layer2NetworkSpec,
  Layer2NetworkStatus,
  Layer2Network,
  LAYER2_NETWORK_RESOURCE,
  parseLayer2Network,
} from './network/layer2-network.js';
export {
  IpRange,
  SubnetInfo,
  IpPoolSpec,
  PodOwner,
  IpAddressState,
  IpPoolStatus,
  IpPool,
  IP_POOL_RESOURCE,
  parseIpPool,
} from './network/ip-pool.js';
export {
  CONFIG_STATUSES,
  NODE_NETWORK_STATUS_SECTIONS,
  ObjectError,
  NodeNetworkStatusSection,
  NodeNetworkStatusStatus,
  NodeNetworkStatus,
  NODE_NETWORK_STATUS_RESOURCE,
  parseNodeNetworkStatus,
  parseNodeNetworkStatusSection,
} from './network/node-network-status.js';
export type { ConfigStatus, NodeNetworkStatusSectionName } from './network/node-network-status.js';
export {
  NODE_IDENTITY_ANNOTATIONS,
  NodeIdentity,
  NodeUnderlay,
  RenderedObject,
  IpPoolVlan,
  HostBridge,
  NodeNetworkConfigSpec,
  NodeNetworkConfigAgentStatus,
  NodeNetworkConfigStatus,
  NodeNetworkConfig,
  NODE_NETWORK_CONFIG_RESOURCE,
  parseNodeNetworkConfig,
} from './network/node-network-config.js';
export {
  NETWORK_ROLLOUT_NAME,
  ROLLOUT_RETRY_ANNOTATION,
  ROLLOUT_PHASES,
  RolloutFailure,
  NetworkRolloutSpec,
  NetworkRolloutStatus,
  NetworkRollout,
  NETWORK_ROLLOUT_RESOURCE,
} from './network/network-rollout.js';
export {
  NAD_GROUP,
  NAD_VERSION,
  NetworkAttachmentDefinitionSpec,
  NetworkAttachmentDefinition,
  NETWORK_ATTACHMENT_DEFINITION_RESOURCE,
  parseNetworkAttachmentDefinition,
} from './network/network-attachment-definition.js';
export { KubeIpAddress, KubeInterfaceAddress, KubeRouteTarget, NetworkCidr } from './network/fields.js';
export { RESOURCE_KINDS } from './network/resources.js';
export { checkIntentConflicts } from './network/conflicts.js';
export type {
  IntentConflictOptions,
  VrfForConflicts,
  Layer2NetworkForConflicts,
  BgpPeeringForConflicts,
} from './network/conflicts.js';
export { toStructuralSchema, StructuralSchemaError } from './crd/structural.js';
export type { JsonSchema } from './crd/structural.js';
export { customResourceDefinition, openApiSchemaOf } from './crd/custom-resource-definition.js';
export type { CustomResourceDefinition } from './crd/custom-resource-definition.js';
export {
  AbsolutePath,
  ListenAddress,
  IntentSource,
  StartupTaint,
  DEFAULT_SECRET_NAMESPACE,
} from './config/common.js';
export {
  AGENT_NETNS_CONFIG_PATH,
  AGENT_NETNS_MODES,
  AgentNetnsConfig,
  parseAgentNetnsConfig,
} from './config/agent-netns-config.js';
export type { AgentNetnsConfigInput } from './config/agent-netns-config.js';
export {
  AGENT_HOST_CONFIG_PATH,
  AgentHostConfig,
  OvsBridgeConfig,
  SecondaryNetworkConfig,
  PhysicalInterface,
  VlanIdOrRange,
  OvsdbAddress,
  DEFAULT_OVSDB_SOCKET,
  TrunkConfig,
  RelayConfig,
  physicalInterfaceName,
  physicalInterfaceVlans,
  carriesLayer2Networks,
  parseAgentHostConfig,
} from './config/agent-host-config.js';
export type { AgentHostConfigInput } from './config/agent-host-config.js';
export {
  FrrIntentSchema,
  FRR_TEMPLATE_SETS,
  CROSS_FIELD_RULES,
  RouteTarget,
  RouteTargets,
  UnderlayNeighbor,
  BgpPeer,
  PrefixRule,
  PrefixMatch,
  Filter,
  FilterItem,
  StaticRoute,
  VrfIntent,
  Layer2Intent,
  FabricLoopGuard,
  BfdProfile,
  BfdTimers,
  BgpPassword,
  BgpAsn,
  Community,
  FrrVrfName,
  NeighborInterface,
  Network,
  AggregatePrefix,
} from './routing-intent/schema.js';
export type {
  FrrIntent,
  FrrIntentInput,
  FrrTemplateSet,
  FrrVrfIntent,
  FrrLayer2Intent,
  FrrPrefixRule,
  FrrUnderlayNeighbor,
  FrrBgpPeer,
  FrrFilter,
  FrrFilterItem,
  FrrStaticRoute,
  FrrBfdProfile,
  FrrNeighborBfd,
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
export { CNI_NODE_SETTINGS_PATH, CNI_NODE_SETTINGS_ENV } from './config/cni-settings-file.js';
export {
  DEFAULT_CNI_CACHE_DIR,
  DEFAULT_IPAM_KUBECONFIG,
  DEFAULT_HOST_LOCAL_DATA_DIR,
  DEFAULT_IPAM_TYPES,
  NOT_IPAM_PLUGINS,
  IpamPluginType,
  CniNodeSettings,
  CniIpamSettings,
  CniTimeouts,
  NodeLocalPath,
  parseCniNodeSettings,
} from './config/cni-settings.js';
export type { CniNodeSettingsInput } from './config/cni-settings.js';
export { PortIds, CNI_OVS_OWNER } from './ovs-port-ids.js';
export { familyOf, canonicalIp, compareIp } from './routing-intent/ip.js';
export { nonUnicastKind } from './network/ip.js';
export type { NonUnicastKind } from './network/ip.js';
export type { IpFamily } from './routing-intent/ip.js';
