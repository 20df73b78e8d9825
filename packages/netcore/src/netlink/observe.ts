import { isCommandError, type RunResult } from '../exec/run.js';
import { DumpInterruptedError, classifyIpFailure } from './errors.js';
import type { NetnsRunner } from './exec.js';
import { decodeLinkDump, type ObservedLink } from './decode/link.js';
import { decodeRouteDump, type ObservedRoute } from './decode/route.js';
import { decodeNeighDump, type ObservedNeighbour } from './decode/neigh.js';
import { decodeFdbDump, type ObservedFdbEntry } from './decode/fdb.js';
import { checkSysctlDevice } from './names.js';
import { ADDR_GEN_MODES, NUMERIC_SYSCTLS, SYSCTL_KEYS, type InterfaceSysctls } from './objects.js';

/**
 * Which object types to dump besides links and addresses (always: one `ip -j -d addr show`
 * returns both). Dumping only what the desired state uses keeps a reconcile cheap: in the lab
 * the FDB dump alone costs more than the link dump.
 */
export interface ObserveScope {
  readonly routes?: boolean;
  /**
   * Only the routes of this protocol (`proto N`). Default: every route. Hundreds of interfaces
   * bring thousands of kernel routes (local and multicast entries of each) that a plan never reads.
   */
  readonly routeProtocol?: number;
  readonly neighbours?: boolean;
  readonly fdb?: boolean;
  /** Interfaces whose managed sysctls to read. */
  readonly sysctlsOf?: readonly string[];
  /** The sysctls read of each of them. Default: every managed one. */
  readonly sysctlKeys?: readonly (keyof InterfaceSysctls)[];
}

/** A namespace as observed. Object types outside the scope are `undefined` (not dumped). */
export interface ObservedState {
  readonly links: readonly ObservedLink[];
  readonly routes: readonly ObservedRoute[] | undefined;
  readonly neighbours: readonly ObservedNeighbour[] | undefined;
  readonly fdb: readonly ObservedFdbEntry[] | undefined;
  /** Managed sysctls per interface (only interfaces that exist). */
  readonly sysctls: ReadonlyMap<string, InterfaceSysctls> | undefined;
}

/** The raw stdout of each dump; what fixtures record. */
export interface RawDumps {
  /** `ip -j -d addr show` */
  readonly addr: string;
  /** `ip -j -4 route show table all` */
  readonly route4?: string;
  /** `ip -j -6 route show table all` */
  readonly route6?: string;
  /** `ip -j neigh show` */
  readonly neigh?: string;
  /** `bridge -j fdb show` */
  readonly fdb?: string;
  /** `sysctl -e KEYS...` of the interfaces in `sysctlsOf` */
  readonly sysctl?: string;
}

/** What iproute2 prints when the kernel flagged a dump as racing with a change (NLM_F_DUMP_INTR). */
const DUMP_INTERRUPTED = /Dump was interrupted and may be inconsistent/;
/** Attempts of one dump before {@link DumpInterruptedError}: a dump races only with a change in flight. */
export const DUMP_ATTEMPTS = 5;

/** True when a command's standard error says its dump was interrupted. */
export const wasInterrupted = (stderr: string): boolean => DUMP_INTERRUPTED.test(stderr);

/**
 * Runs a dump and resolves with its output. A dump iproute2 reports as interrupted (on stderr,
 * with exit 0 in iproute2 6.1, non-zero in later versions) is partial: it is run again, up to
 * {@link DUMP_ATTEMPTS} times, then {@link DumpInterruptedError}. Other failures become the typed
 * error of {@link classifyIpFailure}.
 */
export async function runDump(
  what: string,
  run: () => Promise<RunResult>,
  netns: string | undefined,
): Promise<RunResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await run();
      if (!wasInterrupted(result.stderr)) return result;
    } catch (e) {
      if (!isCommandError(e)) throw e;
      if (!wasInterrupted(e.stderr)) throw classifyIpFailure(what, e.stderr, { netns, cause: e });
    }
    if (attempt >= DUMP_ATTEMPTS) throw new DumpInterruptedError(what, attempt);
  }
}

const dump = async (
  what: string,
  run: () => Promise<RunResult>,
  netns: string | undefined,
): Promise<string> => (await runDump(what, run, netns)).stdout;

/** `ip -j -d addr show`: links and addresses, whatever the scope. */
export const dumpLinks = (runner: NetnsRunner): Promise<string> =>
  dump('ip -j -d addr show', () => runner.ip(['-j', '-d', 'addr', 'show']), runner.netns);

/** The sysctl paths read for `devs` (slash form: dots in names like `tr.100` survive). */
export function sysctlPaths(
  devs: readonly string[],
  keys: readonly (keyof InterfaceSysctls)[] = Object.keys(SYSCTL_KEYS) as Array<keyof InterfaceSysctls>,
): string[] {
  return devs.flatMap((dev, i) => keys.map((k) => SYSCTL_KEYS[k](checkSysctlDevice(dev, `sysctlsOf[${i}]`))));
}

