import { z } from 'zod';
import { LinkAttrsSchema, bool, type RawLinkView } from './common.js';

/** A Linux bridge. Kernel kind `bridge`. `vlanFiltering` needs a kernel with bridge VLAN filtering. */
export const BridgeSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('bridge'),
  vlanFiltering: z.boolean().optional(),
});
export type BridgeSpec = z.infer<typeof BridgeSpecSchema>;

export const bridgeTypeArgs = (spec: BridgeSpec): string[] => [
  'type',
  'bridge',
  ...(spec.vlanFiltering === undefined ? [] : ['vlan_filtering', spec.vlanFiltering ? '1' : '0']),
];

export const decodeBridge = (name: string, raw: RawLinkView): BridgeSpec => {
  const vlanFiltering = bool(raw.infoData['vlan_filtering']);
  return vlanFiltering === undefined ? { kind: 'bridge', name } : { kind: 'bridge', name, vlanFiltering };
};

/** Bridge options the kernel changes in place (`ip link set dev NAME type bridge ...`). */
export interface BridgeOptions {
  readonly vlanFiltering?: boolean;
}

/** `type bridge vlan_filtering 0|1` for the options that are set. */
export const bridgeSetArgs = (options: BridgeOptions): string[] => [
  'type',
  'bridge',
  ...(options.vlanFiltering === undefined ? [] : ['vlan_filtering', options.vlanFiltering ? '1' : '0']),
];

/** The in-place changes that bring an observed bridge to the desired options (none: `undefined`). */
export function bridgeChanges(desired: BridgeSpec, observed: BridgeSpec): BridgeOptions | undefined {
  return desired.vlanFiltering !== undefined && desired.vlanFiltering !== observed.vlanFiltering
    ? { vlanFiltering: desired.vlanFiltering }
    : undefined;
}

/** Per-port flags of a bridge port (`ip link set dev X type bridge_slave ...`). */
export const BridgePortFlagsSchema = z.object({
  learning: z.boolean().optional(),
  neighSuppress: z.boolean().optional(),
  hairpin: z.boolean().optional(),
});
export type BridgePortFlags = z.infer<typeof BridgePortFlagsSchema>;

const onOff = (v: boolean): string => (v ? 'on' : 'off');

/** `type bridge_slave learning off neigh_suppress on ...` for the flags that are set. */
export const bridgePortArgs = (flags: BridgePortFlags): string[] => [
  'type',
  'bridge_slave',
  ...(flags.learning === undefined ? [] : ['learning', onOff(flags.learning)]),
  ...(flags.neighSuppress === undefined ? [] : ['neigh_suppress', onOff(flags.neighSuppress)]),
  ...(flags.hairpin === undefined ? [] : ['hairpin', onOff(flags.hairpin)]),
];

/** Port flags from `info_slave_data` of a bridge port. */
export const decodeBridgePort = (
  slaveData: Readonly<Record<string, unknown>>,
): Required<BridgePortFlags> => ({
  learning: bool(slaveData['learning']) ?? true,
  neighSuppress: bool(slaveData['neigh_suppress']) ?? false,
  hairpin: bool(slaveData['hairpin']) ?? false,
});
