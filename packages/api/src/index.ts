export {
  InterfaceName,
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
