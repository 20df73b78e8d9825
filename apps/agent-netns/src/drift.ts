import { createStreamTrigger, type Trigger } from '@fabrik/agent-runtime';
import { FABRIK_ROUTE_PROTOCOL, type Netlink, type NetlinkEvent } from '@fabrik/netcore/netlink';
import { MAIN_TABLE, type ExpectedLink } from './apply.js';

/** What the drift monitor compares events with (updated by every reconcile). */
export interface DriftExpectation {
  /** The links the agent owns or wants, with their expected admin state and master. */
  readonly links: ReadonlyMap<string, ExpectedLink>;
  /** The routing tables in which the agent keeps routes; unknown (before the first apply): every table. */
  readonly routeTables?: ReadonlySet<string>;
}

export interface DriftTriggerOptions {
  readonly netlink: Netlink;
  readonly expected: () => DriftExpectation;
  /** Told when the monitor exits by itself (it is restarted after `restartDelayMs`). */
  readonly onMonitorExit?: (why: string) => void;
  readonly restartDelayMs?: number;
}

/**
 * Drift repair: `ip -ts monitor link address route` in the managed namespace, through
 * @fabrik/agent-runtime's stream trigger (restarted when it exits); an event that contradicts what
 * the agent applied (a watched link deleted, set down, moved to another master; an address added or
 * removed on it; one of fabrik's routes, protocol 249, deleted) enqueues a reconcile, which re-reads
 * everything and puts it back. Events of other links, carrier changes, the kernel's link-local
 * addresses and the routes zebra installs are ignored. Each event carries `ip`'s stamp: the daemon
 * drops those a reconcile had already read (made before it started), and holds those that arrive
 * while one runs until it ends. The apply makes its last changes after its last observation, so
 * changes made while it runs are judged once it has ended, the last one per object, against the
 * links and route tables it then expects: a link it deleted itself (a VRF, with its table's routes)
 * no longer counts; a link set down by hand in that time does. (Addresses have no expectation yet:
 * those events on an expected link always count.)
 */
export function createDriftTrigger(options: DriftTriggerOptions): Trigger {
  return createStreamTrigger<NetlinkEvent>({
    name: 'drift monitor',
    open: (onEvent) => options.netlink.monitor(onEvent),
    reasonOf: (event) => driftReason(event, options.expected()),
    changedAt: (event) => event.at?.getTime(),
    // The apply's own deletions arrive while it runs: judged again after it, against what the agent
    // then expects, they no longer call for a second reconcile.
    objectOf: driftObject,
    onExit: options.onMonitorExit,
    restartDelayMs: options.restartDelayMs,
  });
}

/**
 * The object an event concerns (the start of its drift reason), for judging the last event per
 * object again after an apply.
 */
export function driftObject(event: NetlinkEvent): string {
  switch (event.object) {
    case 'link':
      return `link ${event.name}`;
    case 'address':
      return `address ${event.address} on ${event.dev}`;
    case 'route':
      return `route ${event.dst}${event.table ? ` table ${event.table}` : ''}`;
  }
}

/** Why `event` calls for a reconcile, or undefined when it does not concern the agent's objects (pure). */
export function driftReason(event: NetlinkEvent, expected: DriftExpectation): string | undefined {
  const object = driftObject(event);
  switch (event.object) {
    case 'link': {
      const want = expected.links.get(event.name);
      if (!want) return undefined;
      if (event.deleted) return `${object} deleted`;
      if (want.up !== undefined && event.up !== want.up) return `${object} set ${event.up ? 'up' : 'down'}`;
      if (want.master !== undefined && (event.master ?? null) !== want.master)
        return `${object} master ${event.master ?? 'removed'}`;
      return undefined; // carrier changes and the like: nothing the agent manages
    }
    case 'address':
      // IPv6 link-local addresses are the kernel's, not the agent's.
      if (!expected.links.has(event.dev) || /^fe[89ab]/i.test(event.address)) return undefined;
      return `${object} ${event.deleted ? 'deleted' : 'added'}`;
    case 'route':
      // A table the agent no longer keeps routes in (its VRF went away with the apply) is not drift.
      if (expected.routeTables && !expected.routeTables.has(tableNumber(event.table))) return undefined;
      return event.deleted && event.protocol === String(FABRIK_ROUTE_PROTOCOL)
        ? `${object} deleted`
        : undefined;
  }
}

/** `ip monitor` omits the main table and may name it. */
const tableNumber = (table: string | undefined): string =>
  table === undefined || table === 'main' ? String(MAIN_TABLE) : table;
