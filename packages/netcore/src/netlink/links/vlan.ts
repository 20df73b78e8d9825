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

export function decodeVlan(name: string, raw: RawLinkView): VlanSpec {
  const protocol = str(raw.infoData['protocol']);
  return {
    kind: 'vlan',
    name,
    // '' when the parent lives in another namespace (the dump then has link_netnsid, no name).
    parent: raw.lowerLink ?? '',
    id: num(raw.infoData['id']) ?? 0,
    ...(protocol === '802.1Q' || protocol === '802.1ad' ? { protocol } : {}),
  };
}

/** An observed parent of '' lives in another namespace (its name is not in the dump): not compared. */
export const vlanNeedsRecreate = (desired: VlanSpec, observed: VlanSpec): boolean =>
  desired.id !== observed.id ||
  (observed.parent !== '' && desired.parent !== observed.parent) ||
  (desired.protocol !== undefined && desired.protocol !== (observed.protocol ?? '802.1Q'));
