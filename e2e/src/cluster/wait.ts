import { runInNetns } from '@fabrik/netcore';

// Waiting for a distributed system to converge: poll an observable until it holds.

/**
 * Polls `probe` until it returns a value (not undefined/false); its last error explains a timeout.
 * `intervalMs` between two polls: one delay, or successive delays whose last repeats (a back-off).
 * Timeouts here only detect a failure (the report prints how long each step took): they are
 * generous, since a loaded machine slows the single-CPU lab kernel two- to threefold.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number | readonly number[] } = {},
): Promise<T> {
  const until = Date.now() + (options.timeoutMs ?? 120_000);
  const delays = [options.intervalMs ?? 200].flat();
  let last: unknown;
  for (let poll = 0; ; poll++) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until)
      throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, delays[Math.min(poll, delays.length - 1)]));
  }
}

/** `count` pings from a namespace, 0.2 s apart; true when one was answered. */
export async function ping(fromNetns: string, to: string, count = 1): Promise<boolean> {
  try {
    await runInNetns(fromNetns, 'ping', ['-c', String(count), '-i', '0.2', '-W', '1', to]);
    return true;
  } catch {
    return false;
  }
}

/** Pings until answered (a fresh EVPN path needs its routes first); describes how long it took. */
export async function eventuallyPings(fromNetns: string, to: string, timeoutMs = 90_000): Promise<string> {
  const t0 = performance.now();
  let tries = 0;
  await waitFor(`${fromNetns} to reach ${to}`, async () => (tries++, ping(fromNetns, to)), {
    timeoutMs,
    intervalMs: 0,
  });
  return `${to} answered after ${tries} ${tries === 1 ? 'try' : 'tries'} (${Math.round(performance.now() - t0)} ms)`;
}
