import { z } from 'zod';
import { InterfaceName } from '@fabrik/api';
import { LinkAttrsSchema, str, type RawLinkView } from './common.js';

export const MACVLAN_MODES = ['private', 'vepa', 'bridge', 'passthru', 'source'] as const;

/** A macvlan on `parent`. Kernel kind `macvlan`. */
export const MacvlanSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('macvlan'),
  parent: InterfaceName,
  mode: z.enum(MACVLAN_MODES),
});
export type MacvlanSpec = z.infer<typeof MacvlanSpecSchema>;

export const macvlanTypeArgs = (spec: MacvlanSpec): string[] => ['type', 'macvlan', 'mode', spec.mode];

export function decodeMacvlan(name: string, raw: RawLinkView): MacvlanSpec {
  const mode = str(raw.infoData['mode']);
  return {
    kind: 'macvlan',
    name,
    parent: raw.lowerLink ?? '',
    mode: (MACVLAN_MODES as readonly string[]).includes(mode ?? '') ? (mode as MacvlanSpec['mode']) : 'vepa',
  };
}

/** An observed parent of '' lives in another namespace (its name is not in the dump): not compared. */
export const macvlanNeedsRecreate = (desired: MacvlanSpec, observed: MacvlanSpec): boolean =>
  (observed.parent !== '' && desired.parent !== observed.parent) || desired.mode !== observed.mode;
