import { describe, expect, it } from 'vitest';
import { backoffDelay, createWorkQueue, type WorkResult } from './work-queue.js';

/** A process function whose runs the test finishes by hand. */
function controlledRuns() {
  const runs: { key: string; reasons: readonly string[]; finish: (r: WorkResult | Error) => void }[] = [];
  let active = 0;
  let maxActive = 0;
  let notify: () => void = () => {};
  const process = (key: string, reasons: readonly string[]) =>
    new Promise<WorkResult>((resolve, reject) => {
      active++;
      maxActive = Math.max(maxActive, active);
      runs.push({
        key,
        reasons,
        finish: (r) => {
          active--;
          if (r instanceof Error) reject(r);
          else resolve(r);
        },
      });
      notify();
    });
  const nthRun = async (n: number) => {
    while (runs.length < n) await new Promise<void>((r) => (notify = r));
    return runs[n - 1]!;
  };
  return { runs, process, nthRun, maxActive: () => maxActive };
}

describe('work queue', () => {
  it('runs a key added several times before it starts once, with every reason', async () => {
    const c = controlledRuns();
    const q = createWorkQueue({ process: c.process });
    q.add('node', 'a');
    q.add('node', 'b');
    q.add('node', 'a');
    const run = await c.nthRun(1);
    expect(run.reasons).toEqual(['a', 'b']);
    run.finish('done');
    await q.idle();
    expect(c.runs).toHaveLength(1);
  });

  it('never runs two at once; adds during a run coalesce into exactly one more run', async () => {
    const c = controlledRuns();
    const q = createWorkQueue({ process: c.process });
    q.add('node', 'first');
    const first = await c.nthRun(1);
    q.add('node', 'x');
    q.add('node', 'y');
    q.add('other', 'z');
    first.finish('done');
    const second = await c.nthRun(2);
    expect(second).toMatchObject({ key: 'node', reasons: ['x', 'y'] });
    second.finish('done');
    (await c.nthRun(3)).finish('done');
    await q.idle();
    expect(c.runs.map((r) => r.key)).toEqual(['node', 'node', 'other']);
    expect(c.maxActive()).toBe(1);
  });

  it('retries a failed key with backoff and resets the count after a success', async () => {
    const c = controlledRuns();
    const errors: unknown[] = [];
    const q = createWorkQueue({
      process: c.process,
      backoff: { initialMs: 1, maxMs: 4 },
      onError: (_k, e) => errors.push(e),
    });
    q.add('node', 'change');
    (await c.nthRun(1)).finish('retry');
    const second = await c.nthRun(2);
    expect(second.reasons).toEqual(['retry 1']);
    expect(q.failures('node')).toBe(1);
    second.finish(new Error('boom'));
    const third = await c.nthRun(3);
    expect(third.reasons).toEqual(['retry 2']);
    expect(errors).toHaveLength(1);
    third.finish('done');
    await q.idle();
    expect(q.failures('node')).toBe(0);
  });

  it('a change that arrives while a retry waits runs at once and covers the retry', async () => {
    const c = controlledRuns();
    const q = createWorkQueue({ process: c.process, backoff: { initialMs: 60_000 } });
    q.add('node', 'change');
    (await c.nthRun(1)).finish('retry');
    await new Promise((r) => setImmediate(r));
    q.add('node', 'another change');
    const second = await c.nthRun(2);
    expect(second.reasons).toEqual(['another change']);
    second.finish('done');
    await q.idle(); // resolves: the retry timer was cancelled by the run
    expect(c.runs).toHaveLength(2);
  });

  it('stop() waits for the running key and drops the rest', async () => {
    const c = controlledRuns();
    const q = createWorkQueue({ process: c.process });
    q.add('node', 'a');
    const run = await c.nthRun(1);
    q.add('node', 'b');
    let stopped = false;
    const stopping = q.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    run.finish('done');
    await stopping;
    q.add('node', 'after stop');
    await new Promise((r) => setImmediate(r));
    expect(c.runs).toHaveLength(1);
  });
});

describe('backoffDelay', () => {
  it('doubles from the initial delay up to the maximum', () => {
    const b = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 100].map((n) => backoffDelay(n, b))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});
