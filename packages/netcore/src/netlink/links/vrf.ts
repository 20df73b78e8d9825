import { z } from 'zod';
import { RouteTableId } from '@fabrik/api';
import { LinkAttrsSchema, num, type RawLinkView } from './common.js';

/** A VRF device bound to routing table `table`. Kernel kind `vrf` (module `vrf`). */
export const VrfSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('vrf'),
  table: RouteTableId,
});
export type VrfSpec = z.infer<typeof VrfSpecSchema>;

/** Arguments after `ip link add NAME`: `type vrf table T`. */
export const vrfTypeArgs = (spec: VrfSpec): string[] => ['type', 'vrf', 'table', String(spec.table)];

/** A VRF as observed: `table` is absent when the dump does not show one. */
export type ObservedVrfSpec = Omit<VrfSpec, 'table'> & { readonly table?: number };

export function decodeVrf(name: string, raw: RawLinkView): ObservedVrfSpec {
  const table = num(raw.infoData['table']);
  return table === undefined ? { kind: 'vrf', name } : { kind: 'vrf', name, table };
}

/** The table of a VRF cannot change in place: a different (or unknown) table means delete and recreate. */
export const vrfNeedsRecreate = (desired: VrfSpec, observed: ObservedVrfSpec): boolean =>
  desired.table !== observed.table;
