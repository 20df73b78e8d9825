// Capped exponential backoff with jitter, and a retry loop built on it.

export interface BackoffPolicy {
  /** Delay before the first retry (attempt 0), before jitter. */
  readonly initialMs: number;
  /** No delay exceeds this, jitter included. */
  readonly maxMs: number;
  /** Growth per attempt (2 doubles). */
  readonly factor: number;
  /**
   * Share of the delay that is random, 0..1: the delay is drawn from
   * [d * (1 - jitter), d] where d is the capped exponential value. Spreads retries of many clients.
   */
  readonly jitter: number;
}

/** Reconnects and relists of informers: 250 ms doubling up to 30 s, half of it random. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 30_000, factor: 2, jitter: 0.5 };

/** Retries of conflicting writes: short, because the other writer is usually done already. */
export const CONFLICT_BACKOFF: BackoffPolicy = { initialMs: 10, maxMs: 1_000, factor: 2, jitter: 0.8 };

/** The delay before retry number `attempt` (0-based). `random` returns a number in [0, 1). */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponential = policy.initialMs * Math.pow(policy.factor, Math.max(0, attempt));
  const capped = Math.min(policy.maxMs, exponential);
  const jitter = Math.min(1, Math.max(0, policy.jitter));
  return Math.round(capped * (1 - jitter * random()));
}

/** Resolves after `ms`, or early (without error) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export interface RetryOptions {
  /** Which errors are worth another attempt; others are thrown at once. */
  readonly retryIf: (error: unknown) => boolean;
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly backoff?: BackoffPolicy;
  readonly signal?: AbortSignal;
  /** Called before each wait, for logging. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Runs `fn` until it succeeds, an error is not retriable, attempts run out, or `signal` aborts (last error thrown). */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!options.retryIf(error) || attempt + 1 >= options.maxAttempts || options.signal?.aborted)
        throw error;
      const delay = backoffDelay(attempt, options.backoff ?? CONFLICT_BACKOFF);
      options.onRetry?.(error, attempt, delay);
      await sleep(delay, options.signal);
    }
  }
}
