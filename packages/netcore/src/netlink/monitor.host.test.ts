import { describe, expect, it } from 'vitest';
import { createTestNetns } from '@fabrik/testkit/vitest';
import { createNetlink } from './handle.js';
import type { NetlinkEvent } from './decode/monitor.js';

describe('monitor (host kernel)', () => {
  it('reports link, address and route changes of its namespace as they happen, until stopped', async () => {
    const ns = await createTestNetns('fabrik-mon-');
    const nl = createNetlink({ netns: ns.name });
    const events: NetlinkEvent[] = [];
    let wake: () => void = () => {};
    const monitor = nl.monitor((e) => {
      events.push(e);
      wake();
    });
    const seen = async (pred: (e: NetlinkEvent) => boolean) => {
      while (!events.some(pred)) await new Promise<void>((r) => (wake = r));
    };
    // `ip monitor` subscribes asynchronously: repeat a harmless change until the first event shows.
    await nl.linkAdd({ kind: 'bridge', name: 'm0' });
    for (let i = 0; !events.some((e) => e.object === 'link' && e.name === 'm0'); i++) {
      await nl.linkSetAlias('m0', `probe ${i}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await nl.linkSetUp('m0');
    await nl.addrAdd('m0', { address: '10.77.0.1/24' });
    await nl.routeReplace({ dst: '10.78.0.0/24', type: 'unreachable', protocol: 249 });
    await nl.linkDel('m0');
    await seen((e) => e.object === 'link' && e.deleted && e.name === 'm0');
    expect(events).toContainEqual({
      object: 'address',
      deleted: false,
      dev: 'm0',
      address: '10.77.0.1/24',
      at: expect.any(Date),
    });
    const deleted = events.find((e) => e.object === 'link' && e.deleted && e.name === 'm0');
    // `at` is when ip received the event: this test's clock, within the test's runtime.
    expect(Math.abs((deleted?.at?.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    expect(events).toContainEqual(
      expect.objectContaining({ object: 'route', deleted: false, dst: '10.78.0.0/24', protocol: '249' }),
    );
    await monitor.stop();
    await monitor.exited;
    const count = events.length;
    await nl.linkAdd({ kind: 'bridge', name: 'm1' });
    await new Promise((r) => setTimeout(r, 100));
    expect(events).toHaveLength(count); // nothing after stop()
  });
});
