import { z } from 'zod';
import { InterfaceName, MacAddress } from '@fabrik/api';
import { LinkAttrsSchema, type RawLinkView } from './common.js';
import { netnsArg, parseNetnsTarget } from '../names.js';

/**
 * A veth pair. The peer may be created directly in another namespace, given by name
 * (`/run/netns/NAME`) or by path (`/proc/PID/ns/net`, a CNI netns path).
 */
export const VethSpecSchema = LinkAttrsSchema.extend({
  kind: z.literal('veth'),
  peer: z.object({
    name: InterfaceName,
    netns: z
      .string()
      .refine((ref) => {
        try {
          parseNetnsTarget(ref);
          return true;
        } catch {
          return false;
        }
      }, 'must be a netns name or an absolute netns path')
      .optional(),
    mtu: z.number().int().min(68).max(65535).optional(),
    mac: MacAddress.optional(),
  }),
});
export type VethSpec = z.infer<typeof VethSpecSchema>;

// iproute2 opens `netns` values that start with '/' as paths and the rest below /run/netns, so
// a CNI netns path works here without entering that namespace.
export const vethTypeArgs = (spec: VethSpec): string[] => [
  'type',
  'veth',
  'peer',
  'name',
  spec.peer.name,
  ...(spec.peer.mtu === undefined ? [] : ['mtu', String(spec.peer.mtu)]),
  ...(spec.peer.mac === undefined ? [] : ['address', spec.peer.mac]),
  ...(spec.peer.netns === undefined
    ? []
    : ['netns', netnsArg(parseNetnsTarget(spec.peer.netns, 'peer.netns'))]),
];

/** A veth as observed: the peer's name is known only when it lives in the same namespace (`link`). */
export interface ObservedVethSpec extends Omit<VethSpec, 'peer'> {
  readonly peer: { readonly name?: string };
}

export const decodeVeth = (name: string, raw: RawLinkView): ObservedVethSpec => ({
  kind: 'veth',
  name,
  peer: raw.linkNetnsId === undefined && raw.lowerLink !== undefined ? { name: raw.lowerLink } : {},
});

/** Peers in other namespaces cannot be observed from here: a veth is never recreated for its peer. */
export const vethNeedsRecreate = (_desired: VethSpec, _observed: ObservedVethSpec): boolean => false;
