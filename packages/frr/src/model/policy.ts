import { canonicalIp, familyOf, type FrrFilter } from '@fabrik/api';
import type { FrrPrefixRule } from '../intent.js';
import { FrrNameRegistry, type FrrNameOwner } from './names.js';
import { compareText, communityListSeq, sortCommunities, sortLargeCommunities } from './printing.js';
import type {
  FrrCommunityListModel,
  FrrLargeCommunityListModel,
  FrrPrefixListModel,
  FrrRouteMapEntryModel,
} from './types.js';

// Routing policy: prefix-lists, community-lists and route-maps. Route-map clauses are typed here
// and turned into FRR's text in one place; every object is claimed in the name registry by the
// intent object it is rendered for.

/** What a route-map entry matches (`match ...`). */
export type MatchClause =
  | { readonly kind: 'prefix-list'; readonly family: 'ip' | 'ipv6'; readonly list: string }
  | { readonly kind: 'community'; readonly list: string; readonly exact: boolean }
  | { readonly kind: 'large-community'; readonly list: string }
  | { readonly kind: 'source-vrf'; readonly vrf: string };

/** What a route-map entry changes (`set ...`). */
export type SetClause =
  | { readonly kind: 'community'; readonly values: readonly string[]; readonly additive: boolean }
  | { readonly kind: 'community-none' }
  | { readonly kind: 'community-delete'; readonly list: string }
  | { readonly kind: 'large-community'; readonly values: readonly string[]; readonly additive: boolean }
  | { readonly kind: 'local-preference'; readonly value: number }
  | { readonly kind: 'metric'; readonly value: number }
  | { readonly kind: 'as-path-prepend'; readonly asns: readonly number[] }
  | { readonly kind: 'next-hop'; readonly address: string };

/** A match clause as FRR prints it after `match `. */
export function matchText(m: MatchClause): string {
  switch (m.kind) {
    case 'prefix-list':
      return `${m.family} address prefix-list ${m.list}`;
    case 'community':
      return `community ${m.list}${m.exact ? ' exact-match' : ''}`;
    case 'large-community':
      return `large-community ${m.list}`;
    case 'source-vrf':
      return `source-vrf ${m.vrf}`;
  }
}

/** A set clause as FRR prints it after `set `. */
export function setText(s: SetClause): string {
  switch (s.kind) {
    case 'community':
      return `community ${sortCommunities(s.values).join(' ')}${s.additive ? ' additive' : ''}`;
    case 'community-none':
      return 'community none';
    case 'community-delete':
      return `comm-list ${s.list} delete`;
    case 'large-community':
      return `large-community ${sortLargeCommunities(s.values).join(' ')}${s.additive ? ' additive' : ''}`;
    case 'local-preference':
      return `local-preference ${s.value}`;
    case 'metric':
      return `metric ${s.value}`;
    case 'as-path-prepend':
      return `as-path prepend ${s.asns.join(' ')}`;
    case 'next-hop':
      return familyOf(s.address) === 'ipv4'
        ? `ip next-hop ${canonicalIp(s.address)}`
        : `ipv6 next-hop global ${canonicalIp(s.address)}`;
  }
}

export interface RouteMapEntryClauses {
  readonly matches?: readonly MatchClause[];
  readonly sets?: readonly SetClause[];
  /** `call NAME`: another route-map decides. */
  readonly call?: string;
  /** `on-match next`. */
  readonly onMatchNext?: boolean;
}

const familyCommand = (cidr: string) => (familyOf(cidr) === 'ipv4' ? ('ip' as const) : ('ipv6' as const));

/** The policy objects of one model and the registry of their names. */
export class PolicyObjects {
  readonly prefixLists: FrrPrefixListModel[] = [];
  readonly communityLists: FrrCommunityListModel[] = [];
  readonly largeCommunityLists: FrrLargeCommunityListModel[] = [];
  readonly routeMaps: FrrRouteMapEntryModel[] = [];
  readonly names = new FrrNameRegistry();

  /** Adds objects on behalf of `owner`, the intent object they are rendered for. */
  for(owner: FrrNameOwner): Policy {
    return new Policy(this, owner);
  }
}

/** Builds policy objects for one owner. */
export class Policy {
  constructor(
    private readonly objects: PolicyObjects,
    readonly owner: FrrNameOwner,
  ) {}

  /** `bgp community-list standard NAME seq N permit VALUE` for each value, in FRR's order. */
  communityList(name: string, values: readonly string[]): void {
    this.objects.names.claim('community-list', name, this.owner);
    this.objects.communityLists.push({
      name,
      entries: sortCommunities(values).map((value) => ({ list: name, seq: communityListSeq(value), value })),
    });
  }

