import { z } from 'zod';
import { InterfaceName, VlanId } from '@fabrik/api';
import { LinkAttrsSchema, num, str, type RawLinkView } from './common.js';

/** An 802.1Q (or 802.1ad) VLAN sub-interface of `parent`. Kernel kind `vlan` (module `8021q`). */
export const VlanSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('vlan'),
  parent: InterfaceName,
  id: VlanId,
  protocol: z.enum(['802.1Q', '802.1ad']).optional(),
});
export type VlanSpec = z.infer<typeof VlanSpecSchema>;

export const vlanTypeArgs = (spec: VlanSpec): string[] => [
  'type',
  'vlan',
  'id',
  String(spec.id),
  ...(spec.protocol === undefined ? [] : ['protocol', spec.protocol]),
];

/**
 * A VLAN as observed: `parent` is absent when it lives in another namespace (the dump then has
 * `link_netnsid` and no name), `id` when the dump does not show one.
 */
export type ObservedVlanSpec = Omit<VlanSpec, 'parent' | 'id'> & {
  readonly parent?: string;
  readonly id?: number;
};

export function decodeVlan(name: string, raw: RawLinkView): ObservedVlanSpec {
  const protocol = str(raw.infoData['protocol']);
  const id = num(raw.infoData['id']);
  return {
    kind: 'vlan',
    name,
    ...(raw.lowerLink === undefined ? {} : { parent: raw.lowerLink }),
    ...(id === undefined ? {} : { id }),
    ...(protocol === '802.1Q' || protocol === '802.1ad' ? { protocol } : {}),
  };
}

/** A parent that cannot be seen from here (another namespace) is not compared. */
export const vlanNeedsRecreate = (desired: VlanSpec, observed: ObservedVlanSpec): boolean =>
  desired.id !== observed.id ||
  (observed.parent !== undefined && desired.parent !== observed.parent) ||
  (desired.protocol !== undefined && desired.protocol !== (observed.protocol ?? '802.1Q'));
