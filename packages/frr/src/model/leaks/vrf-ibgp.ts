import type { FrrIntent, FrrIntentIssue, FrrVrfIntent } from '../../intent.js';
import { frrObjectNames } from '../names.js';
import type { Policy, PolicyObjects } from '../policy.js';
import { compareText } from '../printing.js';
import type { FrrIbgpLinkModel } from '../types.js';
import {
  importFilterEntries,
  importSources,
  leakOwners,
  type LeakStrategy,
  type VrfLeaks,
} from './leak-strategy.js';

/** Largest L3 VNI of vrf-ibgp: its route distinguisher `<router ID>:<vni>` holds 16 bits. */
const VRF_IBGP_MAX_VNI = 65535;

/** The veth pair of a VRF in template set vrf-ibgp: `ibd<vni>` in the default VRF, `ibv<vni>` in the VRF. */
export function vrfIbgpLinkNames(vni: number): { defaultSide: string; vrfSide: string } {
  return { defaultSide: `ibd${vni}`, vrfSide: `ibv${vni}` };
}

/**
 * The BGP router ID of a VRF's instance in template set vrf-ibgp: its L3 VNI written as an IPv4
 * address (VNI 1001: `0.0.3.233`). The instances of one node peer with each other, so their IDs
 * must differ: an iBGP OPEN carrying the receiver's own ID is refused (Bad BGP Identifier), and
 * a route the default VRF reflects from one VRF to another is dropped by a receiver whose ID is
 * the route's ORIGINATOR_ID.
 */
export function vrfIbgpRouterId(vni: number): string {
  return [24, 16, 8, 0].map((shift) => (vni >>> shift) & 0xff).join('.');
}

/**
 * Template set vrf-ibgp, the older design: one veth pair per VRF between the VRF and the default
 * VRF and an iBGP session over it. Every VRF tags what it sends with the large community
 * `ASN:1:VNI`; the default VRF sends each VRF the tags of its `importVrfs`.
 */
export function vrfIbgpLeaks(intent: FrrIntent, policy: PolicyObjects): LeakStrategy {
  const indexOf = new Map(intent.vrfs.map((v, i) => [v.name, i]));
  const tagOf = (vni: number) => `${intent.asn}:1:${vni}`;

  function link(vrf: FrrVrfIntent, index: number): FrrIbgpLinkModel {
    const tag = tagOf(vrf.vni);
    const toDefault = frrObjectNames.toDefaultRouteMap(vrf.name);
    const fromDefault = frrObjectNames.fromDefaultRouteMap(vrf.name);
    policy
      .for({ path: `vrfs[${index}]`, what: `the route-map of VRF ${vrf.name}'s routes to the default VRF` })
      .entry(toDefault, 'permit', 10, { sets: [{ kind: 'large-community', values: [tag], additive: true }] });
    const owners = leakOwners(policy, vrf, index);
    const sources = importSources(vrf).flatMap((s) => {
      const at = indexOf.get(s.name);
      const source = at === undefined ? undefined : intent.vrfs[at];
      return source === undefined || at === undefined ? [] : [{ ...s, at, tag: tagOf(source.vni) }];
    });
    if (sources.length === 0) owners.leakRouteMap.entry(fromDefault, 'deny', 10);
    let seq = 10;
    for (const s of sources.filter((x) => x.filter !== null).sort((a, b) => compareText(a.name, b.name))) {
      const list = frrObjectNames.tagCommunityList(s.name);
      policy
        .for({ path: `vrfs[${s.at}]`, what: `the tag of VRF ${s.name}` })
        .largeCommunityList(list, [s.tag]);
      const leak = frrObjectNames.leakRouteMap(vrf.name, s.name);
      if (s.filter) owners.source(s).filter(leak, s.filter);
      owners.leakRouteMap.entry(fromDefault, 'permit', seq, {
        matches: [{ kind: 'large-community', list }],
        call: leak,
      });
      seq += 10;
    }
    const rest = sources.filter((x) => x.filter === null);
    if (rest.length > 0) {
      const list = frrObjectNames.sourcesCommunityList(vrf.name);
      owners.leakRouteMap.largeCommunityList(list, rest.map((s) => s.tag).sort(compareText));
      importFilterEntries(owners, vrf, fromDefault, seq, [{ kind: 'large-community', list }]);
    }
    return {
      ...vrfIbgpLinkNames(vrf.vni),
      toDefaultRouteMap: toDefault,
      fromDefaultRouteMap: fromDefault,
      tag,
    };
  }

  return {
    refusals: () => refusals(intent),
    identity: (vrf) => ({ routerId: vrfIbgpRouterId(vrf.vni), rd: `${intent.routerId}:${vrf.vni}` }),
    leaks: (vrf, index): VrfLeaks => ({ importVrfs: [], importRouteMap: null, ibgp: link(vrf, index) }),
    keepOutOfUnderlay(outbound: Policy, routeMap: string): boolean {
      // Tenant routes reach the default VRF over the iBGP sessions: keep them out of the underlay.
      if (intent.vrfs.length === 0) return false;
      const list = frrObjectNames.tenantCommunityList;
      outbound.largeCommunityList(list, intent.vrfs.map((v) => tagOf(v.vni)).sort(compareText));
      outbound.entry(routeMap, 'deny', 10, { matches: [{ kind: 'large-community', list }] });
      return true;
    },
  };
}

/**
 * vrf-ibgp leaks IPv4 over iBGP sessions and names each VRF's instance by its VNI; what needs more
 * is refused with the field's path, every problem at once.
 */
function refusals(intent: FrrIntent): FrrIntentIssue[] {
  const declared = new Set(intent.vrfs.map((v) => v.name));
  const issues: FrrIntentIssue[] = [];
  intent.vrfs.forEach((vrf, i) => {
    if (vrf.vni > VRF_IBGP_MAX_VNI) {
      issues.push({
        path: `vrfs[${i}].vni`,
        message: `template set vrf-ibgp takes L3 VNIs up to ${VRF_IBGP_MAX_VNI} (the VRF's route distinguisher is <routerId>:<vni>; use template set netns)`,
      });
    }
    if (vrfIbgpRouterId(vrf.vni) === intent.routerId) {
      issues.push({
        path: 'routerId',
        message: `must differ from ${intent.routerId}, the router ID template set vrf-ibgp gives VRF ${vrf.name}'s instance`,
      });
    }
    vrf.importVrfs.forEach((e, j) => {
      const name = typeof e === 'string' ? e : e.vrf;
      if (name === intent.hbrVrf && !declared.has(name)) {
        issues.push({
          path: `vrfs[${i}].importVrfs[${j}]`,
          message: `template set vrf-ibgp can only leak from VRFs declared in vrfs ("${intent.hbrVrf}" has no VNI to name its veth pair)`,
        });
      }
    });
    if (vrf.importVrfs.length > 0 && vrf.addressFamilies.includes('ipv6')) {
      issues.push({
        path: `vrfs[${i}].addressFamilies`,
        message:
          'template set vrf-ibgp leaks IPv4 only: a VRF with importVrfs cannot have ipv6 (use template set netns)',
      });
    }
  });
  return issues;
}
