import { z } from 'zod';
import { SysctlSafeInterfaceName } from '@fabrik/api';
import {
  BridgePortFlagsSchema,
  BridgeSpecSchema,
  DummySpecSchema,
  MacvlanSpecSchema,
  VethSpecSchema,
  VlanSpecSchema,
  VrfSpecSchema,
  VxlanSpecSchema,
  type BridgePortFlags,
  type LinkSpec,
} from './links/index.js';
import {
  AddressSpecSchema,
  FdbSpecSchema,
  InterfaceSysctlsSchema,
  NeighbourSpecSchema,
  RouteSpecSchema,
  type AddressSpec,
  type FdbSpec,
  type InterfaceSysctls,
  type NeighbourSpec,
  type RouteSpec,
} from './objects.js';
import { validate } from './validate.js';

/** What a desired link carries besides its kind spec. `undefined` = leave that aspect alone. */
export const LinkExtrasSchema = z.object({
  /** Bridge port flags; the link must have a bridge as master. */
  port: BridgePortFlagsSchema.optional(),
  /** The complete set of addresses (IPv6 link-local addresses the kernel adds are left alone). */
  addresses: z.array(AddressSpecSchema).optional(),
  sysctls: InterfaceSysctlsSchema.optional(),
});

export interface LinkExtras {
  readonly port?: BridgePortFlags;
  readonly addresses?: readonly AddressSpec[];
  readonly sysctls?: InterfaceSysctls;
}

/** A desired link: a kind spec (see links/) plus port flags, addresses and sysctls. */
export type DesiredLink = LinkSpec & LinkExtras;

// Each kind extended with the extras (a discriminated union of plain objects parses several
// times faster than an intersection, which matters with hundreds of links).
export const DesiredLinkSchema = z.discriminatedUnion('kind', [
  VrfSpecSchema.extend(LinkExtrasSchema.shape),
  BridgeSpecSchema.extend(LinkExtrasSchema.shape),
  VxlanSpecSchema.extend(LinkExtrasSchema.shape),
  VlanSpecSchema.extend(LinkExtrasSchema.shape),
  VethSpecSchema.extend(LinkExtrasSchema.shape),
  MacvlanSpecSchema.extend(LinkExtrasSchema.shape),
  DummySpecSchema.extend(LinkExtrasSchema.shape),
]);

/** Who owns the objects of a desired state: part of the ownership mark `fabrik:<owner>`. */
export const OwnerSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1-32 of a-z 0-9 - (it becomes part of the ifalias mark)');

/**
 * The desired state of one network namespace, as owned by `owner`.
 * - `links`: the complete set of links this owner wants; its other marked links are deleted.
 * - `routes`: when given, the complete set of routes this owner wants (marked by protocol);
 *   `undefined` leaves routes alone.
 * - `neighbours`, `fdb`: entries to ensure; entries not listed are left alone (the kernel,
 *   zebra and EVPN install their own).
 */
export const DesiredStateSchema = z
  .object({
    owner: OwnerSchema,
    links: z.array(DesiredLinkSchema),
    routes: z.array(RouteSpecSchema).optional(),
    neighbours: z.array(NeighbourSpecSchema).optional(),
    fdb: z.array(FdbSpecSchema).optional(),
  })
  .superRefine((state, ctx) => {
    // A link's sysctls are written below net/*/conf/NAME/: not for names that are namespace-wide
    // knobs (`all`, `default`) or the loopback.
    state.links.forEach((l, i) => {
      const safe = SysctlSafeInterfaceName.safeParse(l.name);
      if (l.sysctls !== undefined && !safe.success)
        ctx.addIssue({
          code: 'custom',
          path: ['links', i, 'name'],
          message: `${JSON.stringify(l.name)} ${safe.error.issues[0]?.message ?? ''} (it has sysctls)`,
        });
    });
  });

export interface DesiredState {
  readonly owner: string;
  readonly links: readonly DesiredLink[];
  readonly routes?: readonly RouteSpec[];
  readonly neighbours?: readonly NeighbourSpec[];
  readonly fdb?: readonly FdbSpec[];
}

// Desired states that went through parseDesiredState: plan() does not validate them again (apply
// re-plans to verify, and a reconcile of 750 links spends most of its CPU time in validation).
const validated = new WeakSet<object>();

/** Validates a desired state (shape, ranges, names); InvalidDesiredStateError names the field. */
export function parseDesiredState(input: unknown): DesiredState {
  if (typeof input === 'object' && input !== null && validated.has(input)) return input as DesiredState;
  const state = Object.freeze(validate(DesiredStateSchema, input)) as DesiredState;
  validated.add(state);
  return state;
}
