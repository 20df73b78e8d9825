import { z } from 'zod';
import { Asn, InterfaceName, IpAddress } from './primitives.js';

// BGP building blocks shared by the routing intent (rendered by @fabrik/frr), the VRF and
// Layer2Network kinds and agent-netns's config. One definition each, so a neighbour or a route
// target accepted in one place is accepted everywhere.

const Ipv4Address = z.ipv4();

/** A BGP password ends up on a single FRR command line: no whitespace, at most 80 characters. */
export const BgpPassword = z.string().regex(/^\S{1,80}$/, 'must be 1-80 characters without whitespace');

/** `ASN:NN` (2-byte ASN with a 4-byte value, or a 4-byte ASN with a 2-byte value) or `A.B.C.D:NN`. */
export const RouteTarget = z
  .string()
  .regex(
    /^([0-9]+|[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+):[0-9]+$/,
    'must be ASN:NN or A.B.C.D:NN (for example 65000:1001)',
  )
  .refine(isRouteTarget, 'must be ASN:NN or A.B.C.D:NN (for example 65000:1001) with values in range');

function isRouteTarget(rt: string): boolean {
  const m = /^(?:(\d+)|(\d+\.\d+\.\d+\.\d+)):(\d+)$/.exec(rt);
  if (!m) return false;
  const value = Number(m[3]);
  if (m[2] !== undefined) return Ipv4Address.safeParse(m[2]).success && value <= 0xffff;
  const asn = Number(m[1]);
  if (asn < 1 || asn > 0xffffffff) return false;
  return asn <= 0xffff ? value <= 0xffffffff : value <= 0xffff;
}

/**
 * A BGP session of the underlay: numbered (`address`) or unnumbered (`interface`, BGP over the
 * interface's IPv6 link-local address). The same shape as @fabrik/frr's routing intent.
 */
export const UnderlayNeighbor = z
  .object({
    /** Numbered session: the peer's address. */
    address: IpAddress.optional(),
    /** Unnumbered session (BGP over the interface's IPv6 link-local address). */
    interface: InterfaceName.optional(),
    remoteAs: z.union([z.literal('internal'), z.literal('external'), Asn]),
    password: BgpPassword.optional(),
    bfd: z.boolean().default(false),
  })
  .strict()
  .superRefine((n, ctx) => {
    if ((n.address === undefined) === (n.interface === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['address'],
        message: 'give exactly one of address or interface',
      });
    }
  });
export type UnderlayNeighbor = z.infer<typeof UnderlayNeighbor>;
