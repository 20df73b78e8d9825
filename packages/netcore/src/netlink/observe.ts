import { isCommandError } from '../exec/run.js';
import { classifyIpFailure } from './errors.js';
import type { NetnsRunner } from './exec.js';
import { decodeLinkDump, type ObservedLink } from './decode/link.js';
import { decodeRouteDump, type ObservedRoute } from './decode/route.js';
import { decodeNeighDump, type ObservedNeighbour } from './decode/neigh.js';
import { decodeFdbDump, type ObservedFdbEntry } from './decode/fdb.js';
import { ADDR_GEN_MODES, SYSCTL_KEYS, type InterfaceSysctls } from './objects.js';

/**
 * Which object types to dump besides links and addresses (always: one `ip -j -d addr show`
 * returns both). Dumping only what the desired state uses keeps a reconcile cheap: in the lab
 * the FDB dump alone costs more than the link dump.
 */
export interface ObserveScope {
  readonly routes?: boolean;
  readonly neighbours?: boolean;
  readonly fdb?: boolean;
  /** Interfaces whose managed sysctls to read. */
  readonly sysctlsOf?: readonly string[];
}

/** A namespace as observed. Object types outside the scope are `undefined` (not dumped). */
export interface ObservedState {
  readonly links: readonly ObservedLink[];
  readonly routes: readonly ObservedRoute[] | undefined;
  readonly neighbours: readonly ObservedNeighbour[] | undefined;
  readonly fdb: readonly ObservedFdbEntry[] | undefined;
  /** Managed sysctls per interface (only interfaces that exist). */
  readonly sysctls: ReadonlyMap<string, Required<InterfaceSysctls>> | undefined;
}

async function dump<T>(what: string, run: () => Promise<{ stdout: string }>, decode: (s: string) => T, netns: string | undefined): Promise<T> {
  try {
    return decode((await run()).stdout);
  } catch (e) {
    if (isCommandError(e)) throw classifyIpFailure(what, e.stderr, { netns, cause: e });
    throw e;
  }
}

/**
 * Dumps the namespace: `ip -j -d addr show` (links with linkinfo, bridge port flags and
 * addresses in one dump), and when asked `ip -j route show table all`, `ip -j neigh show`,
 * `bridge -j fdb show`, `sysctl -e KEYS...`. The dumps run in parallel.
 */
export async function observeNamespace(runner: NetnsRunner, scope: ObserveScope = {}): Promise<ObservedState> {
  const ns = runner.netns;
  const [links, routes, neighbours, fdb, sysctls] = await Promise.all([
    dump('ip -j -d addr show', () => runner.ip(['-j', '-d', 'addr', 'show']), decodeLinkDump, ns),
    scope.routes ? dump('ip -j route show table all', () => runner.ip(['-j', 'route', 'show', 'table', 'all']), decodeRouteDump, ns) : undefined,
    scope.neighbours ? dump('ip -j neigh show', () => runner.ip(['-j', 'neigh', 'show']), decodeNeighDump, ns) : undefined,
    scope.fdb ? dump('bridge -j fdb show', () => runner.bridge(['-j', 'fdb', 'show']), decodeFdbDump, ns) : undefined,
    scope.sysctlsOf && scope.sysctlsOf.length > 0 ? readSysctls(runner, scope.sysctlsOf) : undefined,
  ]);
  return { links, routes, neighbours, fdb, sysctls };
}

// sysctl prints a slash-form key with '.' and '/' swapped: net/ipv4/conf/tr.100/arp_accept
// comes back as net.ipv4.conf.tr/100.arp_accept. -e skips interfaces that do not exist.
const printedKey = (path: string): string => path.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));

async function readSysctls(runner: NetnsRunner, devs: readonly string[]): Promise<Map<string, Required<InterfaceSysctls>>> {
  const keys = Object.keys(SYSCTL_KEYS) as Array<keyof InterfaceSysctls>;
  const paths = devs.flatMap((dev) => keys.map((k) => SYSCTL_KEYS[k](dev)));
  const { stdout } = await runner.sysctl(['-e', ...paths]);
  const values = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) = (-?\d+)$/.exec(line.trim());
    if (m?.[1] && m[2]) values.set(m[1], Number(m[2]));
  }
  const out = new Map<string, Required<InterfaceSysctls>>();
  for (const dev of devs) {
    const get = (k: keyof InterfaceSysctls): number | undefined => values.get(printedKey(SYSCTL_KEYS[k](dev)));
    const arpAccept = get('arpAccept');
    const acceptDad = get('acceptDad');
    const genMode = get('addrGenMode');
    if (arpAccept === undefined || acceptDad === undefined || genMode === undefined) continue;
    out.set(dev, { arpAccept, acceptDad, addrGenMode: ADDR_GEN_MODES[genMode] ?? 'eui64' });
  }
  return out;
}
