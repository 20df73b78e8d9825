import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { TempNetns } from '@fabrik/testkit';
import { createTestNetns } from '@fabrik/testkit/vitest';
import type { DesiredState } from './index.js';

// A handle without a netns works in its process's own namespace, as an agent does in its pod:
// sysctls go through that process's /proc/sys instead of `sysctl`, and links, addresses and routes
// (one family-less route dump) come from one `ip -batch` process. The program runs in a throwaway
// namespace (`ip netns exec`); the assertions read the kernel with `ip` and `sysctl` from outside.

const HANDLE = fileURLToPath(new URL('./index.ts', import.meta.url));

/** Reconciles `desired` twice inside `ns` with a handle that names no netns; prints both plans' sizes. */
async function reconcileInside(
  ns: TempNetns,
  desired: DesiredState,
): Promise<{ first: number; second: number }> {
  const program = `
    const { createNetlink } = await import(${JSON.stringify(HANDLE)});
    const nl = createNetlink();
    const desired = JSON.parse(process.argv[1]);
    const first = await nl.reconcile(desired);
    const second = await nl.reconcile(desired);
    process.stdout.write(JSON.stringify({ first: first.plan.ops.length, second: second.plan.ops.length }));
  `;
  const { stdout } = await ns.exec('node', [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    program,
    JSON.stringify(desired),
  ]);
  return JSON.parse(stdout) as { first: number; second: number };
}

describe('a handle in its own namespace', () => {
  it('writes and reads sysctls through /proc/sys and tells the families of default routes apart', async () => {
    const ns = await createTestNetns('fabrik-own-');
    const desired: DesiredState = {
      owner: 'test',
      links: [
        {
          kind: 'bridge',
          name: 'br.7',
          up: true,
          addresses: [{ address: '10.7.0.1/24' }, { address: '2001:db8:7::1/64', nodad: true }],
          sysctls: { arpAccept: 1, arpNotify: 1, acceptDad: 0 },
        },
      ],
      routes: [
        { dst: 'default', family: 'inet', type: 'blackhole', table: 70 },
        { dst: 'default', family: 'inet6', type: 'blackhole', table: 70 },
        { dst: '10.8.0.0/24', via: '10.7.0.2', dev: 'br.7' },
      ],
    };
    const { first, second } = await reconcileInside(ns, desired);
    expect(first).toBeGreaterThan(0);
    // The second plan is empty only when the sysctls read back in-process and both default routes
    // decode with their own family (an IPv6 one taken for IPv4 would be planned again).
    expect(second).toBe(0);
    const sysctl = async (key: string) => (await ns.exec('sysctl', ['-n', key])).stdout.trim();
    expect(await sysctl('net/ipv4/conf/br.7/arp_accept')).toBe('1');
    expect(await sysctl('net/ipv4/conf/br.7/arp_notify')).toBe('1');
    expect(await sysctl('net/ipv6/conf/br.7/accept_dad')).toBe('0');
    const routes = async (family: '-4' | '-6') =>
      (
        JSON.parse(await ns.ip('-j', family, 'route', 'show', 'table', '70')) as {
          dst: string;
          type?: string;
        }[]
      ).map((r) => r.dst);
    expect(await routes('-4')).toEqual(['default']);
    expect(await routes('-6')).toEqual(['default']);
  });
});