  /** `bgp large-community-list standard NAME permit VALUE`; a list already built is kept. */
  largeCommunityList(name: string, values: readonly string[]): void {
    this.objects.names.claim('large-community-list', name, this.owner);
    if (this.objects.largeCommunityLists.some((l) => l.name === name)) return;
    this.objects.largeCommunityLists.push({ name, values });
  }

  entry(name: string, action: 'permit' | 'deny', seq: number, clauses: RouteMapEntryClauses = {}): void {
    this.objects.names.claim('route-map', name, this.owner);
    this.objects.routeMaps.push({
      name,
      action,
      seq,
      matches: (clauses.matches ?? []).map(matchText),
      // FRR prints the set clauses of an entry in the order of their text, whatever the order given.
      sets: (clauses.sets ?? []).map(setText).sort(compareText),
      call: clauses.call ?? null,
      onMatch: clauses.onMatchNext === true ? 'next' : null,
    });
  }

  /** A prefix-list per family of `rules` (rule order kept: the first match decides, as in FRR). */
  prefixRules(name: string, rules: readonly FrrPrefixRule[]): { ip: boolean; ipv6: boolean } {
    this.objects.names.claim('prefix-list', name, this.owner);
    const families = { ip: false, ipv6: false };
    const entries = rules.map((r, i) => {
      const command = familyCommand(r.cidr);
      families[command] = true;
      return {
        command,
        list: name,
        seq: (i + 1) * 5,
        action: r.action,
        prefix: canonicalIp(r.cidr),
        ge: r.ge ?? null,
        le: r.le ?? null,
      };
    });
    this.objects.prefixLists.push({ name, entries });
    return families;
  }

  /**
   * `permit SEQ / match ip address prefix-list` for each family the rules use (SEQ, then SEQ +
   * 10); returns the next free sequence number. The prefix-list is `listOwner`'s.
   */
  matchPrefixRules(
    routeMap: string,
    prefixList: string,
    rules: readonly FrrPrefixRule[],
    seq: number,
    extraMatches: readonly MatchClause[] = [],
    listOwner: Policy = this,
  ): number {
    const families = listOwner.prefixRules(prefixList, rules);
    let next = seq;
    for (const family of ['ip', 'ipv6'] as const) {
      if (!families[family]) continue;
      this.entry(routeMap, 'permit', next, {
        matches: [...extraMatches, { kind: 'prefix-list', family, list: prefixList }],
      });
      next += 10;
    }
    return next;
  }

  /**
   * Route-map `name` from a filter: each item an entry from `firstSeq` on in steps of 10, with its
   * own prefix-list (`NAME-N`) and community-lists (`NAME-N`, `NAME-N-remove`), then an entry for
   * the default action.
   */
  filter(name: string, filter: FrrFilter, firstSeq = 10): void {
    filter.items.forEach((item, j) => {
      const listName = `${name}-${j + 1}`;
      const matches: MatchClause[] = [];
      const sets: SetClause[] = [];
      if (item.prefix) {
        const family = familyCommand(item.prefix.cidr);
        this.objects.names.claim('prefix-list', listName, this.owner);
        this.objects.prefixLists.push({
          name: listName,
          entries: [
            {
              command: family,
              list: listName,
              seq: 5,
              action: 'permit',
              prefix: canonicalIp(item.prefix.cidr),
              ge: item.prefix.ge ?? null,
              le: item.prefix.le ?? null,
            },
          ],
        });
        matches.push({ kind: 'prefix-list', family, list: listName });
      }
      if (item.community !== undefined) {
        this.communityList(listName, [item.community]);
        matches.push({ kind: 'community', list: listName, exact: item.exactMatch });
      }
      if (item.removeAllCommunities) sets.push({ kind: 'community-none' });
      if (item.addCommunities.length > 0)
        sets.push({ kind: 'community', values: item.addCommunities, additive: item.additive });
      if (item.removeCommunities.length > 0) {
        this.communityList(`${listName}-remove`, item.removeCommunities);
        sets.push({ kind: 'community-delete', list: `${listName}-remove` });
      }
      if (item.addLargeCommunities.length > 0)
        sets.push({ kind: 'large-community', values: item.addLargeCommunities, additive: item.additive });
      if (item.setLocalPreference !== undefined)
        sets.push({ kind: 'local-preference', value: item.setLocalPreference });
      if (item.setMed !== undefined) sets.push({ kind: 'metric', value: item.setMed });
      if (item.prependAsPath !== undefined) sets.push({ kind: 'as-path-prepend', asns: item.prependAsPath });
      if (item.setNextHop !== undefined) sets.push({ kind: 'next-hop', address: item.setNextHop });
      this.entry(name, item.action === 'reject' ? 'deny' : 'permit', firstSeq + 10 * j, {
        matches,
        sets,
        onMatchNext: item.action === 'next',
      });
    });
    this.entry(
      name,
      filter.defaultAction === 'accept' ? 'permit' : 'deny',
      firstSeq + 10 * filter.items.length,
    );
  }
}
