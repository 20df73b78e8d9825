import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { backoffDelay, retry, sleep, type BackoffPolicy } from './backoff.js';

const policy: BackoffPolicy = { initialMs: 100, maxMs: 5_000, factor: 2, jitter: 0.5 };

describe('backoffDelay', () => {
  it('doubles from the initial delay without jitter at random()=0', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, policy, () => 0))).toEqual([
      100, 200, 400, 800, 1600, 3200, 5000,
    ]);
  });

  it('jitter takes away up to its share', () => {
    expect(backoffDelay(2, policy, () => 0.999999)).toBe(200);
    expect(backoffDelay(2, { ...policy, jitter: 0 }, () => 0.9)).toBe(400);
  });

  it('property: within [capped * (1 - jitter), capped] and never above maxMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r, jitter) => {
          const p = { ...policy, jitter };
          const capped = Math.min(p.maxMs, p.initialMs * 2 ** attempt);
          const d = backoffDelay(attempt, p, () => r);
          expect(d).toBeLessThanOrEqual(p.maxMs);
          expect(d).toBeLessThanOrEqual(capped);
          expect(d).toBeGreaterThanOrEqual(Math.floor(capped * (1 - jitter)));
        },
      ),
    );
  });
});

describe('retry', () => {
  const fast: BackoffPolicy = { initialMs: 1, maxMs: 2, factor: 2, jitter: 0 };

  it('retries retriable errors and returns the first success', async () => {
    const attempts: number[] = [];
    const result = await retry(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 2) throw new Error('again');
        return 'done';
      },
      { retryIf: () => true, maxAttempts: 5, backoff: fast },
    );
    expect(result).toBe('done');
    expect(attempts).toEqual([0, 1, 2]);
  });

  it('throws a non-retriable error at once, and the last error when attempts run out', async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw new Error('fatal');
        },
        { retryIf: () => false, maxAttempts: 5, backoff: fast },
      ),
    ).rejects.toThrow('fatal');
    expect(calls).toBe(1);
    await expect(
      retry(
        async (a) => {
          throw new Error(`attempt ${a}`);
        },
        { retryIf: () => true, maxAttempts: 3, backoff: fast },
      ),
    ).rejects.toThrow('attempt 2');
  });
});

describe('sleep', () => {
  it('ends early when aborted', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).resolves.toBeUndefined();
  });
});
