import { z } from 'zod';
import { MacAddress } from '@fabrik/api';
import { isCommandError, type RunResult } from '../exec/run.js';
import { classifyIpFailure } from './errors.js';
import { addrArgs, batchLine, fdbArgs, neighArgs, routeArgs } from './encode.js';
import { NetlinkBatchOpsSchema, batchOpArgs, batchOpLink, runBatch, type NetlinkBatchOp } from './batch.js';
import { createRunner, type NetnsRunner } from './exec.js';
import { checkInterfaceName, checkSysctlDevice, netnsArg, parseNetnsTarget } from './names.js';
import { validate } from './validate.js';
import {
  BridgePortFlagsSchema,
  LinkSpecSchema,
  bridgePortArgs,
  linkAddArgs,
  type BridgePortFlags,
  type LinkSpec,
} from './links/index.js';
import {
  AddressSpecSchema,
  FdbSpecSchema,
  InterfaceSysctlsSchema,
  NeighbourSpecSchema,
  RouteSpecSchema,
  sysctlAssignments,
  type AddressSpec,
  type FdbSpec,
  type InterfaceSysctls,
  type NeighbourSpec,
  type RouteSpec,
} from './objects.js';
import { decodeLinkDump, type ObservedAddress, type ObservedLink } from './decode/link.js';
import { decodeRouteDump, type ObservedRoute } from './decode/route.js';
import { decodeNeighDump, type ObservedNeighbour } from './decode/neigh.js';
import { decodeFdbDump, type ObservedFdbEntry } from './decode/fdb.js';
import { decodeMonitorLine, type MonitorObject, type NetlinkEvent } from './decode/monitor.js';
import type { LineStream } from '../exec/stream.js';
import {
  decodeDumps,
  dumpLinks,
  dumpNamespace,
  observeNamespace,
  runDump,
  type ObserveScope,
  type ObservedState,
  type RawDumps,
} from './observe.js';
import { parseDesiredState } from './desired.js';
import { applyPlan, type ApplyResult } from './apply.js';
import { observeScopeOf, plan as makePlan } from './plan.js';
import type { Plan, PlanOptions } from './plan-ops.js';
import type { DesiredState } from './desired.js';

/** Options of {@link createNetlink}. */
export interface NetlinkOptions {
  /**
   * The namespace to work in: a name under /run/netns or an absolute path of a netns file
   * (`/proc/PID/ns/net`, a CNI_NETNS path). Default: the caller's own namespace.
   */
  readonly netns?: string;
  /**
   * Where `apply` records the links it is about to create, so that a restart after a crash can
   * tell its own unmarked links from foreign ones (the kernel takes no ifalias when it creates a
   * link, so a link is created, then marked by the next batch line). `reconcile` passes what it
   * holds as {@link PlanOptions.adopt}; a caller that plans itself passes {@link Netlink.adoptable}.
   * Default: none (a link whose marking a crash cut off is then foreign, as any unmarked link).
   */
  readonly journal?: CreationJournal;
}

/**
 * A durable set of link names (an agent keeps it in its state directory). `record` returns once
 * the names are on disk; `clear` follows an apply that finished, which marked every link it created.
 */
export interface CreationJournal {
  load(): Promise<ReadonlySet<string>>;
  record(names: readonly string[]): Promise<void>;
  clear(): Promise<void>;
}

/** Filter of {@link Netlink.routeList}. */
export interface RouteListFilter {
  /** Numeric table id; default: every table. */
  readonly table?: number;
}

/**
 * A handle bound to one network namespace. Every verb is one iproute2 command; failures become
 * typed errors (LinkNotFoundError, ObjectExistsError, KernelFeatureMissingError, KernelRejectedError).
 */
