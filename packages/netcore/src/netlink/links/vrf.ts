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

export const decodeVrf = (name: string, raw: RawLinkView): VrfSpec => ({
  kind: 'vrf',
  name,
  table: num(raw.infoData['table']) ?? 0,
});

/** The table of a VRF cannot change in place: a different table means delete and recreate. */
export const vrfNeedsRecreate = (desired: VrfSpec, observed: VrfSpec): boolean =>
  desired.table !== observed.table;
