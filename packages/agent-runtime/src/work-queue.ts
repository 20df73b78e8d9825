// A work queue after client-go's: a dirty set (a key added twice before it runs, runs once, with
// every reason it was added for) and a processing set (a key never runs twice at once; added again
// while it runs, it runs once more afterwards). One worker: one reconcile at a time. Node's event
// loop does not serialise awaits; this queue does.

/** What processing a key asks for next. */
export type WorkResult = 'done' | 'retry';

export interface WorkQueueOptions {
  /** Processes one key; `retry` (or a rejection) requeues it with backoff, `done` resets its backoff. */
  readonly process: (key: string, reasons: readonly string[]) => Promise<WorkResult>;
  /** Per-key exponential backoff after failures: initial delay, doubled up to the maximum. */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Receives a rejection of `process` (then the key is retried). */
  readonly onError?: (key: string, error: unknown) => void;
}

export interface WorkQueue {
  /** Marks `key` dirty for `reason`; it runs as soon as the worker is free. */
  add(key: string, reason: string): void;
  /** Adds `key` after `delayMs` (a pending later add of the same key is replaced by the earlier one). */
  addAfter(key: string, reason: string, delayMs: number): void;
  /** Keys waiting to run (not counting the one running). */
  readonly depth: number;
  /** Consecutive failures of `key` (0 after a success). */
  failures(key: string): number;
  /** Resolves when nothing is dirty, running or scheduled for a retry. */
  idle(): Promise<void>;
  /** Stops taking work and cancels pending retries; resolves when the running key has finished. */
  stop(): Promise<void>;
}

export const DEFAULT_BACKOFF = { initialMs: 200, maxMs: 30_000 } as const;

/** The delay before retry number `failures` (1-based): initial * 2^(failures-1), capped. */
export function backoffDelay(failures: number, backoff: { initialMs?: number; maxMs?: number } = {}): number {
  const initial = backoff.initialMs ?? DEFAULT_BACKOFF.initialMs;
  const max = backoff.maxMs ?? DEFAULT_BACKOFF.maxMs;
  return Math.min(max, initial * 2 ** Math.max(0, Math.min(failures - 1, 30)));
}

export function createWorkQueue(options: WorkQueueOptions): WorkQueue {
  const dirty = new Map<string, Set<string>>(); // insertion order = FIFO
  const later = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  const failureCount = new Map<string, number>();
  let running: Promise<void> | undefined;
  let scheduled = false;
  let stopped = false;
  let idleWaiters: (() => void)[] = [];

  const isIdle = () => dirty.size === 0 && running === undefined && later.size === 0;
  const checkIdle = () => {
    if (!isIdle()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const w of waiters) w();
  };

  // Work starts on the next turn of the event loop: adds made in one synchronous burst (several
  // watch events of one file write) coalesce into one run.
  function schedule(): void {
    if (scheduled || running || stopped) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  function pump(): void {
    if (running || stopped) return;
    const next = dirty.entries().next();
    if (next.done) {
      checkIdle();
      return;
    }
    const [key, reasons] = next.value;
    dirty.delete(key);
    const pending = later.get(key);
    if (pending) {
      // This run covers a scheduled retry of the same key.
      clearTimeout(pending.timer);
      later.delete(key);
    }
    running = runOne(key, [...reasons]).finally(() => {
      running = undefined;
      if (stopped) return;
      if (dirty.size > 0) schedule();
      else checkIdle();
    });
  }

  async function runOne(key: string, reasons: string[]): Promise<void> {
    let result: WorkResult;
    try {
      result = await options.process(key, reasons);
    } catch (e) {
      options.onError?.(key, e);
      result = 'retry';
    }
    if (result === 'done') {
      failureCount.delete(key);
      return;
    }
    const failures = (failureCount.get(key) ?? 0) + 1;
    failureCount.set(key, failures);
    if (!stopped) queue.addAfter(key, `retry ${failures}`, backoffDelay(failures, options.backoff));
  }

  const queue: WorkQueue = {
    add(key, reason) {
      if (stopped) return;
      let reasons = dirty.get(key);
      if (!reasons) dirty.set(key, (reasons = new Set()));
      reasons.add(reason);
      schedule(); // while `key` runs, it stays dirty and runs again afterwards
    },
    addAfter(key, reason, delayMs) {
      if (stopped) return;
      if (delayMs <= 0) return queue.add(key, reason);
      const at = Date.now() + delayMs;
      const pending = later.get(key);
      if (pending && pending.at <= at) return;
      if (pending) clearTimeout(pending.timer);
      const timer = setTimeout(() => {
        later.delete(key);
        queue.add(key, reason);
      }, delayMs);
      later.set(key, { timer, at });
    },
    get depth() {
      return dirty.size;
    },
    failures: (key) => failureCount.get(key) ?? 0,
    idle() {
      if (isIdle()) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async stop() {
      stopped = true;
      for (const { timer } of later.values()) clearTimeout(timer);
      later.clear();
      dirty.clear();
      await running;
      checkIdle();
    },
  };
  return queue;
}