export interface Netlink {
  readonly netns: string | undefined;
  /**
   * Creates a link; fails with ObjectExistsError when the name is taken. Sets alias, master and up
   * afterwards when given; if that fails the link is deleted again. Without a master, one iproute2
   * process for all of it (separate ones when a value cannot be written to a batch line).
   * Equivalent to: `ip -batch -` with `link add NAME type KIND ...` (+ `link set dev NAME alias A master M`, `link set dev NAME up`).
   */
  linkAdd(spec: LinkSpec): Promise<void>;
  /** Deletes a link; LinkNotFoundError when it does not exist. Equivalent to: `ip link del dev NAME`. */
  linkDel(name: string): Promise<void>;
  /** One link with its addresses; LinkNotFoundError when missing. Equivalent to: `ip -j -d addr show dev NAME`. */
  linkGet(name: string): Promise<ObservedLink>;
  /** Every link with its addresses. Equivalent to: `ip -j -d addr show`. */
  linkList(): Promise<ObservedLink[]>;
  /** Equivalent to: `ip link set dev NAME up`. */
  linkSetUp(name: string): Promise<void>;
  /** Equivalent to: `ip link set dev NAME down`. */
  linkSetDown(name: string): Promise<void>;
  /** Enslaves to `master`, or releases with `null`. Equivalent to: `ip link set dev NAME master M` / `nomaster`. */
  linkSetMaster(name: string, master: string | null): Promise<void>;
  /** Moves a link to another namespace (name or path). Equivalent to: `ip link set dev NAME netns NS`. */
  linkSetNetns(name: string, netns: string): Promise<void>;
  /** Equivalent to: `ip link set dev NAME name NEW`. */
  linkRename(name: string, newName: string): Promise<void>;
  /** Equivalent to: `ip link set dev NAME mtu MTU`. */
  linkSetMtu(name: string, mtu: number): Promise<void>;
  /** Equivalent to: `ip link set dev NAME address MAC`. */
  linkSetMac(name: string, mac: string): Promise<void>;
  /** Equivalent to: `ip link set dev NAME alias TEXT`. */
  linkSetAlias(name: string, alias: string): Promise<void>;
  /** Bridge port flags of an enslaved link. Equivalent to: `ip link set dev NAME type bridge_slave learning off ...`. */
  linkSetPortFlags(name: string, flags: BridgePortFlags): Promise<void>;
  /** Adds an address; ObjectExistsError when present. Equivalent to: `ip addr add ADDR dev DEV [nodad]`. */
  addrAdd(dev: string, address: AddressSpec): Promise<void>;
  /** Adds or updates an address. Equivalent to: `ip addr replace ADDR dev DEV [nodad]`. */
  addrReplace(dev: string, address: AddressSpec): Promise<void>;
  /** Equivalent to: `ip addr del ADDR dev DEV`. */
  addrDel(dev: string, address: AddressSpec): Promise<void>;
  /** Addresses of one link, or of every link. Equivalent to: `ip -j addr show [dev DEV]`. */
  addrList(dev?: string): Promise<Array<ObservedAddress & { dev: string }>>;
  /** Adds a route; ObjectExistsError when present. Equivalent to: `ip route add ROUTE`. */
  routeAdd(route: RouteSpec): Promise<void>;
  /** Adds or replaces a route. Equivalent to: `ip route replace ROUTE`. */
  routeReplace(route: RouteSpec): Promise<void>;
  /** Equivalent to: `ip route del ROUTE`. */
  routeDel(route: RouteSpec): Promise<void>;
  /** Equivalent to: `ip -j route show table all|T`. */
  routeList(filter?: RouteListFilter): Promise<ObservedRoute[]>;
  /** Adds a static neighbour; ObjectExistsError when present. Equivalent to: `ip neigh add ADDR lladdr MAC dev DEV nud permanent`. */
  neighAdd(neigh: NeighbourSpec): Promise<void>;
  /** Equivalent to: `ip neigh replace ADDR lladdr MAC dev DEV nud permanent`. */
  neighReplace(neigh: NeighbourSpec): Promise<void>;
  /** Equivalent to: `ip neigh del ADDR dev DEV`. */
  neighDel(neigh: NeighbourSpec): Promise<void>;
  /** Equivalent to: `ip -j neigh show`. */
  neighList(): Promise<ObservedNeighbour[]>;
  /** Adds (or for the all-zero MAC appends) an FDB entry. Equivalent to: `bridge fdb replace|append MAC dev DEV ...`. */
  fdbAdd(entry: FdbSpec): Promise<void>;
  /** Equivalent to: `bridge fdb del MAC dev DEV ...`. */
  fdbDel(entry: FdbSpec): Promise<void>;
  /** Equivalent to: `bridge -j fdb show`. */
  fdbList(): Promise<ObservedFdbEntry[]>;
  /**
   * Sets per-interface sysctls (`arpAccept`, `acceptDad`, `addrGenMode`, `arpNotify`) in this
   * namespace, also one given by path. Equivalent to: `sysctl -w net.ipv4.conf.DEV.arp_notify=1 ...`
   * (through `nsenter --net=PATH` for another namespace).
   */
  sysctlSet(dev: string, sysctls: InterfaceSysctls): Promise<void>;
  /**
   * Runs several operations in ONE iproute2 process, in order: `{ op: 'addrAdd' | 'addrReplace' |
   * 'addrDel', dev, address }`, `{ op: 'linkSetUp' | 'linkSetDown', name }`, `{ op: 'routeAdd' |
   * 'routeReplace' | 'routeDel', route }`, `{ op: 'neighAdd' | 'neighReplace' | 'neighDel', neigh }`,
   * each encoded like the verb of the same name. Every operation is validated before anything runs
   * (InvalidDesiredStateError naming `ops[i].field`). iproute2 stops at the first failing line: the
   * typed error names that line as `operation` (KernelRejectedError also carries the `op`); the
   * lines before it stay applied. An empty list starts no process.
   * Equivalent to: `ip [-n NS] -batch -` with one line per operation on standard input.
   */
  batch(ops: readonly NetlinkBatchOp[]): Promise<void>;
  /** Dumps the object types in `scope` (links and addresses always) into the model. Equivalent to: `ip -j -d addr show` (+ `ip -j route/neigh show`, `bridge -j fdb show` in scope). */
  observe(scope?: ObserveScope): Promise<ObservedState>;
  /** The raw iproute2 output `observe` decodes (for recording fixtures and debugging). Equivalent to: `ip -j -d addr show` (+ the dumps in scope). */
  dump(scope?: ObserveScope): Promise<RawDumps>;
  /** Applies a plan made by `plan()` for this namespace and verifies it (see apply.ts). Equivalent to: `ip -n NS -j -d -batch -` (+ `bridge -batch -`, `sysctl -w`). */
  apply(plan: Plan): Promise<ApplyResult>;
  /**
   * The links a previous apply was creating when its process died (the handle's journal; empty
   * without one): pass them as {@link PlanOptions.adopt} to plans made for `apply`.
   */
  adoptable(): Promise<ReadonlySet<string>>;
  /**
   * observe (only the object types `desired` uses) -> plan -> apply. An applied state costs
   * one observe and no change. Equivalent to: `ip -j -d addr show` then `ip -n NS -j -d -batch -`.
   */
  reconcile(desired: DesiredState, options?: PlanOptions): Promise<{ plan: Plan; result: ApplyResult }>;
  /**
   * Follows changes in this namespace as they happen: `onEvent` gets one decoded event per change
   * of the object types given (default: links, addresses and routes), until `stop()`. For drift
   * repair: an agent enqueues a reconcile when an event concerns its objects.
   * Each event carries the time `ip` received it (`at`).
   * Equivalent to: `ip [-n NS] -ts monitor link address route`.
   */
  monitor(onEvent: (event: NetlinkEvent) => void, objects?: readonly MonitorObject[]): LineStream;
}

