import { until } from '@fabrik/testkit';
import { describe, expect, it } from 'vitest';
import { createStreamTrigger, type EventStream } from './stream-trigger.js';

/** A stream the test drives: `emit` an event, `end` it as if the process had exited. */
function fakeStreams() {
  const opened: { emit: (e: string) => void; end: (how: unknown) => void; stopped: boolean }[] = [];
  const open = (onEvent: (e: string) => void): EventStream => {
    let end!: (how: unknown) => void;
    const exited = new Promise<unknown>((r) => (end = r));
    const s = { emit: onEvent, end, stopped: false };
    opened.push(s);
    return {
      exited,
      stop: async () => {
        s.stopped = true;
        end({ exitCode: null, signal: 'SIGTERM', stderr: '' });
      },
    };
  };
  return { opened, open };
}

describe('createStreamTrigger', () => {
  it('enqueues the events it cares about, and reopens a stream that ended by itself', async () => {
    const { opened, open } = fakeStreams();
    const reasons: string[] = [];
    const stamps: (number | undefined)[] = [];
    const exits: string[] = [];
    const trigger = createStreamTrigger<string>({
      open,
      reasonOf: (e) => (e.startsWith('mine') ? `${e} changed` : undefined),
      // `mine-1@5`: stamped 5 ms after the epoch; without a stamp, when it was received.
      changedAt: (e) => (e.includes('@') ? Number(e.split('@')[1]) : undefined),
      onExit: (why) => exits.push(why),
      restartDelayMs: 1,
      name: 'ip monitor',
    });
    await trigger.start((r, at) => {
      reasons.push(r);
      stamps.push(at);
    });
    const beforeEvents = Date.now();
    opened[0]!.emit('mine-1');
    opened[0]!.emit('theirs');
    opened[0]!.emit('mine-0@5');
    expect(reasons).toEqual(['mine-1 changed', 'mine-0@5 changed']);
    expect(stamps[0]).toBeGreaterThanOrEqual(beforeEvents);
    expect(stamps[1]).toBe(5);

    opened[0]!.end({ exitCode: 1, signal: null, stderr: 'Cannot open netlink socket\n' });
    await until('the stream reopened', async () => opened.length === 2);
    expect(exits).toEqual(['ip monitor ended: code 1: Cannot open netlink socket']);
    expect(reasons).toEqual(['mine-1 changed', 'mine-0@5 changed', 'ip monitor restarted']);
    expect(stamps[2]).toBeUndefined(); // a restart always counts: changes were missed meanwhile
    opened[1]!.emit('mine-2');
    expect(reasons.at(-1)).toBe('mine-2 changed');

    await trigger.stop();
    expect(opened[1]!.stopped).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(opened).toHaveLength(2); // stopping is not an exit to recover from
    expect(exits).toHaveLength(1);
  });
});
