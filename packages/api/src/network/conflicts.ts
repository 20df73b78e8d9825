import { canonicalIp, networksOverlap } from '../routing-intent/ip.js';
import type { BgpPeering } from './bgp-peering.js';
import type { Layer2Network } from './layer2-network.js';
import { ipFamily } from './ip.js';
import type { ObjectError } from './node-network-status.js';
import { vrfAddressFamilies, type Vrf } from './vrf.js';

/** The part of a VRF object the cross-object rules read. */
export type VrfForConflicts = Pick<Vrf, 'metadata' | 'spec'>;
/** The part of a Layer2Network object the cross-object rules read. */
export type Layer2NetworkForConflicts = Pick<Layer2Network, 'metadata' | 'spec'>;
/** The part of a BGPPeering object the cross-object rules read. */
export type BgpPeeringForConflicts = Pick<BgpPeering, 'metadata' | 'spec'>;

export interface IntentConflictOptions {
  /** The node's own VRF (agent-netns's `hbrVrf`): Layer2Networks may name it without a VRF object. */
  readonly hbrVrf?: string;
  /** The BGPPeerings scheduled on the node, checked against the VRFs and each other. */
  readonly bgpPeerings?: readonly BgpPeeringForConflicts[];
}

/**
 * The rules that span objects, which no schema can check: a VNI used twice (VRFs and
 * Layer2Networks share one VNI space), two Layer2Networks with one VLAN, a Layer2Network or an
 * `importVrfs` entry naming a VRF that does not exist (or is skipped itself), a VRF named like the
 * node's hbr VRF; a BGPPeering naming a VRF that does not exist (or is skipped), of an address
 * family its VRF does not carry, or with the peer address (or an overlapping listen range) of
 * another BGPPeering of the VRF. Pass the valid objects scheduled on one node (nodeSelector
 * already applied).
 *
 * The agents skip every object returned here and apply all others. When two objects claim one VNI,
 * VLAN or peer, the older one (creationTimestamp, then name) keeps it, so a new object never takes
 * a working network or session down. Pure; the result is sorted by kind and name.
 */
