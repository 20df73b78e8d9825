import { z } from 'zod';
import { InterfaceName, IpAddress, Vni } from '@fabrik/api';
import { LinkAttrsSchema, bool, num, opt, str, type RawLinkView } from './common.js';
import { sameIp } from '../ip-text.js';

/**
 * A VXLAN device. Kernel kind `vxlan`. For EVPN: `learning: false`, `local` = the VTEP address,
 * `dstport: 4789`; FRR installs the remote VTEPs.
 */
export const VxlanSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('vxlan'),
  vni: Vni,
  local: IpAddress.optional(),
  /** Unicast remote VTEP (point to point); mutually exclusive with `group`. */
  remote: IpAddress.optional(),
  /** Multicast group for BUM traffic. */
  group: IpAddress.optional(),
  dstport: z.number().int().min(1).max(65535).optional(),
  learning: z.boolean().optional(),
  /** Underlay device. */
  dev: InterfaceName.optional(),
});
export type VxlanSpec = z.infer<typeof VxlanSpecSchema>;

export const vxlanTypeArgs = (spec: VxlanSpec): string[] => [
  'type',
  'vxlan',
  'id',
  String(spec.vni),
  ...opt('local', spec.local),
  ...opt('remote', spec.remote),
  ...opt('group', spec.group),
  ...opt('dstport', spec.dstport),
  ...(spec.learning === undefined ? [] : [spec.learning ? 'learning' : 'nolearning']),
  ...opt('dev', spec.dev),
];

/** A VXLAN device as observed: `vni` is absent when the dump does not show one. */
export type ObservedVxlanSpec = Omit<VxlanSpec, 'vni'> & { readonly vni?: number };

export function decodeVxlan(name: string, raw: RawLinkView): ObservedVxlanSpec {
  const d = raw.infoData;
  const spec: { -readonly [K in keyof ObservedVxlanSpec]: ObservedVxlanSpec[K] } = { kind: 'vxlan', name };
  const vni = num(d['id']);
  if (vni !== undefined) spec.vni = vni;
  const local = str(d['local']) ?? str(d['local6']);
  const remote = str(d['remote']) ?? str(d['remote6']);
  const group = str(d['group']) ?? str(d['group6']);
  const dstport = num(d['port']);
  const learning = bool(d['learning']);
  const dev = str(d['link']);
  if (local !== undefined) spec.local = local;
  if (remote !== undefined) spec.remote = remote;
  if (group !== undefined) spec.group = group;
  if (dstport !== undefined) spec.dstport = dstport;
  if (learning !== undefined) spec.learning = learning;
  if (dev !== undefined) spec.dev = dev;
  return spec;
}

/** None of the VXLAN attributes is changed in place here: any difference means recreate. */
export const vxlanNeedsRecreate = (desired: VxlanSpec, observed: ObservedVxlanSpec): boolean =>
  desired.vni !== observed.vni ||
  !sameIp(desired.local, observed.local) ||
  !sameIp(desired.remote, observed.remote) ||
  !sameIp(desired.group, observed.group) ||
  (desired.dstport !== undefined && desired.dstport !== observed.dstport) ||
  (desired.learning !== undefined && desired.learning !== observed.learning) ||
  (desired.dev !== undefined && desired.dev !== observed.dev);
