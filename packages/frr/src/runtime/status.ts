import { z } from 'zod';
import { runningConfigFile } from '../config-text.js';
import { parseVtyshJson, vtysh, vtyshCommands, type FrrTarget } from './vtysh.js';

/** One BGP session as `show bgp vrf all summary json` reports it. */
export interface FrrBgpSession {
  readonly vrf: string;
  /** FRR's address-family key: `ipv4Unicast`, `l2VpnEvpn`, ... */
  readonly addressFamily: string;
  readonly neighbor: string;
  /** `Established`, `Active`, `Connect`, `Idle`, ... */
  readonly state: string;
  readonly remoteAs: number | null;
  readonly prefixesReceived: number | null;
}

/** One VNI as `show evpn vni json` reports it. */
export interface FrrEvpnVni {
  readonly vni: number;
  readonly type: 'L2' | 'L3';
  readonly vxlanInterface: string | null;
  /** The tenant VRF (L2 VNIs, and L3 VNIs when zebra knows it). */
  readonly vrf: string | null;
  readonly remoteVteps: number | null;
}

/** One row of `show vrf vni json`. */
export interface FrrVrfVni {
  readonly vrf: string;
  readonly vni: number;
  /** `Up` or `Down`. */
  readonly state: string;
  readonly vxlanInterface: string | null;
}

export interface FrrStatus {
  /** Sorted by vrf, address family, neighbor. */
  readonly bgpSessions: readonly FrrBgpSession[];
  /** Sorted by VNI. */
  readonly evpnVnis: readonly FrrEvpnVni[];
  /** Sorted by VRF name. */
  readonly vrfVnis: readonly FrrVrfVni[];
}

const optionalName = (v: unknown): string | null =>
  typeof v === 'string' && v !== 'None' && v !== 'Unknown' ? v : null;

const BgpSummary = z.record(
  z.string(),
  z.record(z.string(), z.unknown()).transform((afs) =>
    Object.entries(afs).flatMap(([af, value]) => {
      const peers = (value as { peers?: Record<string, Record<string, unknown>> } | null)?.peers;
      return peers && typeof peers === 'object' ? [{ af, peers }] : [];
    }),
  ),
);

const EvpnVnis = z.record(
  z.string(),
  z.looseObject({
    vni: z.number(),
    type: z.string(),
    vxlanIf: z.unknown().optional(),
    tenantVrf: z.unknown().optional(),
    numRemoteVteps: z.unknown().optional(),
  }),
);

/** `show vrf vni json`: `{ vrfs: [...] }`, one row per VRF that has an L3 VNI. */
const VrfVnis = z.looseObject({
  vrfs: z
    .array(
      z.looseObject({
        vrf: z.string(),
        vni: z.number(),
        state: z.string().optional(),
        vxlanIntf: z.unknown().optional(),
      }),
    )
    .default([]),
});

/** Reads BGP sessions, EVPN VNIs and the VRF-to-VNI mapping from vtysh's JSON output. */
export async function readFrrStatus(target: FrrTarget): Promise<FrrStatus> {
  const [bgp = '', vnis = '', vrfs = ''] = await vtyshCommands(target, [
    'show bgp vrf all summary json',
    'show evpn vni json',
    'show vrf vni json',
  ]);
  return parseFrrStatus({
    bgpSummary: parseVtyshJson(bgp),
    evpnVni: parseVtyshJson(vnis),
    vrfVni: parseVtyshJson(vrfs),
  });
}

/** zebra's L3 VNI of each VRF (`show vrf vni json`): one vtysh call, for waits that need only this. */
export async function readVrfVnis(target: FrrTarget): Promise<FrrVrfVni[]> {
  return parseShowVrfVni(parseVtyshJson(await vtysh(target, 'show vrf vni json')));
}

/**
 * FRR's running configuration (as {@link showRunningConfig} returns it) and zebra's L3 VNI of each
 * VRF, through one vtysh: a caller that needs both before a change saves a vtysh start (about half
 * a second of the lab kernel).
 */
export async function readRunningConfigAndVrfVnis(
  target: FrrTarget,
): Promise<{ running: string; vrfVnis: FrrVrfVni[] }> {
  const [running = '', vrfs = ''] = await vtyshCommands(target, ['show running-config', 'show vrf vni json']);
  return { running: runningConfigFile(running), vrfVnis: parseShowVrfVni(parseVtyshJson(vrfs)) };
}

/** Decodes `show vrf vni json` (the one parser of it: status and the reload's VNI check use it). Sorted by VRF name. */
export function parseShowVrfVni(json: unknown): FrrVrfVni[] {
  return VrfVnis.parse(json)
    .vrfs.map((r) => ({
      vrf: r.vrf,
      vni: r.vni,
      state: r.state ?? 'Unknown',
      vxlanInterface: optionalName(r.vxlanIntf),
    }))
    .sort((a, b) => cmp(a.vrf, b.vrf));
}

/** The pure half of {@link readFrrStatus}: decodes the three JSON documents. */
export function parseFrrStatus(raw: { bgpSummary: unknown; evpnVni: unknown; vrfVni: unknown }): FrrStatus {
  const bgpSessions: FrrBgpSession[] = Object.entries(BgpSummary.parse(raw.bgpSummary)).flatMap(
    ([vrf, afs]) =>
      afs.flatMap(({ af, peers }) =>
        Object.entries(peers).map(([neighbor, p]) => ({
          vrf,
          addressFamily: af,
          neighbor,
          state: typeof p.state === 'string' ? p.state : 'Unknown',
          remoteAs: typeof p.remoteAs === 'number' ? p.remoteAs : null,
          prefixesReceived: typeof p.pfxRcd === 'number' ? p.pfxRcd : null,
        })),
      ),
  );
  bgpSessions.sort(
    (a, b) => cmp(a.vrf, b.vrf) || cmp(a.addressFamily, b.addressFamily) || cmp(a.neighbor, b.neighbor),
  );
  const evpnVnis: FrrEvpnVni[] = Object.values(EvpnVnis.parse(raw.evpnVni))
    .map((v) => ({
      vni: v.vni,
      type: v.type === 'L3' ? ('L3' as const) : ('L2' as const),
      vxlanInterface: optionalName(v.vxlanIf),
      vrf: optionalName(v.tenantVrf),
      remoteVteps: typeof v.numRemoteVteps === 'number' ? v.numRemoteVteps : null,
    }))
    .sort((a, b) => a.vni - b.vni);
  const vrfVnis = parseShowVrfVni(raw.vrfVni);
  return { bgpSessions, evpnVnis, vrfVnis };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
