import { InterfaceAddress, IpAddress, Cidr } from '../primitives.js';
import { RouteTarget } from '../routing-intent/schema.js';
import { withRules } from '../rules.js';

// Field schemas of the network kinds: the shared primitives plus what the CRD needs to check
// them too (a pattern, a CEL rule) and to keep the API server's CEL cost estimate small (a
// maxLength implied by the syntax, so zod needs no check of its own).

/**
 * A route target of a VRF or Layer2Network: the routing intent's rule, whose pattern the CRD
 * carries too.
 */
export const KubeRouteTarget = RouteTarget;

/**
 * The longest text of an address zod accepts: IPv6 with an embedded IPv4 part
 * (`1111:2222:3333:4444:5555:6666:255.255.255.255`).
 */
const MAX_ADDRESS_TEXT = 45;

/**
 * An address in a fabrik object. Its maxLength (implied by the address syntax, so zod needs no
 * check of its own) tells the API server how long the string can be, which keeps its cost
 * estimate of the CEL rules over it small.
 */
export const KubeIpAddress = IpAddress.meta({ maxLength: MAX_ADDRESS_TEXT });

/** An address with prefix length in a fabrik object (maxLength as for addresses). */
export const KubeInterfaceAddress = InterfaceAddress.meta({ maxLength: MAX_ADDRESS_TEXT + 4 });

/**
 * A network CIDR in a fabrik object. zod's {@link Cidr} already refuses host bits; the CEL rule
 * says the same to the API server (a JSON schema pattern cannot). maxLength as for addresses.
 */
export const NetworkCidr = withRules(Cidr, [
  {
    message: 'has host bits set (use the network address)',
    cel: 'cidr(self).ip() == cidr(self).masked().ip()',
  },
]).meta({ maxLength: MAX_ADDRESS_TEXT + 4 });
