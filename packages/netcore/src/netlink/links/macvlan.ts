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

/**
 * A macvlan as observed: `parent` is absent when it lives in another namespace, `mode` when the
 * dump shows none or one this layer does not know.
 */
export type ObservedMacvlanSpec = Omit<MacvlanSpec, 'parent' | 'mode'> & {
  readonly parent?: string;
  readonly mode?: MacvlanSpec['mode'];
};

const isMacvlanMode = (m: string | undefined): m is MacvlanSpec['mode'] =>
  (MACVLAN_MODES as readonly (string | undefined)[]).includes(m);

export function decodeMacvlan(name: string, raw: RawLinkView): ObservedMacvlanSpec {
  const mode = str(raw.infoData['mode']);
  return {
    kind: 'macvlan',
    name,
    ...(raw.lowerLink === undefined ? {} : { parent: raw.lowerLink }),
    ...(isMacvlanMode(mode) ? { mode } : {}),
  };
}

/** A parent that cannot be seen from here (another namespace) is not compared; an unknown mode differs. */
export const macvlanNeedsRecreate = (desired: MacvlanSpec, observed: ObservedMacvlanSpec): boolean =>
  (observed.parent !== undefined && desired.parent !== observed.parent) || desired.mode !== observed.mode;
