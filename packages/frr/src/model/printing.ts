import { canonicalIp, type FrrIntent } from '@fabrik/api';

// How FRR prints what fabrik renders. frr-reload.py and the reload's own comparison match the
// rendered text against `show running-config` line by line, so every value is written the way
// FRR writes it back: its sort orders, its spelling of defaults, its omissions.

/** Host names FRR's `hostname` takes (labels of letters, digits and -, separated by dots). */
export const HOSTNAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Numeric values of FRR's well-known communities: FRR sorts communities by value. */
const WELL_KNOWN_VALUES: Record<string, number> = {
  internet: 0,
  'graceful-shutdown': 0xffff0000,
  'accept-own': 0xffff0001,
  blackhole: 0xffff029a,
  'no-export': 0xffffff01,
  'no-advertise': 0xffffff02,
  'local-AS': 0xffffff03,
  'no-peer': 0xffffff04,
};

/** The 32-bit value of a community (`AA:NN` or a well-known name). */
export function communityValue(c: string): number {
  const known = WELL_KNOWN_VALUES[c];
  if (known !== undefined) return known;
  const [high = '0', low = '0'] = c.split(':');
  return Number(high) * 0x10000 + Number(low);
}

/** Communities without duplicates in FRR's order (by value). */
export function sortCommunities(list: readonly string[]): string[] {
  return [...new Set(list)].sort((a, b) => communityValue(a) - communityValue(b));
}

/** Large communities without duplicates, by value (FRR prints them in the order given). */
export function sortLargeCommunities(list: readonly string[]): string[] {
  const parts = (c: string) => c.split(':').map(Number);
  return [...new Set(list)].sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
}

/**
 * The sequence number of a community-list entry: the community's value + 1. A number that
 * follows the value lets frr-reload.py replace a changed value (same number, new value: its `no`
 * line for the old entry fails). The schema refuses 65535:65535, the one value without a number
 * after it.
 */
export const communityListSeq = (community: string): number => communityValue(community) + 1;

/** FRR prints `allowas-in` alone for its default of 3. */
export function allowAsInClause(allowAsIn: number | 'origin' | undefined): string | null {
  if (allowAsIn === undefined) return null;
  return allowAsIn === 3 ? 'allowas-in' : `allowas-in ${allowAsIn}`;
}

/** bfdd's defaults, which FRR leaves out of its running configuration. */
export const BFD_DEFAULTS = { minRx: 300, minTx: 300, multiplier: 3 } as const;

/** FRR's graceful restart timers, which it leaves out of its running configuration. */
const GRACEFUL_RESTART_DEFAULTS = { restartTime: 120, stalepathTime: 360 } as const;

/**
 * The graceful restart and shutdown lines of every `router bgp`, in the order FRR prints them
 * (after `no bgp default ipv4-unicast`); timers equal to FRR's defaults are left out, as FRR does.
 */
export function gracefulLines(intent: Pick<FrrIntent, 'gracefulRestart' | 'gracefulShutdown'>): string[] {
  const lines: string[] = [];
  if (intent.gracefulShutdown) lines.push('bgp graceful-shutdown');
  const gr = intent.gracefulRestart;
  if (gr === undefined) return lines;
  if (gr.stalepathTime !== undefined && gr.stalepathTime !== GRACEFUL_RESTART_DEFAULTS.stalepathTime)
    lines.push(`bgp graceful-restart stalepath-time ${gr.stalepathTime}`);
  if (gr.restartTime !== undefined && gr.restartTime !== GRACEFUL_RESTART_DEFAULTS.restartTime)
    lines.push(`bgp graceful-restart restart-time ${gr.restartTime}`);
  lines.push('bgp graceful-restart');
  if (gr.preserveForwardingState) lines.push('bgp graceful-restart preserve-fw-state');
  return lines;
}

/** A BFD value as FRR prints it: null (left out) when it is bfdd's default. */
export const unlessBfdDefault = (value: number | undefined, fallback: number): number | null =>
  value === undefined || value === fallback ? null : value;

/**
 * The L2 route-targets a `vni N` block must print: FRR omits one equal to its automatic
 * route-target from the running configuration, so rendering it would make every reload report a
 * change. The automatic one is `ASN:VNI` with the low 2 bytes of the ASN (4200000001 -> 59905:VNI;
 * FRR 8.4 shows an explicit `59905:2100` as nothing at all).
 */
export function l2RouteTargetsToPrint(asn: number, vni: number, list: readonly string[]): string[] {
  const auto = `${asn % 0x10000}:${vni}`;
  return uniqueSorted(list).filter((rt) => rt !== auto);
}

/** An update-source as FRR prints it: addresses in FRR's spelling, interface names as given. */
export const updateSourceText = (source: string): string =>
  source.includes(':') ? canonicalIp(source) : source;

export function uniqueSorted(list: readonly string[]): string[] {
  return [...new Set(list)].sort(compareText);
}

/** Byte order (FRR's and the golden files'), not the locale's. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
