import { describe, expect, it } from 'vitest';
import { netnsList } from '@fabrik/netcore';
import { createTempNetns, withTempNetns } from './netns-sandbox.js';

describe('temporary network namespaces', () => {
  it('exist during the test with loopback up and are gone afterwards', async () => {
    const name = await withTempNetns(async (ns) => {
      expect(await netnsList()).toContain(ns.name);
      const [lo] = JSON.parse(await ns.ip('-j', 'link', 'show', 'lo'));
      expect(lo.flags).toContain('UP');
      return ns.name;
    });
    expect(await netnsList()).not.toContain(name);
  });
  it('are deleted even when the test body throws', async () => {
    let name = '';
    await expect(
      withTempNetns(async (ns) => {
        name = ns.name;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await netnsList()).not.toContain(name);
  });
  it('destroy() is idempotent', async () => {
    const ns = await createTempNetns();
    await ns.destroy();
    await ns.destroy();
    expect(await netnsList()).not.toContain(ns.name);
  });
});
