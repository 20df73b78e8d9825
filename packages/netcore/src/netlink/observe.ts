import { isCommandError, type RunResult } from '../exec/run.js';
import { DumpInterruptedError, NetlinkDecodeError, classifyIpFailure } from './errors.js';
import { sysctlPrintedKey, type NetnsRunner } from './exec.js';
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
  /** `ip -j route show table all` (both families) */
  readonly routes?: string;
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

/** `route show table all [proto N]`: both families when no family option is given. */
function routeShowArgs(scope: ObserveScope): string[] {
  const args = ['route', 'show', 'table', 'all'];
  if (scope.routeProtocol !== undefined) args.push('proto', String(scope.routeProtocol));
  return args;
}

/** The `show` lines of one `ip -j -d -batch -` that dumps links, addresses and, when asked, routes. */
export function showLines(scope: ObserveScope): string[] {
  return scope.routes ? ['addr show', routeShowArgs(scope).join(' ')] : ['addr show'];
}

/**
 * Splits the output of a batch's {@link showLines} (each `show` prints one JSON document on one
 * line; the batch's other lines print nothing) into the link dump and the route dump.
 */
export function splitShowOutput(stdout: string, scope: ObserveScope): { addr: string; routes?: string } {
  const documents = stdout.split('\n').filter((l) => l.trim() !== '');
  const expected = showLines(scope).length;
  if (documents.length !== expected)
    throw new NetlinkDecodeError(
      'ip -j -d -batch -',
      `${documents.length} JSON documents, expected ${expected}`,
    );
  const [addr = '', routes] = documents;
  return routes === undefined ? { addr } : { addr, routes };
}

/** What the caller already dumped: apply's batch ends with {@link showLines}, reconcile starts the link dump early. */
export interface PriorDumps {
  readonly addr: string | Promise<string>;
  /** Routes as the scope asks for them; dumped here when absent. */
  readonly routes?: string;
}

/**
 * Runs the dumps `scope` asks for and returns their raw output. Links, addresses and routes come
 * from one `ip -j -d -batch -` process (one family-less route dump: both families), the other
 * object types from one process each, in parallel.
 */
export async function dumpNamespace(
  runner: NetnsRunner,
  scope: ObserveScope = {},
  prior?: PriorDumps,
): Promise<RawDumps> {
  const ns = runner.netns;
  const devs = scope.sysctlsOf ?? [];
  const keys = scope.sysctlKeys;
  const routeDump = () => {
    const args = ['-j', ...routeShowArgs(scope)];
    return dump(`ip ${args.join(' ')}`, () => runner.ip(args), ns);
  };
  const linksAndRoutes = async (): Promise<{ addr: string; routes?: string }> => {
    if (prior === undefined) {
      if (!scope.routes) return { addr: await dumpLinks(runner) };
      const lines = showLines(scope);
      const what = `ip -j -d -batch - (${lines.join('; ')})`;
      const input = `${lines.join('\n')}\n`;
      return splitShowOutput(
        await dump(what, () => runner.ip(['-j', '-d', '-batch', '-'], input), ns),
        scope,
      );
    }
    const [addr, routes] = await Promise.all([
      prior.addr,
      scope.routes ? (prior.routes ?? routeDump()) : undefined,
    ]);
    return routes === undefined ? { addr } : { addr, routes };
  };
  const [{ addr, routes }, neigh, fdb, sysctl] = await Promise.all([
    linksAndRoutes(),
    scope.neighbours ? dump('ip -j neigh show', () => runner.ip(['-j', 'neigh', 'show']), ns) : undefined,
    scope.fdb ? dump('bridge -j fdb show', () => runner.bridge(['-j', 'fdb', 'show']), ns) : undefined,
    // -e: interfaces that do not exist yet are skipped, not an error.
    devs.length > 0 && (keys === undefined || keys.length > 0)
      ? dump('sysctl -e', () => runner.sysctlRead(sysctlPaths(devs, keys)), ns)
      : undefined,
  ]);
  return {
    addr,
    ...(routes === undefined ? {} : { routes }),
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
      raw.routes === undefined
        ? undefined
        : decodeRouteDump(raw.routes, filteredProtocol === undefined ? {} : { protocol: filteredProtocol }),
    neighbours: raw.neigh === undefined ? undefined : decodeNeighDump(raw.neigh),
    fdb: raw.fdb === undefined ? undefined : decodeFdbDump(raw.fdb),
    sysctls: raw.sysctl === undefined ? undefined : decodeSysctls(raw.sysctl, scope.sysctlsOf ?? []),
  };
}

/**
 * Dumps the namespace: `ip -j -d addr show` (links with linkinfo, bridge port flags and
 * addresses in one dump), and when asked `ip -j route show table all` (in the same process),
 * `ip -j neigh show`, `bridge -j fdb show`, `sysctl -e KEYS...`.
 */
export async function observeNamespace(
  runner: NetnsRunner,
  scope: ObserveScope = {},
): Promise<ObservedState> {
  return decodeDumps(await dumpNamespace(runner, scope), scope);
}

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
      values.get(sysctlPrintedKey(SYSCTL_KEYS[k](dev)));
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
