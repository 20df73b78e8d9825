import { z } from 'zod';
import { opt, type LinkAttrs, type RawLinkView } from './common.js';
import { BridgeSpecSchema, bridgeTypeArgs, decodeBridge, type BridgeSpec } from './bridge.js';
import { DummySpecSchema, decodeDummy, dummyTypeArgs, type DummySpec } from './dummy.js';
import {
  MacvlanSpecSchema,
  decodeMacvlan,
  macvlanNeedsRecreate,
  macvlanTypeArgs,
  type MacvlanSpec,
  type ObservedMacvlanSpec,
} from './macvlan.js';
import {
  VethSpecSchema,
  decodeVeth,
  vethNeedsRecreate,
  vethTypeArgs,
  type ObservedVethSpec,
  type VethSpec,
} from './veth.js';
import {
  VlanSpecSchema,
  decodeVlan,
  vlanNeedsRecreate,
  vlanTypeArgs,
  type ObservedVlanSpec,
  type VlanSpec,
} from './vlan.js';
import {
  VrfSpecSchema,
  decodeVrf,
  vrfNeedsRecreate,
  vrfTypeArgs,
  type ObservedVrfSpec,
  type VrfSpec,
} from './vrf.js';
import {
  VxlanSpecSchema,
  decodeVxlan,
  vxlanNeedsRecreate,
  vxlanTypeArgs,
  type ObservedVxlanSpec,
  type VxlanSpec,
} from './vxlan.js';

/** Every link kind fabrik creates, discriminated by the kernel's kind string. */
export const LinkSpecSchema = z.discriminatedUnion('kind', [
  VrfSpecSchema,
  BridgeSpecSchema,
  VxlanSpecSchema,
  VlanSpecSchema,
  VethSpecSchema,
  MacvlanSpecSchema,
  DummySpecSchema,
]);
export type LinkSpec = VrfSpec | BridgeSpec | VxlanSpec | VlanSpec | VethSpec | MacvlanSpec | DummySpec;
export type LinkKind = LinkSpec['kind'];

/** A link of a kind this layer does not model (loopback, tun, OVS internal ports ...). Observed only. */
export interface GenericLinkSpec extends LinkAttrs {
  readonly kind: 'generic';
  /** The kernel's kind string; `undefined` for devices without one (loopback, physical NICs). */
  readonly linkKind: string | undefined;
}

/**
 * A link as observed: the kind's spec with every field the dump may leave out optional (a VRF
 * without a table, a VLAN whose parent is in another namespace ...). Decoders never fill in a
 * value the kernel did not report.
 */
export type ObservedLinkSpec =
  | ObservedVrfSpec
  | BridgeSpec
  | ObservedVxlanSpec
  | ObservedVlanSpec
  | ObservedVethSpec
  | ObservedMacvlanSpec
  | DummySpec
  | GenericLinkSpec;

/** The link a link is stacked on and cannot exist without (vlan/macvlan parent, vxlan underlay). */
export function lowerLinkOf(spec: LinkSpec | ObservedLinkSpec): string | undefined {
  switch (spec.kind) {
    case 'vlan':
    case 'macvlan':
      return spec.parent;
    case 'vxlan':
      return spec.dev;
    default:
      return undefined;
  }
}

function typeArgs(spec: LinkSpec): string[] {
  switch (spec.kind) {
    case 'vrf':
      return vrfTypeArgs(spec);
    case 'bridge':
      return bridgeTypeArgs(spec);
    case 'vxlan':
      return vxlanTypeArgs(spec);
    case 'vlan':
      return vlanTypeArgs(spec);
    case 'veth':
      return vethTypeArgs(spec);
    case 'macvlan':
      return macvlanTypeArgs(spec);
    case 'dummy':
      return dummyTypeArgs(spec);
  }
}

/**
 * `link add` arguments creating `spec` with its mtu and mac. Master and up state are not part
 * of it: the planner sets them after every link exists (create, then enslave, then up).
 */
export function linkAddArgs(spec: LinkSpec): string[] {
  const lower = spec.kind === 'vlan' || spec.kind === 'macvlan' ? ['link', spec.parent] : [];
  return [
    'link',
    'add',
    ...lower,
    'name',
    spec.name,
    ...opt('mtu', spec.mtu),
    ...opt('address', spec.mac),
    ...typeArgs(spec),
  ];
}

/** True when the kind-specific attributes differ in a way that cannot be changed in place. */
export function needsRecreate(desired: LinkSpec, observed: ObservedLinkSpec): boolean {
  if (desired.kind !== observed.kind) return true;
  switch (desired.kind) {
    case 'vrf':
      return vrfNeedsRecreate(desired, observed as ObservedVrfSpec);
    case 'vxlan':
      return vxlanNeedsRecreate(desired, observed as ObservedVxlanSpec);
    case 'vlan':
      return vlanNeedsRecreate(desired, observed as ObservedVlanSpec);
    case 'veth':
      return vethNeedsRecreate(desired, observed as ObservedVethSpec);
    case 'macvlan':
      return macvlanNeedsRecreate(desired, observed as ObservedMacvlanSpec);
    // A bridge's options change in place (bridgeChanges).
    case 'bridge':
    case 'dummy':
      return false;
  }
}

/** The kind-specific part of a link from `ip -j -d link` (`info_kind`, `info_data`, `link`). */
export function decodeKindSpec(
  name: string,
  infoKind: string | undefined,
  raw: RawLinkView,
): ObservedLinkSpec {
  switch (infoKind) {
    case 'vrf':
      return decodeVrf(name, raw);
    case 'bridge':
      return decodeBridge(name, raw);
    case 'vxlan':
      return decodeVxlan(name, raw);
    case 'vlan':
      return decodeVlan(name, raw);
    case 'veth':
      return decodeVeth(name, raw);
    case 'macvlan':
      return decodeMacvlan(name, raw);
    case 'dummy':
      return decodeDummy(name);
    default:
      return { kind: 'generic', name, linkKind: infoKind };
  }
}

export type { LinkAttrs, RawLinkView } from './common.js';
export { LinkAttrsSchema } from './common.js';
export type { VrfSpec, BridgeSpec, VxlanSpec, VlanSpec, VethSpec, MacvlanSpec, DummySpec };
export {
  BridgePortFlagsSchema,
  bridgePortArgs,
  decodeBridgePort,
  bridgeChanges,
  bridgeSetArgs,
} from './bridge.js';
export type { BridgePortFlags, BridgeOptions } from './bridge.js';
export type { ObservedVrfSpec, ObservedVxlanSpec, ObservedVlanSpec, ObservedVethSpec, ObservedMacvlanSpec };
export {
  VrfSpecSchema,
  BridgeSpecSchema,
  VxlanSpecSchema,
  VlanSpecSchema,
  VethSpecSchema,
  MacvlanSpecSchema,
  DummySpecSchema,
};