export function checkIntentConflicts(
  vrfs: readonly VrfForConflicts[],
  layer2s: readonly Layer2NetworkForConflicts[],
  options: IntentConflictOptions = {},
): ObjectError[] {
  const hbrVrf = options.hbrVrf ?? 'hbr';
  const problems = new Map<string, ObjectError>();
  const report = (kind: ObjectError['kind'], name: string, field: string, message: string) => {
    const key = `${kind}/${name}`;
    if (!problems.has(key)) problems.set(key, { kind, name, field, message });
  };
  const skipped = (kind: ObjectError['kind'], name: string) => problems.has(`${kind}/${name}`);

  for (const vrf of vrfs) {
    if (vrf.metadata.name === hbrVrf) {
      report('VRF', vrf.metadata.name, 'metadata.name', `"${hbrVrf}" is the node's own VRF (hbrVrf)`);
    }
  }

  // One VNI space for VRFs and Layer2Networks, one VLAN space for Layer2Networks; oldest first.
  type Claimant = { kind: ObjectError['kind']; name: string; created: number; vni: number };
  const claimants: Claimant[] = [
    ...vrfs.map((v) => ({
      kind: 'VRF' as const,
      name: v.metadata.name,
      created: createdOf(v),
      vni: v.spec.vni,
    })),
    ...layer2s.map((l) => ({
      kind: 'Layer2Network' as const,
      name: l.metadata.name,
      created: createdOf(l),
      vni: l.spec.vni,
    })),
  ].sort(byAge);
  const vniHolder = new Map<number, Claimant>();
  for (const c of claimants) {
    if (skipped(c.kind, c.name)) continue;
    const holder = vniHolder.get(c.vni);
    if (holder)
      report(c.kind, c.name, 'spec.vni', `VNI ${c.vni} is already used by ${holder.kind} ${holder.name}`);
    else vniHolder.set(c.vni, c);
  }
  const vlanHolder = new Map<number, string>();
  for (const l2 of [...layer2s].sort((a, b) => byAge(ageKey(a), ageKey(b)))) {
    if (skipped('Layer2Network', l2.metadata.name)) continue;
    const holder = vlanHolder.get(l2.spec.vlan);
    if (holder !== undefined) {
      report(
        'Layer2Network',
        l2.metadata.name,
        'spec.vlan',
        `VLAN ${l2.spec.vlan} is already used by Layer2Network ${holder}`,
      );
    } else vlanHolder.set(l2.spec.vlan, l2.metadata.name);
  }

  // References last, until nothing changes: a VRF skipped above takes what depends on it along.
  const vrfUsable = (name: string) =>
    name === hbrVrf || (vrfs.some((v) => v.metadata.name === name) && !skipped('VRF', name));
  const why = (name: string) =>
    vrfs.some((v) => v.metadata.name === name) ? `VRF ${name} is skipped` : `VRF ${name} does not exist`;
  for (let changed = true; changed;) {
    const before = problems.size;
    for (const vrf of vrfs) {
      if (skipped('VRF', vrf.metadata.name)) continue;
      (vrf.spec.importVrfs ?? []).forEach((name, i) => {
        if (!vrfUsable(name)) report('VRF', vrf.metadata.name, `spec.importVrfs[${i}]`, why(name));
      });
    }
    for (const l2 of layer2s) {
      const vrf = l2.spec.vrf;
      if (vrf !== undefined && !skipped('Layer2Network', l2.metadata.name) && !vrfUsable(vrf)) {
        report('Layer2Network', l2.metadata.name, 'spec.vrf', why(vrf));
      }
    }
    changed = problems.size !== before;
  }

  // BGPPeerings last: they depend on their VRF and nothing depends on them.
  const vrfByName = new Map(vrfs.map((v) => [v.metadata.name, v]));
  const peers = new Map<string, { name: string; address?: string; listenRange?: string }[]>();
  for (const p of [...(options.bgpPeerings ?? [])].sort((a, b) => byAge(ageKey(a), ageKey(b)))) {
    const { name } = p.metadata;
    const { vrf, address, listenRange } = p.spec;
    const target = vrfByName.get(vrf);
    if (vrf === hbrVrf) {
      report('BGPPeering', name, 'spec.vrf', `"${hbrVrf}" is the node's own VRF (hbrVrf): name a VRF object`);
      continue;
    }
    if (!target || skipped('VRF', vrf)) {
      report('BGPPeering', name, 'spec.vrf', why(vrf));
      continue;
    }
    const family = ipFamily(address ?? listenRange ?? '') === 6 ? 'ipv6' : 'ipv4';
    const families = p.spec.addressFamilies ?? [family];
    const vrfFamilies = vrfAddressFamilies(target, layer2s);
    const missing = families.find((f) => !vrfFamilies.includes(f));
    if (missing !== undefined) {
      report(
        'BGPPeering',
        name,
        p.spec.addressFamilies
          ? 'spec.addressFamilies'
          : address !== undefined
            ? 'spec.address'
            : 'spec.listenRange',
        `VRF ${vrf} does not carry ${missing} (its spec.addressFamilies, or what its prefixes and gateways imply)`,
      );
      continue;
    }
    const others = peers.get(vrf) ?? [];
    const clash = others.find((o) =>
      address !== undefined
        ? o.address !== undefined && canonicalIp(o.address) === canonicalIp(address)
        : o.listenRange !== undefined &&
          listenRange !== undefined &&
          networksOverlap(o.listenRange, listenRange),
    );
    if (clash) {
      report(
        'BGPPeering',
        name,
        address !== undefined ? 'spec.address' : 'spec.listenRange',
        address !== undefined
          ? `BGPPeering ${clash.name} already peers with ${address} in VRF ${vrf}`
          : `overlaps the listen range of BGPPeering ${clash.name} in VRF ${vrf}`,
      );
      continue;
    }
    others.push({
      name,
      ...(address !== undefined ? { address } : {}),
      ...(listenRange !== undefined ? { listenRange } : {}),
    });
    peers.set(vrf, others);
  }
  return [...problems.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

function createdOf(o: { metadata: { creationTimestamp?: string | undefined } }): number {
  // Objects from a file source have no creationTimestamp: they sort after every dated one, by name.
  const t = o.metadata.creationTimestamp;
  return t === undefined ? Number.POSITIVE_INFINITY : Date.parse(t);
}

function ageKey(o: { metadata: { name: string; creationTimestamp?: string | undefined } }): {
  created: number;
  name: string;
} {
  return { created: createdOf(o), name: o.metadata.name };
}

function byAge(a: { created: number; name: string }, b: { created: number; name: string }): number {
  if (a.created !== b.created) return a.created < b.created ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
