import {
  canonicalIp,
  familyOf,
  type FrrBfdProfile,
  type FrrBgpPeer,
  type FrrFilter,
  type FrrNeighborBfd,
  type FrrUnderlayNeighbor,
} from '@fabrik/api';
import { frrObjectNames } from './names.js';
import type { PolicyObjects } from './policy.js';
import {
  allowAsInClause,
  BFD_DEFAULTS,
  compareText,
  unlessBfdDefault,
  updateSourceText,
} from './printing.js';
import type { FrrBfdProfileModel, FrrNeighborAfModel, FrrNeighborModel } from './types.js';

// BGP sessions (underlay neighbors and the peers inside VRFs) and their BFD.

/** BFD of one session as the neighbor lines print it. */
interface SessionBfd {
  readonly bfd: boolean;
  /** `neighbor ID bfd profile NAME`; null: bfdd's defaults. */
  readonly bfdProfile: string | null;
}

/** The BFD profiles of one model: the intent's and one per set of session timers. */
export class BfdProfiles {
  readonly #profiles = new Map<string, FrrBfdProfileModel>();

  constructor(declared: readonly FrrBfdProfile[]) {
    for (const p of declared) this.#profiles.set(p.name, bfdProfile(p.name, p, p.passive ?? false));
  }

  /** The session's BFD; timers become (and name) a profile `fabrik-rxR-txT-xM`. */
  of(bfd: FrrNeighborBfd): SessionBfd {
    if (bfd === false) return { bfd: false, bfdProfile: null };
    if (bfd === true) return { bfd: true, bfdProfile: null };
    if ('profile' in bfd) return { bfd: true, bfdProfile: bfd.profile };
    const rx = bfd.minRx ?? BFD_DEFAULTS.minRx;
    const tx = bfd.minTx ?? BFD_DEFAULTS.minTx;
    const mult = bfd.multiplier ?? BFD_DEFAULTS.multiplier;
    const name = frrObjectNames.bfdProfile(rx, tx, mult);
    this.#profiles.set(name, bfdProfile(name, { minRx: rx, minTx: tx, multiplier: mult }, false));
    return { bfd: true, bfdProfile: name };
  }

  /** Every profile, sorted by name. */
  models(): FrrBfdProfileModel[] {
    return [...this.#profiles.values()].sort((a, b) => compareText(a.name, b.name));
  }
}

function bfdProfile(
  name: string,
  t: { minRx?: number; minTx?: number; multiplier?: number },
  passive: boolean,
): FrrBfdProfileModel {
  return {
    name,
    receiveInterval: unlessBfdDefault(t.minRx, BFD_DEFAULTS.minRx),
    transmitInterval: unlessBfdDefault(t.minTx, BFD_DEFAULTS.minTx),
    detectMultiplier: unlessBfdDefault(t.multiplier, BFD_DEFAULTS.multiplier),
    passive,
  };
}

/** The fields every session has, in the underlay and inside VRFs. */
type SessionIntent = Pick<
  FrrUnderlayNeighbor,
  'remoteAs' | 'password' | 'bfd' | 'timers' | 'allowAsIn' | 'localAs' | 'ebgpMultihop' | 'updateSource'
>;

/** The session lines shared by underlay neighbors and VRF peers. */
function session(id: string, n: SessionIntent, bfd: BfdProfiles) {
  return {
    id,
    remoteAs: String(n.remoteAs),
    password: n.password ?? null,
    ...bfd.of(n.bfd),
    localAs: n.localAs
      ? `${n.localAs.asn}${n.localAs.noPrepend ? ' no-prepend' : ''}${n.localAs.replaceAs ? ' replace-as' : ''}`
      : null,
    ebgpMultihop: n.ebgpMultihop ?? null,
    updateSource: n.updateSource === undefined ? null : updateSourceText(n.updateSource),
    timers: n.timers ? { keepalive: n.timers.keepalive, hold: n.timers.hold } : null,
  };
}

/** What the underlay's sessions apply: the loop guard's route-maps and the outbound filter. */
export interface UnderlayRouteMaps {
  /** Inbound in every family (the loop guard's tag); null without the guard. */
  readonly in: string | null;
  /** Outbound in ipv4 and ipv6 unicast. */
  readonly unicastOut: string | null;
  /** Outbound in l2vpn evpn. */
  readonly evpnOut: string | null;
}

export function underlayNeighbor(
  n: FrrUnderlayNeighbor,
  routeMaps: UnderlayRouteMaps,
  bfd: BfdProfiles,
): FrrNeighborModel {
  const id = n.address !== undefined ? canonicalIp(n.address) : (n.interface ?? '');
  const af = (outMap: string | null): FrrNeighborAfModel => ({
    id,
    allowAsIn: allowAsInClause(n.allowAsIn),
    maxPrefixes: null,
    maxPrefixesOption: null,
    routeMapIn: routeMaps.in,
    routeMapOut: outMap,
  });
  const ipv4 = n.addressFamilies.includes('ipv4') ? af(routeMaps.unicastOut) : null;
  return {
    ...session(id, n, bfd),
    interface: n.interface !== undefined,
    peerGroup: false,
    listenRange: null,
    ipv4,
    ipv6: n.addressFamilies.includes('ipv6') ? af(routeMaps.unicastOut) : null,
    evpn: n.addressFamilies.includes('evpn') ? af(routeMaps.evpnOut) : null,
    ipv4RouteMapOut: ipv4?.routeMapOut ?? null,
  };
}

/** A BGP peer inside VRF `vrf` (`vrfs[vrfIndex].bgpPeers[peerIndex]`). */
export function vrfPeer(
  vrf: string,
  path: string,
  p: FrrBgpPeer,
  policy: PolicyObjects,
  bfd: BfdProfiles,
): FrrNeighborModel {
  const target = p.address ?? p.listenRange ?? '';
  const id = p.listenRange !== undefined ? frrObjectNames.peerGroup(vrf, p.listenRange) : canonicalIp(target);
  const routeMap = (direction: 'in' | 'out', field: 'import' | 'export', filter: FrrFilter | undefined) => {
    if (!filter) return null;
    const name = frrObjectNames.peerRouteMap(vrf, target, direction);
    policy
      .for({ path: `${path}.${field}`, what: `the ${field} filter of VRF ${vrf}'s peer ${target}` })
      .filter(name, filter);
    return name;
  };
  const routeMapIn = routeMap('in', 'import', p.import);
  const routeMapOut = routeMap('out', 'export', p.export);
  const families = p.addressFamilies ?? [familyOf(target)];
  const af = (): FrrNeighborAfModel => ({
    id,
    allowAsIn: allowAsInClause(p.allowAsIn),
    maxPrefixes: p.maxPrefixes ?? null,
    maxPrefixesOption: p.maxPrefixesWarningOnly
      ? 'warning-only'
      : p.maxPrefixesRestart !== undefined
        ? `restart ${p.maxPrefixesRestart}`
        : null,
    routeMapIn,
    routeMapOut,
  });
  const ipv4 = families.includes('ipv4') ? af() : null;
  return {
    ...session(id, p, bfd),
    interface: false,
    peerGroup: p.listenRange !== undefined,
    listenRange: p.listenRange === undefined ? null : canonicalIp(p.listenRange),
    ipv4,
    ipv6: families.includes('ipv6') ? af() : null,
    evpn: null,
    ipv4RouteMapOut: ipv4?.routeMapOut ?? null,
  };
}
