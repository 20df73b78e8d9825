import type { BridgePortFlags, LinkSpec } from './links/index.js';
import type { AddressSpec, FdbSpec, InterfaceSysctls, NeighbourSpec, RouteSpec } from './objects.js';
import type { ObservedAddress, ObservedLink } from './decode/link.js';
import type { ObservedRoute } from './decode/route.js';
import type { ObservedNeighbour } from './decode/neigh.js';
import type { ObservedFdbEntry } from './decode/fdb.js';
import type { MonitorObject, NetlinkEvent } from './decode/monitor.js';
import type { LineStream } from '../exec/stream.js';
import type { ObserveScope, ObservedState, RawDumps } from './observe.js';
import type { ApplyResult } from './apply.js';
import type { NetlinkBatchOp } from './batch.js';
import type { Plan, PlanOptions } from './plan-ops.js';
import type { DesiredState } from './desired.js';

// The handle's contract, shared by its two implementations: rtnetlink in this process
// (native/handle.ts, what createNetlink returns) and iproute2 processes (iproute-handle.ts, kept
// as the independent oracle of the differential tests).

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
   * Each event carries the time this process read it (`at`).
   * Equivalent to: `ip [-n NS] -ts monitor link address route`; `stop()` resolves `exited` with exit code 0.
   */
  monitor(onEvent: (event: NetlinkEvent) => void, objects?: readonly MonitorObject[]): LineStream;
}

/**
 * `apply` with the handle's journal: the links a plan is about to create are recorded first and
 * the record cleared once the apply finished (see {@link NetlinkOptions.journal}).
 */
export function journaled(
  journal: CreationJournal | undefined,
  apply: (p: Plan) => Promise<ApplyResult>,
): { apply: (p: Plan) => Promise<ApplyResult>; adoptable: () => Promise<ReadonlySet<string>> } {
  // Whether the journal may hold names: unknown at start (a previous process may have left some).
  let journalMayHold = journal !== undefined;
  const adoptable = async (): Promise<ReadonlySet<string>> =>
    journal && journalMayHold ? journal.load() : new Set<string>();
  return {
    adoptable,
    async apply(p) {
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
      const result = await apply(p);
      if (journal && journalMayHold) {
        await journal.clear();
        journalMayHold = false;
      }
      return result;
    },
  };
}
