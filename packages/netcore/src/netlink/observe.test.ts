import { describe, expect, it } from 'vitest';
import { CommandError, type RunResult } from '../exec/run.js';
import type { NetnsRunner } from './exec.js';
import { isDumpInterruptedError } from './errors.js';
import { observeNamespace } from './observe.js';

// The kernel flags a dump that raced with a change (NLM_F_DUMP_INTR) and iproute2 6.1 then prints
// "Dump was interrupted and may be inconsistent." on stderr and exits 0 (newer iproute2 exits
// non-zero). No kernel here produces that on demand, so the runner that observe() is given is a
// fake that answers as iproute2 does: these tests are about what observe does with the answer.

const INTERRUPTED = 'Dump was interrupted and may be inconsistent.\n';
const link = (ifindex: number, ifname: string) => ({ ifindex, ifname, flags: ['UP'], mtu: 1500 });
const full = JSON.stringify([link(1, 'lo'), link(2, 'br0'), link(3, 'br1')]);
const partial = JSON.stringify([link(1, 'lo'), link(2, 'br0')]);

/** A runner whose `ip` answers with `answers` in turn (the last one from then on). */
function fakeRunner(answers: Array<RunResult | CommandError>): NetnsRunner & { calls: number } {
  const runner = {
    netns: 'fake',
    calls: 0,
    async ip(): Promise<RunResult> {
      const a = answers[Math.min(runner.calls++, answers.length - 1)];
      if (a === undefined || a instanceof CommandError) throw a;
      return a;
    },
    bridge: () => Promise.reject(new Error('not used')),
    sysctlRead: () => Promise.reject(new Error('not used')),
    sysctlWrite: () => Promise.reject(new Error('not used')),
    ipStream: () => {
      throw new Error('not used');
    },
  };
  return runner;
}

describe('observe and interrupted dumps', () => {
  it('dumps again when iproute2 says the dump was interrupted (exit 0), and decodes the complete one', async () => {
    const runner = fakeRunner([
      { stdout: partial, stderr: INTERRUPTED },
      { stdout: full, stderr: '' },
    ]);
    const observed = await observeNamespace(runner);
    expect(observed.links.map((l) => l.spec.name)).toEqual(['lo', 'br0', 'br1']);
    expect(runner.calls).toBe(2);
  });

  it('dumps again when the interrupted dump exits non-zero (newer iproute2)', async () => {
    const runner = fakeRunner([
      new CommandError(['ip', '-j', '-d', 'addr', 'show'], 1, INTERRUPTED, partial),
      { stdout: full, stderr: '' },
    ]);
    expect((await observeNamespace(runner)).links).toHaveLength(3);
  });

  it('gives up with DumpInterruptedError after a bounded number of attempts', async () => {
    const runner = fakeRunner([{ stdout: partial, stderr: INTERRUPTED }]);
    const err = await observeNamespace(runner).catch((e: unknown) => e);
    expect(isDumpInterruptedError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'DUMP_INTERRUPTED', what: 'ip -j -d addr show', attempts: 5 });
    expect(runner.calls).toBe(5);
  });
});
