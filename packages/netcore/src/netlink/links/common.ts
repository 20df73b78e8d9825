import { z } from 'zod';
import { InterfaceName, MacAddress } from '@fabrik/api';

/**
 * Attributes every link kind has. An optional field left `undefined` means "leave as it is"
 * (for a new link: the kernel default); `master: null` means "no master".
 */
export const LinkAttrsSchema = z.object({
  name: InterfaceName,
  mtu: z.number().int().min(68).max(65535).optional(),
  mac: MacAddress.optional(),
  up: z.boolean().optional(),
  master: InterfaceName.nullable().optional(),
  /**
   * The ifalias. In a desired state it is a label appended to the ownership mark
   * (`fabrik:<owner>:<alias>`). Restricted to characters that need no quoting anywhere.
   */
  alias: z
    .string()
    .regex(/^[A-Za-z0-9_.:@+=-]{1,200}$/, 'must be 1-200 of A-Z a-z 0-9 _ . : @ + = -')
    .optional(),
});

export type LinkAttrs = z.infer<typeof LinkAttrsSchema>;

/** The `info_data` object of `ip -j -d link show`, per kind. */
export type InfoData = Readonly<Record<string, unknown>>;

/** What decoding a link kind needs from one `ip -j -d link` entry. */
export interface RawLinkView {
  /** `info_data` of the link's kind. */
  readonly infoData: InfoData;
  /** `link`: the lower device (vlan/macvlan parent, veth peer) when it is in the same netns. */
  readonly lowerLink: string | undefined;
  /** `link_netnsid`: set when the lower device or peer lives in another netns. */
  readonly linkNetnsId: number | undefined;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
export const bool = (v: unknown): boolean | undefined =>
  typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : undefined;

/** `[flag, value]` when `value` is defined, nothing otherwise: keeps encoders flat. */
export const opt = (flag: string, value: string | number | undefined): string[] =>
  value === undefined ? [] : [flag, String(value)];
