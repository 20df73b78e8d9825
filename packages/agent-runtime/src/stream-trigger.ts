import type { Enqueue, Trigger } from './daemon.js';

/** A long-running event source (`ip monitor`, a watch): ends by itself or when stopped. */
export interface EventStream {
  /** Settles when the stream has ended, for whatever reason. */
  readonly exited: Promise<unknown>;
  stop(): Promise<void>;
}

export interface StreamTriggerOptions<E> {
  /** Starts the stream; `onEvent` gets each event. */
  readonly open: (onEvent: (event: E) => void) => EventStream;
  /** Why an event calls for a reconcile (a reason for the log line), or undefined to ignore it. */
  readonly reasonOf: (event: E) => string | undefined;
  /**
   * When the change an event reports happened (ms since the epoch; `ip -ts monitor`'s stamp), so
   * that the daemon can tell the agent's own changes from others. Default (and when it returns
   * undefined): when the event was received.
   */
  readonly changedAt?: (event: E) => number | undefined;
  /**
   * The object an event concerns (`link vx2101`): with it, an event that arrives during a reconcile
   * is judged again by `reasonOf` once the reconcile has ended (the last one per object), against
   * what the agent expects then (see the daemon's `Recheck`).
   */
  readonly objectOf?: (event: E) => string;
  /** Told when the stream ended by itself, with why; it is reopened after `restartDelayMs`. */
  readonly onExit?: (why: string) => void;
  /** Default: 1000 ms. */
  readonly restartDelayMs?: number;
  /** Names the stream in reasons: `netlink monitor restarted`. Default: `event stream`. */
  readonly name?: string;
}

/**
 * A daemon trigger over an event stream (drift repair): every event `reasonOf` cares about
 * enqueues a reconcile, which re-reads everything (level-triggered), stamped with when it happened:
 * the daemon ignores the agent's own changes (see {@link Enqueue}). A stream that ends by itself
 * is reopened after a delay, and a reconcile is enqueued then: whatever changed while nobody
 * listened is found by it.
 */
export function createStreamTrigger<E>(options: StreamTriggerOptions<E>): Trigger {
  const name = options.name ?? 'event stream';
  let current: EventStream | undefined;
  let stopped = false;
  let restart: NodeJS.Timeout | undefined;
  const start = (enqueue: Enqueue): void => {
    const stream = options.open((event) => {
      const reason = options.reasonOf(event);
      if (reason === undefined) return;
      const key = options.objectOf?.(event);
      const recheck = key === undefined ? undefined : { key, reason: () => options.reasonOf(event) };
      enqueue(reason, options.changedAt?.(event) ?? Date.now(), recheck);
    });
    current = stream;
    void stream.exited
      .then(
        (how) => describeExit(how),
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      )
      .then((why) => {
        if (stopped || current !== stream) return;
        options.onExit?.(`${name} ended: ${why}`);
        restart = setTimeout(() => {
          if (stopped) return;
          start(enqueue);
          enqueue(`${name} restarted`);
        }, options.restartDelayMs ?? 1000);
      });
  };
  return {
    start,
    async stop() {
      stopped = true;
      if (restart) clearTimeout(restart);
      await current?.stop();
    },
  };
}

/** `code 1: ...stderr` for a process exit ({ exitCode, signal, stderr }); anything else as JSON. */
function describeExit(how: unknown): string {
  const exit = how as { exitCode?: unknown; signal?: unknown; stderr?: unknown } | undefined;
  if (exit && typeof exit === 'object' && ('exitCode' in exit || 'signal' in exit)) {
    const code = typeof exit.signal === 'string' ? exit.signal : `code ${String(exit.exitCode)}`;
    const stderr = typeof exit.stderr === 'string' && exit.stderr.trim() ? `: ${exit.stderr.trim()}` : '';
    return `${code}${stderr}`;
  }
  return JSON.stringify(how) ?? 'ended';
}
