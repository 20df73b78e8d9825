import type { z } from 'zod';
import { canonicalIp, familyOf, networksOverlap } from './ip.js';
import { pathText } from './path.js';
import { IpAddress, Network, type FrrFilter, type FrrIntent, type FrrStaticRoute } from './schema.js';

// Rules between fields of the intent (the JSON Schema cannot express them; its description lists
// them as CROSS_FIELD_RULES). Every problem is reported with its path, all at once.

type Path = (string | number)[];

// zod runs these rules even when a field failed its own: values are checked before arithmetic.
const addressKey = (a: string) => (IpAddress.safeParse(a).success ? canonicalIp(a) : a);
const overlap = (a: string, b: string) =>
  Network.safeParse(a).success && Network.safeParse(b).success && networksOverlap(a, b);

export function checkReferences(intent: FrrIntent, ctx: z.RefinementCtx): void {
  const issue = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });
  const vrfIndex = new Map<string, number>();
  const vniOwner = new Map<number, string>();
  const claimVni = (vni: number, path: Path) => {
    const owner = vniOwner.get(vni);
    if (owner !== undefined) issue(path, `VNI ${vni} is already used by ${owner}`);
    else vniOwner.set(vni, pathText(path));
  };
  const checkRouteTargets = (
    x: { vni: number; routeTarget?: string; routeTargets?: unknown },
    path: Path,
  ): void => {
    if (x.routeTarget !== undefined && x.routeTargets !== undefined) {
      issue([...path, 'routeTargets'], 'give routeTarget or routeTargets, not both');
    } else if (
      x.routeTarget === undefined &&
      x.routeTargets === undefined &&
      intent.asn > 0xffff &&
      x.vni > 0xffff
    ) {
      issue(
        [...path, 'routeTarget'],
        'required when both asn and vni exceed 65535 (the default asn:vni does not fit)',
      );
    }
  };

  const profiles = new Set<string>();
  intent.bfdProfiles.forEach((p, i) => {
    if (profiles.has(p.name)) issue(['bfdProfiles', i, 'name'], `duplicate BFD profile "${p.name}"`);
    profiles.add(p.name);
  });
  const checkSession = (
    n: {
      remoteAs: number | 'internal' | 'external';
      bfd: unknown;
      localAs?: { asn: number; noPrepend: boolean; replaceAs: boolean };
    },
    path: Path,
  ) => {
    if (n.localAs !== undefined && (n.remoteAs === 'internal' || n.remoteAs === intent.asn))
      issue([...path, 'localAs'], 'only for eBGP sessions (FRR: local-as is allowed only for EBGP peers)');
    else if (n.localAs !== undefined && n.localAs.asn === n.remoteAs)
      issue([...path, 'localAs', 'asn'], 'must differ from remoteAs');
    if (typeof n.bfd === 'object' && n.bfd !== null && 'profile' in n.bfd) {
      const name = String(n.bfd.profile);
      if (!profiles.has(name))
        issue([...path, 'bfd', 'profile'], `unknown BFD profile "${name}" (not in bfdProfiles)`);
    }
    if (n.localAs?.asn === intent.asn) issue([...path, 'localAs', 'asn'], 'must differ from asn');
    if (n.localAs?.replaceAs && !n.localAs.noPrepend)
      issue(
        [...path, 'localAs', 'replaceAs'],
        'needs noPrepend: true (FRR: local-as N no-prepend replace-as)',
      );
  };

  const neighborOwner = new Map<string, number>();
  intent.underlay.neighbors.forEach((n, i) => {
    const path: Path = ['underlay', 'neighbors', i];
    if ((n.address === undefined) === (n.interface === undefined)) return; // the neighbor's own rule
    const key = n.address !== undefined ? addressKey(n.address) : `if:${n.interface}`;
    const first = neighborOwner.get(key);
    if (first !== undefined)
      issue(
        [...path, n.address !== undefined ? 'address' : 'interface'],
        `the same neighbor as underlay.neighbors[${first}]`,
      );
    else neighborOwner.set(key, i);
    if (new Set(n.addressFamilies).size !== n.addressFamilies.length)
      issue([...path, 'addressFamilies'], 'lists an address family twice');
    if (n.interface !== undefined && n.ebgpMultihop !== undefined)
      issue(
        [...path, 'ebgpMultihop'],
        'an unnumbered session is directly connected (FRR refuses ebgp-multihop on it)',
      );
    checkSession(n, path);
  });

  intent.vrfs.forEach((vrf, i) => {
    const first = vrfIndex.get(vrf.name);
    if (first !== undefined)
      issue(['vrfs', i, 'name'], `duplicate VRF name "${vrf.name}" (also vrfs[${first}])`);
    else vrfIndex.set(vrf.name, i);
    claimVni(vrf.vni, ['vrfs', i, 'vni']);
    checkRouteTargets(vrf, ['vrfs', i]);
  });
  const known = (name: string) => vrfIndex.has(name) || name === intent.hbrVrf;

  intent.vrfs.forEach((vrf, i) => {
    const path: Path = ['vrfs', i];
    const ipv6 = vrf.addressFamilies.includes('ipv6');
    const needsIpv6 = (prefix: string, where: Path) => {
      if (!ipv6 && familyOf(prefix) === 'ipv6')
        issue(where, `an IPv6 prefix needs ipv6 in ${pathText([...path, 'addressFamilies'])}`);
    };
    if (new Set(vrf.addressFamilies).size !== vrf.addressFamilies.length)
      issue([...path, 'addressFamilies'], 'lists an address family twice');
    const seen = new Set<string>();
    vrf.importVrfs.forEach((entry, j) => {
      const name = typeof entry === 'string' ? entry : entry.vrf;
      const where: Path =
        typeof entry === 'string' ? [...path, 'importVrfs', j] : [...path, 'importVrfs', j, 'vrf'];
      if (name === vrf.name) issue(where, 'a VRF cannot import from itself');
      else if (!known(name)) issue(where, `unknown VRF "${name}" (not in vrfs and not hbrVrf)`);
      if (seen.has(name)) issue(where, `"${name}" is listed twice`);
      seen.add(name);
      if (typeof entry !== 'string')
        checkFilter(entry.filter, [...path, 'importVrfs', j, 'filter'], needsIpv6);
    });
    for (const field of ['import', 'export'] as const) {
      const filter = vrf[field];
      if (Array.isArray(filter)) {
        filter.forEach((r, j) => {
          checkLengths(r.cidr, r.ge, r.le, [...path, field, j]);
          needsIpv6(r.cidr, [...path, field, j, 'cidr']);
        });
      } else checkFilter(filter, [...path, field], needsIpv6);
    }
    vrf.aggregates.forEach((a, j) => needsIpv6(a, [...path, 'aggregates', j]));
    vrf.staticRoutes.forEach((r, j) => checkStaticRoute(r, [...path, 'staticRoutes', j]));
    const peerOwner = new Map<string, number>();
    vrf.bgpPeers.forEach((p, j) => {
      const where: Path = [...path, 'bgpPeers', j];
      const target = p.address ?? p.listenRange;
      if ((p.address === undefined) === (p.listenRange === undefined)) return; // the peer's own rule
      if (p.address !== undefined) {
        const key = addressKey(p.address);
        const first = peerOwner.get(key);
        if (first !== undefined) issue([...where, 'address'], `the same peer as bgpPeers[${first}]`);
        else peerOwner.set(key, j);
      } else if (p.listenRange !== undefined) {
        // bgpd refuses a listen range that overlaps another of the same instance.
        const range = p.listenRange;
        const first = vrf.bgpPeers.findIndex(
          (o, k) => k < j && o.listenRange !== undefined && overlap(o.listenRange, range),
        );
        if (first >= 0) issue([...where, 'listenRange'], `overlaps bgpPeers[${first}].listenRange`);
      }
      const family = familyOf(target ?? '');
      const families = p.addressFamilies ?? [family];
      if (new Set(families).size !== families.length)
        issue([...where, 'addressFamilies'], 'lists an address family twice');
      if (families.includes('ipv6') && !ipv6)
        issue([...where, 'addressFamilies'], `IPv6 needs ipv6 in ${pathText([...path, 'addressFamilies'])}`);
      if (families.includes('ipv4') && !vrf.addressFamilies.includes('ipv4'))
        issue([...where, 'addressFamilies'], `IPv4 needs ipv4 in ${pathText([...path, 'addressFamilies'])}`);
      checkSession(p, where);
      if (p.maxPrefixes === undefined && (p.maxPrefixesWarningOnly || p.maxPrefixesRestart !== undefined))
        issue(
          [...where, p.maxPrefixesWarningOnly ? 'maxPrefixesWarningOnly' : 'maxPrefixesRestart'],
          'needs maxPrefixes',
        );
      if (p.maxPrefixesWarningOnly && p.maxPrefixesRestart !== undefined)
        issue(
          [...where, 'maxPrefixesRestart'],
          'not together with maxPrefixesWarningOnly (a warning never closes the session)',
        );
      if (p.import) checkFilter(p.import, [...where, 'import'], needsIpv6);
      if (p.export) checkFilter(p.export, [...where, 'export'], needsIpv6);
    });
  });

  const vlanOwner = new Map<number, number>();
  intent.layer2s.forEach((l2, i) => {
    claimVni(l2.vni, ['layer2s', i, 'vni']);
    const first = vlanOwner.get(l2.vlan);
    if (first !== undefined)
      issue(['layer2s', i, 'vlan'], `VLAN ${l2.vlan} is already used by layer2s[${first}]`);
    else vlanOwner.set(l2.vlan, i);
    if (l2.vrf !== undefined && !known(l2.vrf))
      issue(['layer2s', i, 'vrf'], `unknown VRF "${l2.vrf}" (not in vrfs and not hbrVrf)`);
    checkRouteTargets(l2, ['layer2s', i]);
  });

  function checkStaticRoute(r: FrrStaticRoute, path: Path): void {
    const targets = [r.nexthop !== undefined, r.blackhole !== undefined].filter(Boolean).length;
    if (targets !== 1 && !(targets === 0 && r.nextHopVrf !== undefined)) {
      issue(
        [...path, 'nexthop'],
        'give exactly one of nexthop (with optional nextHopVrf), nextHopVrf, or blackhole: true',
      );
    } else if (r.blackhole !== undefined && r.nextHopVrf !== undefined) {
      issue([...path, 'nextHopVrf'], 'a blackhole route has no next hop');
    }
    if (r.nexthop !== undefined && familyOf(r.nexthop) !== familyOf(r.prefix))
      issue(
        [...path, 'nexthop'],
        `must be an ${familyOf(r.prefix) === 'ipv4' ? 'IPv4' : 'IPv6'} address like the prefix`,
      );
    if (r.nextHopVrf !== undefined && !known(r.nextHopVrf))
      issue([...path, 'nextHopVrf'], `unknown VRF "${r.nextHopVrf}" (not in vrfs and not hbrVrf)`);
  }

  function checkFilter(
    filter: FrrFilter,
    path: Path,
    needsIpv6: (prefix: string, where: Path) => void,
  ): void {
    filter.items.forEach((item, j) => {
      const where: Path = [...path, 'items', j];
      if (item.prefix) {
        checkLengths(item.prefix.cidr, item.prefix.ge, item.prefix.le, [...where, 'prefix']);
        needsIpv6(item.prefix.cidr, [...where, 'prefix', 'cidr']);
      }
      const modifies =
        item.addCommunities.length > 0 ||
        item.removeCommunities.length > 0 ||
        item.removeAllCommunities ||
        item.addLargeCommunities.length > 0 ||
        item.setLocalPreference !== undefined ||
        item.setMed !== undefined ||
        item.prependAsPath !== undefined ||
        item.setNextHop !== undefined;
      if (item.action === 'reject' && modifies)
        issue([...where, 'action'], 'a rejected route cannot be modified (remove the changes or accept)');
      if (
        item.setNextHop !== undefined &&
        item.prefix &&
        familyOf(item.prefix.cidr) !== familyOf(item.setNextHop)
      )
        issue([...where, 'setNextHop'], 'must be of the family of prefix.cidr');
      if (item.removeAllCommunities && item.addCommunities.length > 0)
        issue(
          [...where, 'removeAllCommunities'],
          'not together with addCommunities (set them without additive instead)',
        );
    });
  }

  function checkLengths(cidr: string, ge: number | undefined, le: number | undefined, path: Path): void {
    const len = Number(cidr.split('/')[1]);
    const max = familyOf(cidr) === 'ipv4' ? 32 : 128;
    if (ge !== undefined && ge <= len)
      issue([...path, 'ge'], `must be greater than the prefix length ${len}`);
    if (le !== undefined && le <= len)
      issue([...path, 'le'], `must be greater than the prefix length ${len}`);
    if (ge !== undefined && ge > max) issue([...path, 'ge'], `must be at most ${max}`);
    if (le !== undefined && le > max) issue([...path, 'le'], `must be at most ${max}`);
    if (ge !== undefined && le !== undefined && le < ge)
      issue([...path, 'le'], `must not be less than ge (${ge})`);
  }
}