/** The commands as `ip -batch` lines, or undefined when a value cannot be written to one. */
function batchLinesOf(commands: readonly (readonly string[])[]): string[] | undefined {
  try {
    return commands.map((c) => batchLine(c));
  } catch {
    return undefined;
  }
}

export function createNetlink(options: NetlinkOptions = {}): Netlink {
  const runner: NetnsRunner = createRunner(options.netns);
  const netns = options.netns;

  async function ip(
    args: string[],
    context: { linkKind?: string; linkName?: string } = {},
  ): Promise<RunResult> {
    try {
      return await runner.ip(args);
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw classifyIpFailure(`ip ${args.join(' ')}`, e.stderr, { ...context, netns, cause: e });
    }
  }
  async function bridge(args: string[]): Promise<RunResult> {
    try {
      return await runner.bridge(args);
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw classifyIpFailure(`bridge ${args.join(' ')}`, e.stderr, { netns, cause: e });
    }
  }
  /** An `ip -j ... show`: dumped again while iproute2 reports it interrupted (see runDump). */
  const listing = (args: string[]): Promise<RunResult> =>
    runDump(`ip ${args.join(' ')}`, () => runner.ip(args), netns);
  const name = (n: string, field = 'name'): string => checkInterfaceName(n, field);
  const set = (n: string, ...args: string[]): Promise<RunResult> =>
    ip(['link', 'set', 'dev', name(n), ...args], { linkName: n });

  const journal = options.journal;
  // Whether the journal may hold names: unknown at start (a previous process may have left some).
  let journalMayHold = journal !== undefined;
  const adoptable = async (): Promise<ReadonlySet<string>> =>
    journal && journalMayHold ? journal.load() : new Set<string>();
  async function journaledApply(p: Plan): Promise<ApplyResult> {
    const creating = p.ops.flatMap((op) =>
      op.op !== 'link-add'
        ? []
        : op.spec.kind === 'veth' && op.spec.peer.netns === undefined
          ? [op.spec.name, op.spec.peer.name]
          : [op.spec.name],
    );
    if (journal && creating.length > 0) {
      await journal.record(creating);
      journalMayHold = true;
    }
    const result = await applyPlan(runner, p);
    if (journal && journalMayHold) {
      await journal.clear();
      journalMayHold = false;
    }
    return result;
  }

  const handle: Netlink = {
    netns,
    async linkAdd(input) {
      const spec = validate(LinkSpecSchema, input, 'spec') as LinkSpec;
      const addArgs = linkAddArgs(spec);
      const enslave = typeof spec.master === 'string';
      const upDown = spec.up === undefined ? [] : [spec.up ? 'up' : 'down'];
      const after = [
        ...(spec.alias === undefined ? [] : ['alias', spec.alias]),
        ...(spec.master === undefined ? [] : spec.master === null ? ['nomaster'] : ['master', spec.master]),
        // The kernel applies flags before the master within one message: enslave first, then up.
        ...(enslave ? [] : upDown),
      ];
      const sets = [after, enslave ? upDown : []]
        .filter((a) => a.length > 0)
        .map((a) => ['link', 'set', 'dev', spec.name, ...a]);
      // Without a master, the add and its settings (alias, up) in ONE `ip -batch` process when every
      // value can be a batch line: a process per link instead of two (the CNI plugin creates a veth
      // per Pod interface). iproute2 names the failing line of a kernel error (`Command failed -:N`);
      // an argument it refuses ends the batch unnamed, which only the add's can be here (a validated
      // alias and up/down always parse; a master name is checked only when set, so not batched).
      const lines =
        sets.length > 0 && spec.master === undefined ? batchLinesOf([addArgs, ...sets]) : undefined;
      if (lines) {
        try {
          await runner.ip(['-batch', '-'], `${lines.join('\n')}\n`);
          return;
        } catch (e) {
          if (!isCommandError(e)) throw e;
          const failed = /Command failed -:(\d+)/.exec(e.stderr);
          const index = failed?.[1] ? Number(failed[1]) - 1 : 0;
          // All or nothing: a link whose master or alias could not be set is removed again.
          if (index > 0) await ip(['link', 'del', 'dev', spec.name]).catch(() => {});
          throw classifyIpFailure(`ip ${lines[index] ?? lines[0]}`, e.stderr, {
            ...(index === 0 ? { linkKind: spec.kind } : {}),
            linkName: spec.name,
            netns,
            cause: e,
          });
        }
      }
      await ip(addArgs, { linkKind: spec.kind, linkName: spec.name });
      try {
        for (const args of sets) await ip(args, { linkName: spec.name });
      } catch (e) {
        // All or nothing: a link whose master or alias could not be set is removed again.
        await ip(['link', 'del', 'dev', spec.name]).catch(() => {});
        throw e;
      }
    },
    async linkDel(n) {
      await ip(['link', 'del', 'dev', name(n)], { linkName: n });
    },
    async linkGet(n) {
      const [link] = decodeLinkDump((await listing(['-j', '-d', 'addr', 'show', 'dev', name(n)])).stdout);
      if (!link) throw classifyIpFailure(`ip addr show dev ${n}`, `Device "${n}" does not exist.`, { netns });
      return link;
    },
    async linkList() {
      return decodeLinkDump((await listing(['-j', '-d', 'addr', 'show'])).stdout);
    },
    async linkSetUp(n) {
      await set(n, 'up');
    },
    async linkSetDown(n) {
      await set(n, 'down');
    },
    async linkSetMaster(n, master) {
      await set(n, ...(master === null ? ['nomaster'] : ['master', name(master, 'master')]));
    },
    async linkSetNetns(n, target) {
      await set(n, 'netns', netnsArg(parseNetnsTarget(target)));
    },
    async linkRename(n, newName) {
      await set(n, 'name', name(newName, 'newName'));
    },
    async linkSetMtu(n, mtu) {
      await set(n, 'mtu', String(validate(z.number().int().min(68).max(65535), mtu, 'mtu')));
    },
    async linkSetMac(n, mac) {
      await set(n, 'address', validate(MacAddress, mac, 'mac'));
    },
    async linkSetAlias(n, alias) {
      await set(n, 'alias', validate(z.string().max(255), alias, 'alias'));
    },
    async linkSetPortFlags(n, flags) {
      await set(n, ...bridgePortArgs(validate(BridgePortFlagsSchema, flags, 'flags')));
    },
    async addrAdd(dev, a) {
      await ip(addrArgs('add', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrReplace(dev, a) {
      await ip(addrArgs('replace', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrDel(dev, a) {
      await ip(addrArgs('del', name(dev, 'dev'), validate(AddressSpecSchema, a, 'address')), {
        linkName: dev,
      });
    },
    async addrList(dev) {
      const links = dev === undefined ? await handle.linkList() : [await handle.linkGet(dev)];
      return links.flatMap((l) => (l.addresses ?? []).map((a) => ({ ...a, dev: l.spec.name })));
    },
    async routeAdd(r) {
      await ip(routeArgs('add', validate(RouteSpecSchema, r, 'route')));
    },
    async routeReplace(r) {
      await ip(routeArgs('replace', validate(RouteSpecSchema, r, 'route')));
    },
    async routeDel(r) {
      await ip(routeArgs('del', validate(RouteSpecSchema, r, 'route')));
    },
    async routeList(filter = {}) {
      const table =
        filter.table === undefined ? undefined : validate(z.number().int().min(0), filter.table, 'table');
      // Without a family, iproute2 dumps both only for `table all` (a table alone means IPv4).
      const routes = decodeRouteDump((await listing(['-j', 'route', 'show', 'table', 'all'])).stdout);
      return table === undefined ? routes : routes.filter((r) => r.table === table);
    },
    async neighAdd(n) {
      await ip(neighArgs('add', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighReplace(n) {
      await ip(neighArgs('replace', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighDel(n) {
      await ip(neighArgs('del', validate(NeighbourSpecSchema, n, 'neigh')));
    },
    async neighList() {
      return decodeNeighDump((await listing(['-j', 'neigh', 'show'])).stdout);
    },
    async fdbAdd(f) {
      await bridge(fdbArgs('add', validate(FdbSpecSchema, f, 'fdb')));
    },
    async fdbDel(f) {
      await bridge(fdbArgs('del', validate(FdbSpecSchema, f, 'fdb')));
    },
    async fdbList() {
      return decodeFdbDump(
        (await runDump('bridge -j fdb show', () => runner.bridge(['-j', 'fdb', 'show']), netns)).stdout,
      );
    },
    async sysctlSet(dev, sysctls) {
      const d = checkSysctlDevice(dev, 'dev');
      const assignments = sysctlAssignments(d, validate(InterfaceSysctlsSchema, sysctls, 'sysctls'));
      if (assignments.length > 0) await runner.sysctlWrite(assignments);
    },
    async batch(input) {
      const ops = validate(NetlinkBatchOpsSchema, input, 'ops');
      if (ops.length === 0) return;
      await runBatch(
        runner,
        'ip',
        { lines: ops.map((op) => batchLine(batchOpArgs(op))), ops },
        { contextOf: (op) => ({ linkName: batchOpLink(op) }) },
      );
    },
    monitor(onEvent, objects = ['link', 'address', 'route']) {
      const kinds = validate(z.array(z.enum(['link', 'address', 'route'])).min(1), objects, 'objects');
      return runner.ipStream(['-ts', 'monitor', ...new Set(kinds)], (line) => {
        const event = decodeMonitorLine(line);
        if (event) onEvent(event);
      });
    },
    observe: (scope) => observeNamespace(runner, scope),
    dump: (scope) => dumpNamespace(runner, scope),
    apply: journaledApply,
    adoptable,
    async reconcile(desired, planOptions) {
      // The link dump does not depend on the desired state: start it, and validate the desired
      // state (CPU) while iproute2 runs. A validation error wins; the dump's outcome is dropped.
      const links = dumpLinks(runner);
      links.catch(() => {});
      const valid = parseDesiredState(desired);
      const scope = observeScopeOf(valid, planOptions);
      const observed = decodeDumps(await dumpNamespace(runner, scope, { addr: links }), scope);
      const p = makePlan(valid, observed, { adopt: await adoptable(), ...planOptions });
      return { plan: p, result: await journaledApply(p) };
    },
  };
  return handle;
}
