import { z } from 'zod';
import { Community } from '../routing-intent/schema.js';
import { withRules, type ObjectRule } from '../rules.js';
import { NetworkCidr } from './fields.js';
import { maxPrefixLength, prefixLength } from './ip.js';

// The routing intent's filter language (route-maps: items matching a prefix or a community,
// accept | reject | next, community changes, a default action) in the shape of a custom resource:
// the same field names as the intent's Filter, with the CRD's field types (a CIDR the API server
// checks with CEL, not the intent's lookahead pattern that RE2 cannot run) and bounded lists.

/** ge/le rules of a prefix match or prefix-list entry `{cidr, ge?, le?}`, in zod and in CEL. */
export function prefixLengthRules<
  T extends { cidr: string; ge?: number | undefined; le?: number | undefined },
>(): ObjectRule<T>[] {
  return [
    {
      message: 'must be greater than the prefix length of cidr',
      field: ['ge'],
      holds: (r) => r.ge === undefined || r.ge > prefixLength(r.cidr),
      cel: "!has(self.ge) || self.ge > int(self.cidr.split('/')[1])",
    },
    {
      message: 'must be greater than the prefix length of cidr',
      field: ['le'],
      holds: (r) => r.le === undefined || r.le > prefixLength(r.cidr),
      cel: "!has(self.le) || self.le > int(self.cidr.split('/')[1])",
    },
    {
      message: 'must be at most 32 for an IPv4 cidr',
      field: ['ge'],
      holds: (r) => r.ge === undefined || r.ge <= maxPrefixLength(r.cidr),
      cel: "!has(self.ge) || self.cidr.contains(':') || self.ge <= 32",
    },
    {
      message: 'must be at most 32 for an IPv4 cidr',
      field: ['le'],
      holds: (r) => r.le === undefined || r.le <= maxPrefixLength(r.cidr),
      cel: "!has(self.le) || self.cidr.contains(':') || self.le <= 32",
    },
    {
      message: 'must not be less than ge',
      field: ['le'],
      holds: (r) => r.ge === undefined || r.le === undefined || r.le >= r.ge,
      cel: '!has(self.ge) || !has(self.le) || self.le >= self.ge',
    },
  ];
}

/** A prefix length in a `ge` or `le` field. */
const MatchLength = z.number().int().min(1).max(128);

/** Routes of a network, and longer prefixes from `ge` / up to `le`. */
export const KubePrefixMatch = withRules(
  z
    .object({
      cidr: NetworkCidr.describe('The network to match (IPv4 or IPv6, no host bits).'),
      ge: MatchLength.optional().describe('Also match longer prefixes, from this length on.'),
      le: MatchLength.optional().describe('Also match longer prefixes, up to this length.'),
    })
    .strict(),
  prefixLengthRules(),
);
export type KubePrefixMatch = z.infer<typeof KubePrefixMatch>;

const CommunityList = z
  .array(Community)
  .max(32)
  .meta({ 'x-kubernetes-list-type': 'set' })
  .refine((l) => new Set(l).size === l.length, 'each community may appear once');

/** One filter item: matches `prefix` and/or `community` (neither: every route), then acts. */
export const KubeFilterItem = withRules(
  z
    .object({
      prefix: KubePrefixMatch.optional(),
      community: Community.optional().describe(
        'Routes carrying this community (AA:NN or a well-known name).',
      ),
      exactMatch: z
        .boolean()
        .optional()
        .describe('The route carries exactly this community and no other (default false).'),
      action: z
        .enum(['accept', 'reject', 'next'])
        .default('accept')
        .describe(
          'Accept or reject a matching route, or apply the community changes and go on with the next item.',
        ),
      addCommunities: CommunityList.optional().describe('Communities to set on a matching route.'),
      additive: z
        .boolean()
        .optional()
        .describe("Add to the route's communities instead of replacing them (default true)."),
      removeCommunities: CommunityList.optional().describe('Communities to remove from a matching route.'),
      removeAllCommunities: z.boolean().optional().describe('Remove every community (default false).'),
    })
    .strict(),
  [
    {
      message: 'a rejected route cannot be modified (remove the community changes or accept)',
      field: ['action'],
      holds: (i) =>
        i.action !== 'reject' ||
        ((i.addCommunities ?? []).length === 0 &&
          (i.removeCommunities ?? []).length === 0 &&
          i.removeAllCommunities !== true),
      cel:
        "self.action != 'reject' || ((!has(self.addCommunities) || size(self.addCommunities) == 0) && " +
        '(!has(self.removeCommunities) || size(self.removeCommunities) == 0) && ' +
        '(!has(self.removeAllCommunities) || !self.removeAllCommunities))',
    },
    {
      message: 'not together with addCommunities (set them without additive instead)',
      field: ['removeAllCommunities'],
      holds: (i) => i.removeAllCommunities !== true || (i.addCommunities ?? []).length === 0,
      cel: '!has(self.removeAllCommunities) || !self.removeAllCommunities || !has(self.addCommunities) || size(self.addCommunities) == 0',
    },
  ],
);
export type KubeFilterItem = z.infer<typeof KubeFilterItem>;

/** A route filter: items in order, the first that accepts or rejects a route decides. */
export const KubeFilter = z
  .object({
    items: z
      .array(KubeFilterItem)
      .max(256)
      .optional()
      .describe('Checked in order; the first item that accepts or rejects a route decides.'),
    defaultAction: z
      .enum(['accept', 'reject'])
      .default('reject')
      .describe('What happens to routes no item decided.'),
  })
  .strict();
export type KubeFilter = z.infer<typeof KubeFilter>;

/** True when the filter matches an IPv6 prefix (it needs the ipv6 address family). */
export function filterHasIpv6(filter: KubeFilter | undefined): boolean {
  return (filter?.items ?? []).some((i) => i.prefix?.cidr.includes(':') === true);
}
