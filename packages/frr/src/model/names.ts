import { canonicalIp } from '@fabrik/api';
import type { FrrIntentIssue } from '../intent.js';

/** A name for FRR objects derived from an address or network (`fd00::/64` -> `fd00::-64`). */
const nameOf = (addressOrCidr: string) => canonicalIp(addressOrCidr).replace('/', '-');

/** Names fabrik gives to the FRR objects it renders (documented in README.md). */
export const frrObjectNames = {
  importPrefixList: (vrf: string) => `fabrik-${vrf}-import`,
  exportPrefixList: (vrf: string) => `fabrik-${vrf}-export`,
  importRouteMap: (vrf: string) => `fabrik-${vrf}-import`,
  exportRouteMap: (vrf: string) => `fabrik-${vrf}-export`,
  /** Filter of the leaks from one source VRF (`importVrfs[]: {vrf, filter}`). */
  leakRouteMap: (vrf: string, source: string) => `fabrik-${vrf}-from-${source}`,
  /** A VRF's `import` given as a filter. */
  importFilterRouteMap: (vrf: string) => `fabrik-${vrf}-import-filter`,
  peerGroup: (vrf: string, listenRange: string) => `fabrik-${vrf}-${nameOf(listenRange)}`,
  peerRouteMap: (vrf: string, peer: string, direction: 'in' | 'out') =>
    `fabrik-${vrf}-${nameOf(peer)}-${direction}`,
  toDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-to-default`,
  fromDefaultRouteMap: (vrf: string) => `fabrik-${vrf}-from-default`,
  sourcesCommunityList: (vrf: string) => `fabrik-${vrf}-sources`,
  /** The tag of one source VRF (vrf-ibgp, sources with a filter of their own). */
  tagCommunityList: (vrf: string) => `fabrik-${vrf}-tag`,
  underlayRouteMapOut: 'fabrik-underlay-out',
  tenantCommunityList: 'fabrik-tenant-routes',
  /** Loop guard: tags what the underlay sends us. */
  fabricRouteMapIn: 'fabrik-fabric-in',
  /** Loop guard: what we send to the underlay in l2vpn evpn. */
  evpnRouteMapOut: 'fabrik-evpn-out',
  fabricCommunityList: 'fabrik-fabric-routes',
  bfdProfile: (minRx: number, minTx: number, multiplier: number) =>
    `fabrik-rx${minRx}-tx${minTx}-x${multiplier}`,
} as const;

/** The FRR tables whose names must be unique: FRR merges two objects of one name into one. */
export type FrrNamespace = 'route-map' | 'prefix-list' | 'community-list' | 'large-community-list';

/** The part of the intent an FRR object is rendered for. */
export interface FrrNameOwner {
  /** Path of the intent field (`vrfs[1].import`); one owner may claim a name many times. */
  readonly path: string;
  /** What the object is, for people (`VRF red's import filter`). */
  readonly what: string;
}

/**
 * Who renders which FRR name. Names are built from user-chosen VRF names, so two intent objects
 * can render the same name (VRF `x` leaking from `y-import` and VRF `x-from-y`'s import filter
 * are both `fabrik-x-from-y-import`); FRR would merge their entries into one object and both
 * VRFs would get the wrong policy while every check passes. Every object is claimed here with
 * its owner, and a name claimed by two owners is refused, naming both.
 */
export class FrrNameRegistry {
  /** The first owner of each name, per namespace (one map lookup per claim: claims are many). */
  readonly #first = new Map<FrrNamespace, Map<string, FrrNameOwner>>();
  /** The other owners of a name (`namespace name`), kept only when there are any. */
  readonly #others = new Map<string, Map<string, FrrNameOwner>>();

  /** Records that `owner` renders `name` in `namespace`; returns the name. */
  claim(namespace: FrrNamespace, name: string, owner: FrrNameOwner): string {
    let names = this.#first.get(namespace);
    if (names === undefined) this.#first.set(namespace, (names = new Map()));
    const first = names.get(name);
    if (first === undefined) names.set(name, owner);
    else if (first.path !== owner.path) {
      const key = `${namespace} ${name}`;
      let others = this.#others.get(key);
      if (others === undefined) this.#others.set(key, (others = new Map([[first.path, first]])));
      others.set(owner.path, owner);
    }
    return name;
  }

  /** One issue per name that two owners render, at the path of the later owner (in path order). */
  conflicts(): FrrIntentIssue[] {
    const issues: FrrIntentIssue[] = [];
    const byPath = (a: FrrNameOwner, b: FrrNameOwner) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    for (const [key, owners] of [...this.#others].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const [first, ...others] = [...owners.values()].sort(byPath);
      if (first === undefined) continue;
      for (const other of others) {
        issues.push({
          path: other.path,
          message: `${other.what} renders ${key}, as ${first.what} (${first.path}) does: FRR would merge the two into one object; rename one of the VRFs`,
        });
      }
    }
    return issues;
  }
}
