import type { Trigger } from '@fabrik/agent-runtime';
import { FABRIK_ROUTE_PROTOCOL, type Netlink, type NetlinkEvent } from '@fabrik/netcore/netlink';
import type { LineStream } from '@fabrik/netcore';

export interface DriftTriggerOptions {
  readonly netlink: Netlink;
  /** Names of the links the agent owns or wants (updated by every reconcile). */
  readonly watched: () => ReadonlySet<string>;
  /** Told when the monitor exits by itself (it is restarted after `restartDelayMs`). */
  readonly onMonitorExit?: (why: string) => void;
  readonly restartDelayMs?: number;
}

/**
 * Drift repair: `ip monitor link address route` in the managed namespace; an event that concerns
 * a watched link (deleted, set down, an address removed) or one of fabrik's routes (protocol 249)
 * enqueues a reconcile, which re-reads everything and puts it back. Events of other links, and
 * the routes zebra installs, are ignored.
 */
export function createDriftTrigger(options: DriftTriggerOptions): Trigger {
  let monitor: LineStream | undefined;
  let stopped = false;
  let restart: NodeJS.Timeout | undefined;
  const start = (enqueue: (reason: string) => void) => {
    const current = options.netlink.monitor((event) => {
      const reason = driftReason(event, options.watched());
      if (reason) enqueue(reason);
    });
    monitor = current;
    void current.exited
      .then(
        (exit) => exit,
        (e: unknown) => ({
          exitCode: null,
          signal: null,
          stderr: e instanceof Error ? e.message : String(e),
        }),
      )
      .then((exit) => {
        if (stopped || monitor !== current) return;
        options.onMonitorExit?.(
          `ip monitor exited (${exit.signal ?? `code ${exit.exitCode}`}): ${exit.stderr.trim()}`,
        );
        // Whatever changed while nobody watched is found by a reconcile right after the restart.
        restart = setTimeout(() => {
          start(enqueue);
          enqueue('drift monitor restarted');
        }, options.restartDelayMs ?? 1000);
      });
  };
  return {
    start,
    async stop() {
      stopped = true;
      if (restart) clearTimeout(restart);
      await monitor?.stop();
    },
  };
}

/** Why `event` calls for a reconcile, or undefined when it does not concern the agent's objects (pure). */
export function driftReason(event: NetlinkEvent, watched: ReadonlySet<string>): string | undefined {
  const verb = event.deleted ? 'deleted' : 'changed';
  switch (event.object) {
    case 'link':
      return watched.has(event.name) ? `link ${event.name} ${verb}` : undefined;
    case 'address':
      return watched.has(event.dev) ? `address ${event.address} on ${event.dev} ${verb}` : undefined;
    case 'route':
      return event.protocol === String(FABRIK_ROUTE_PROTOCOL)
        ? `route ${event.dst}${event.table ? ` table ${event.table}` : ''} ${verb}`
        : undefined;
  }
}