/**
 * Runs the dumps `scope` asks for, in parallel, and returns their raw output. `addrDump` is an
 * `ip -j -d addr show` output the caller already has (apply gets it from the end of its batch).
 */
export async function dumpNamespace(
  runner: NetnsRunner,
  scope: ObserveScope = {},
  addrDump?: string | Promise<string>,
): Promise<RawDumps> {
  const ns = runner.netns;
  const devs = scope.sysctlsOf ?? [];
  const keys = scope.sysctlKeys;
  const routesOf = (family: '-4' | '-6') => {
    const args = ['-j', family, 'route', 'show', 'table', 'all'];
    if (scope.routeProtocol !== undefined) args.push('proto', String(scope.routeProtocol));
    return dump(`ip ${args.join(' ')}`, () => runner.ip(args), ns);
  };
  const [addr, route4, route6, neigh, fdb, sysctl] = await Promise.all([
    addrDump ?? dumpLinks(runner),
    scope.routes ? routesOf('-4') : undefined,
    scope.routes ? routesOf('-6') : undefined,
    scope.neighbours ? dump('ip -j neigh show', () => runner.ip(['-j', 'neigh', 'show']), ns) : undefined,
    scope.fdb ? dump('bridge -j fdb show', () => runner.bridge(['-j', 'fdb', 'show']), ns) : undefined,
    // -e: interfaces that do not exist yet are skipped, not an error.
    devs.length > 0 && (keys === undefined || keys.length > 0)
      ? dump('sysctl -e', () => runner.sysctl(['-e', ...sysctlPaths(devs, keys)]), ns)
      : undefined,
  ]);
  return {
    addr,
    ...(route4 === undefined ? {} : { route4 }),
    ...(route6 === undefined ? {} : { route6 }),
    ...(neigh === undefined ? {} : { neigh }),
    ...(fdb === undefined ? {} : { fdb }),
    ...(sysctl === undefined ? {} : { sysctl }),
  };
}

/** Decodes raw dumps into the model. Pure. */
export function decodeDumps(raw: RawDumps, scope: ObserveScope = {}): ObservedState {
  const filteredProtocol = scope.routeProtocol === undefined ? undefined : String(scope.routeProtocol);
  return {
    links: decodeLinkDump(raw.addr),
    routes:
      raw.route4 === undefined && raw.route6 === undefined
        ? undefined
        : [
            ...decodeRouteDump(raw.route4 ?? '', 'inet', filteredProtocol),
            ...decodeRouteDump(raw.route6 ?? '', 'inet6', filteredProtocol),
          ],
    neighbours: raw.neigh === undefined ? undefined : decodeNeighDump(raw.neigh),
    fdb: raw.fdb === undefined ? undefined : decodeFdbDump(raw.fdb),
    sysctls: raw.sysctl === undefined ? undefined : decodeSysctls(raw.sysctl, scope.sysctlsOf ?? []),
  };
}

/**
 * Dumps the namespace: `ip -j -d addr show` (links with linkinfo, bridge port flags and
 * addresses in one dump), and when asked `ip -j -4/-6 route show table all`, `ip -j neigh show`,
 * `bridge -j fdb show`, `sysctl -e KEYS...`. The dumps run in parallel.
 */
export async function observeNamespace(
  runner: NetnsRunner,
  scope: ObserveScope = {},
): Promise<ObservedState> {
  return decodeDumps(await dumpNamespace(runner, scope), scope);
}

// sysctl prints a slash-form key with '.' and '/' swapped: net/ipv4/conf/tr.100/arp_accept
// comes back as net.ipv4.conf.tr/100.arp_accept.
const printedKey = (path: string): string => path.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));

/** Decodes `sysctl -e` output for the interfaces in `devs`; interfaces it does not list are absent. */
export function decodeSysctls(stdout: string, devs: readonly string[]): Map<string, InterfaceSysctls> {
  const values = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) = (-?\d+)$/.exec(line.trim());
    if (m?.[1] && m[2]) values.set(m[1], Number(m[2]));
  }
  const out = new Map<string, InterfaceSysctls>();
  for (const dev of devs) {
    const get = (k: keyof InterfaceSysctls): number | undefined =>
      values.get(printedKey(SYSCTL_KEYS[k](dev)));
    // A key sysctl did not print stays undefined (the planner then writes it when desired).
    const found: { -readonly [K in keyof InterfaceSysctls]: InterfaceSysctls[K] } = {};
    for (const k of NUMERIC_SYSCTLS) {
      const v = get(k);
      if (v !== undefined) found[k] = v;
    }
    const genMode = get('addrGenMode');
    if (genMode !== undefined) found.addrGenMode = ADDR_GEN_MODES[genMode] ?? 'eui64';
    if (Object.keys(found).length > 0) out.set(dev, found);
  }
  return out;
}
