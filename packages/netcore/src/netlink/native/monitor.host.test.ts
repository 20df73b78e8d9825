import { expect, it } from 'vitest';
import { createTestNetns } from '@fabrik/testkit/vitest';
import type { NetlinkEvent } from '../decode/monitor.js';
import { monitorNative } from './monitor.js';

// The monitor waits on a thread of koffi's pool and wakes every second to notice stop(): an idle
// wake must not end it (it did: the pool thread's errno read on the main thread looked like a
// failure, and agents restarted their drift monitor every idle second).
it('stays up through idle wakes and reports the next change', async () => {
  const ns = await createTestNetns('mon');
  const events: NetlinkEvent[] = [];
  const monitor = monitorNative(ns.name, ['link'], new Map(), (e) => events.push(e));
  let ended = false;
  void monitor.exited.then(() => (ended = true));
  try {
    await new Promise((r) => setTimeout(r, 2500));
    expect(ended).toBe(false);
    await ns.ip('link', 'add', 'mon-a', 'type', 'veth', 'peer', 'name', 'mon-b');
    await expect.poll(() => events.some((e) => e.object === 'link' && e.name === 'mon-a')).toBe(true);
    expect(ended).toBe(false);
  } finally {
    await monitor.stop();
  }
});
