import { createStreamTrigger, type Trigger } from '@fabrik/agent-runtime';
import type { Netlink, NetlinkEvent } from '@fabrik/netcore/netlink';
import { OVS_OWNER_KEY, type RowChange } from '@fabrik/netcore/ovsdb';
import { OWNER } from './desired.js';
import type { WatchedNames } from './host-agent.js';

// What makes agent-host reconcile besides its intent source: kernel events on its links (a network
// manager putting an address back on a migrated NIC, a tr.<vid> deleted by hand, ovs-vswitchd
// recreating a local port) and OVSDB changes of its rows. Handlers only enqueue; the reconcile
// re-reads everything.

/** Why a kernel event concerns agent-host, or undefined (pure). */
export function hostDriftReason(event: NetlinkEvent, watched: WatchedNames): string | undefined {
  const verb = event.deleted ? 'deleted' : 'changed';
  switch (event.object) {
    case 'link':
      return watched.links.has(event.name) || watched.addressed.has(event.name)
        ? `link ${event.name} ${verb}`
        : undefined;
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

/** Why a batch of OVSDB changes concerns agent-host (its rows, or rows named like what it wants), or undefined (pure). */
export function ovsChangeReason(changes: readonly RowChange[], watched: WatchedNames): string | undefined {
  for (const c of changes) {
    if (c.table === 'Open_vSwitch') continue;
    const rows = [c.old, c.new].filter((r) => r !== undefined);
    const name = rows[0]?.name;
    const ours = rows.some((r) => r.external_ids[OVS_OWNER_KEY] === OWNER);
    if (ours || (name !== undefined && watched.links.has(name)))
      return `ovsdb ${c.table} ${name ?? c.uuid} ${c.kind === 'initial' ? 'resynced' : c.kind === 'insert' ? 'created' : c.kind === 'delete' ? 'deleted' : 'changed'}`;
  }
  return undefined;
}

/** `ip monitor link address route` in the agent's namespace, restarted when it exits. */
export function netlinkDriftTrigger(
  netlink: Netlink,
  watched: () => WatchedNames,
  onExit: (why: string) => void,
): Trigger {
  return createStreamTrigger<NetlinkEvent>({
    name: 'ip monitor',
    open: (onEvent) => netlink.monitor(onEvent),
    reasonOf: (event) => hostDriftReason(event, watched()),
    onExit,
  });
}
