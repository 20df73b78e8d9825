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
