import { createStreamTrigger, type Trigger } from '@fabrik/agent-runtime';
import type { Netlink, NetlinkEvent } from '@fabrik/netcore/netlink';
import { OVS_OWNER_KEY, type RowChange } from '@fabrik/netcore/ovsdb';
import { OWNER } from './desired.js';
import type { WatchedNames } from './host-agent.js';

// What makes agent-host reconcile besides its intent source: kernel events on its links (a network
// manager putting an address back on a migrated NIC, a tr.<vid> deleted by hand, ovs-vswitchd
// recreating a local port) and OVSDB changes of its rows. Handlers only enqueue, with when the change
// happened (the daemon ignores the agent's own changes); the reconcile re-reads everything.

/**
 * Why a kernel event concerns agent-host, or undefined (pure): one of its links deleted, appearing
 * (not there when the last pass ended), or set down when it keeps it up; an address or route of a
 * link whose addresses it keeps. Carrier, master and flag changes are ovs-vswitchd's and the
 * kernel's business.
 */
export function hostDriftReason(event: NetlinkEvent, watched: WatchedNames): string | undefined {
  const verb = event.deleted ? 'deleted' : 'changed';
  switch (event.object) {
    case 'link':
      if (!watched.links.has(event.name) && !watched.addressed.has(event.name)) return undefined;
      if (event.deleted) return `link ${event.name} deleted`;
      if (!watched.present.has(event.name)) return `link ${event.name} appeared`;
      if (watched.up.has(event.name) && !event.up) return `link ${event.name} set down`;
      return undefined;
    case 'address':
      return watched.addressed.has(event.dev)
        ? `address ${event.address} on ${event.dev} ${verb}`
        : undefined;
    case 'route':
      return event.dev !== undefined && watched.addressed.has(event.dev)
        ? `route ${event.dst} dev ${event.dev} ${verb}`
        : undefined;
  }
}

/** The columns a modified row changed in, sorted: the log line of the reconcile it starts names them. */
function changedColumns(old: object | undefined, next: object | undefined): string[] {
  const before = (old ?? {}) as Record<string, unknown>;
  const after = (next ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]))
    .sort();
}

/**
 * Row changes that are no one's drift, by the columns they change. An Interface's `ofport`:
 * ovs-vswitchd numbering what a pass added (the agent waits for it where it needs it). A Bridge's
 * `ports`: a port added or removed, which the same update tells as the Port row's own insert or
 * delete, judged by whose port it is; a Pod's port (the CNI fast path adds one per attachment) is
 * none of agent-host's business.
 */
const IGNORED_COLUMNS: Readonly<Partial<Record<RowChange['table'], readonly string[]>>> = {
  Interface: ['ofport'],
  Bridge: ['ports'],
};

/**
 * Why a batch of OVSDB changes concerns agent-host (its rows, or rows named like what it wants), or
 * undefined (pure). A change of {@link IGNORED_COLUMNS} alone does not.
 */
export function ovsChangeReason(changes: readonly RowChange[], watched: WatchedNames): string | undefined {
  for (const c of changes) {
    if (c.table === 'Open_vSwitch') continue;
    const changed = c.kind === 'modify' ? changedColumns(c.old, c.new) : [];
    if (c.kind === 'modify' && changed.every((k) => IGNORED_COLUMNS[c.table]?.includes(k))) continue;
    const rows = [c.old, c.new].filter((r) => r !== undefined);
    const name = rows[0]?.name;
    const ours = rows.some((r) => r.external_ids[OVS_OWNER_KEY] === OWNER);
    if (ours || (name !== undefined && watched.links.has(name)))
      return `ovsdb ${c.table} ${name ?? c.uuid} ${c.kind === 'initial' ? 'resynced' : c.kind === 'insert' ? 'created' : c.kind === 'delete' ? 'deleted' : `changed [${changed.join(' ')}]`}`;
  }
  return undefined;
}

/** `ip -ts monitor link address route` in the agent's namespace (events stamped), restarted when it exits. */
export function netlinkDriftTrigger(
  netlink: Netlink,
  watched: () => WatchedNames,
  onExit: (why: string) => void,
): Trigger {
  return createStreamTrigger<NetlinkEvent>({
    name: 'ip monitor',
    open: (onEvent) => netlink.monitor(onEvent),
    reasonOf: (event) => hostDriftReason(event, watched()),
    changedAt: (event) => event.at?.getTime(),
    onExit,
  });
}
