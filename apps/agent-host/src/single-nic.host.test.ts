// The single-NIC case with agent-host as a process: a veth stands for the node's only NIC, its
// peer in a second namespace is the upstream router. The node's addresses and routes move to the
// bridge's local port and back, pings measure the gap, a network manager's re-added address is
// converged, and the agent is killed with SIGKILL after every journal step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir } from 'node:fs/promises';
import { createTempNetns, until, type AgentProcess, type TempNetns } from '@fabrik/testkit';
import { createHostSandbox, ipJson, readJson, restartVswitchd, type HostSandbox } from '../test/harness.js';
import { startPing, startRouteMonitor } from '../test/probes.js';

let sb: HostSandbox;
let router: TempNetns;
let nicMac: string;

interface Addr {
  local: string;
  prefixlen: number;
  family: string;
  scope: string;
  nodad?: boolean;
  noprefixroute?: boolean;
}
interface Route {
  dst: string;
  gateway?: string;
  dev?: string;
  protocol?: string;
  metric?: number;
  table?: string;
  flags?: string[];
  scope?: string;
  prefsrc?: string;
}

/** The global addresses of a link, as comparable strings. */
async function addressesOf(dev: string): Promise<string[]> {
  const [link] = await ipJson<{ addr_info: Addr[] }[]>(sb.node, 'addr', 'show', 'dev', dev).catch(() => []);
  return (link?.addr_info ?? [])
    .filter((a) => a.scope === 'global')
    .map((a) => `${a.local}/${a.prefixlen}${a.noprefixroute ? ' noprefixroute' : ''}`)
    .sort();
}

/** Every route of every table through `dev` except the kernel's own, without the device. */
async function routesVia(dev: string): Promise<string[]> {
  const all = [
    ...(await ipJson<Route[]>(sb.node, '-4', 'route', 'show', 'table', 'all')),
    ...(await ipJson<Route[]>(sb.node, '-6', 'route', 'show', 'table', 'all')),
  ];
  return (
    all
      // The kernel's own routes (local table, prefix routes at its default metrics) come and go with addresses.
      .filter(
        (r) =>
          r.dev === dev &&
          r.table !== 'local' &&
          !(r.protocol === 'kernel' && [undefined, 0, 256].includes(r.metric)),
      )
      .map((r) =>
        [
          r.dst,
          r.gateway && `via ${r.gateway}`,
          r.table && `table ${r.table}`,
          `proto ${r.protocol ?? 'boot'}`,
          r.metric !== undefined && `metric ${r.metric}`,
          r.scope && `scope ${r.scope}`,
          r.prefsrc && `src ${r.prefsrc}`,
          r.flags?.includes('onlink') && 'onlink',
        ]
          .filter(Boolean)
          .join(' '),
      )
      .sort()
  );
}

const macOf = async (dev: string) =>
  (await ipJson<{ address: string }[]>(sb.node, 'link', 'show', dev))[0]?.address;
const journalStep = async (): Promise<string | undefined> => {
  const files = (await readdir(sb.stateDir)).filter((f) => f.startsWith('migration-'));
  if (files.length === 0) return undefined;
  return ((await readJson(`${sb.stateDir}/${files[0]}`)) as { value: { step: string } }).value.step;
};

/** What the node holds on eth0 before anything moves (and must hold again after cleanup). */
let original: { addresses: string[]; routes: string[] };

/** At least one answer each way (a loaded machine may drop a single echo). */
const reachable = async () => {
  const answered = (out: string) => Number(/(\d+) received/.exec(out)?.[1] ?? 0) > 0;
  const out = await sb.node
    .exec('ping', ['-c', '3', '-i', '0.2', '-W', '2', '198.51.100.1'])
    .catch((e: { stdout?: string }) => e);
  const back = await router
    .exec('ping', ['-c', '3', '-i', '0.2', '-W', '2', '10.0.0.2'])
    .catch((e: { stdout?: string }) => e);
  return answered(out.stdout ?? '') && answered(back.stdout ?? '');
};

/** The migrated state: everything on br-ex exactly once, nothing left on eth0. */
async function expectMigrated(extraRoutes: string[] = []): Promise<void> {
  expect(await addressesOf('br-ex')).toEqual(original.addresses);
  expect(await addressesOf('eth0')).toEqual([]);
  expect(await routesVia('br-ex')).toEqual([...original.routes, ...extraRoutes].sort());
  expect(await routesVia('eth0')).toEqual([]);
  expect(await macOf('br-ex')).toBe(nicMac);
  expect(await reachable()).toBe(true);
}

async function expectRestored(extraRoutes: string[] = []): Promise<void> {
  expect(await addressesOf('eth0')).toEqual(original.addresses);
  expect(await routesVia('eth0')).toEqual([...original.routes, ...extraRoutes].sort());
  expect(await journalStep()).toBeUndefined();
  expect(
    (await ipJson<{ ifname: string }[]>(sb.node, 'link', 'show')).some((l) => l.ifname === 'br-ex'),
  ).toBe(false);
  expect(await reachable()).toBe(true);
}

beforeAll(async () => {
  sb = await createHostSandbox('fan-');
  router = await createTempNetns('fanr-');
  await sb.node.ip('link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'up0', 'netns', router.name);
  await router.ip('addr', 'add', '10.0.0.1/24', 'dev', 'up0');
  await router.ip('addr', 'add', 'fd00::1/64', 'dev', 'up0', 'nodad');
  await router.ip('link', 'set', 'up0', 'up');
  await router.ip('addr', 'add', '198.51.100.1/32', 'dev', 'lo');
  await router.ip('route', 'add', '192.0.2.0/24', 'via', '10.0.0.2');
  // The node: addresses with their flags, a default route, a static route, an IPv6 default route,
  // a route in another table and an on-link gateway route, as installers and clouds leave them.
  await sb.node.ip('addr', 'add', '10.0.0.2/24', 'dev', 'eth0');
  await sb.node.ip('addr', 'add', '192.0.2.7/24', 'dev', 'eth0', 'noprefixroute');
  await sb.node.ip('addr', 'add', 'fd00::2/64', 'dev', 'eth0', 'nodad');
  await sb.node.ip('link', 'set', 'eth0', 'up');
  await sb.node.ip('route', 'add', 'default', 'via', '10.0.0.1', 'dev', 'eth0');
  await sb.node.ip(
    'route',
    'add',
    '192.0.2.0/24',
    'dev',
    'eth0',
    'proto',
    'kernel',
    'scope',
    'link',
    'src',
    '192.0.2.7',
    'metric',
    '100',
  );
  await sb.node.ip(
    'route',
    'add',
    '203.0.113.0/24',
    'via',
    '10.0.0.1',
    'dev',
    'eth0',
    'proto',
    'static',
    'metric',
    '50',
  );
  await sb.node.ip(
    'route',
    'add',
    '203.0.113.128/25',
    'via',
    '10.0.0.1',
    'dev',
    'eth0',
    'table',
    '100',
    'proto',
    'dhcp',
  );
  await sb.node.ip('route', 'add', '100.64.0.0/10', 'via', '172.31.1.1', 'dev', 'eth0', 'onlink');
  await sb.node.ip('-6', 'route', 'add', 'default', 'via', 'fd00::1', 'dev', 'eth0');
  nicMac = (await macOf('eth0'))!;
  original = { addresses: await addressesOf('eth0'), routes: await routesVia('eth0') };
  expect(original.addresses).toEqual(['10.0.0.2/24', '192.0.2.7/24 noprefixroute', 'fd00::2/64']);
  expect(original.routes).toHaveLength(6);
  expect(await reachable()).toBe(true);
  await sb.writeConfig({
    secondaryNetwork: { ovsBridges: [{ bridgeName: 'br-ex', physicalInterfaces: ['eth0'] }] },
  });
  await sb.writeIntent([]);
});

afterAll(async () => {
  await sb?.destroy();
  await router?.destroy();
});

describe('a node with a single NIC', () => {
  let agent: AgentProcess;

  it(
    'moves addresses and routes to the bridge while pings and the default route keep going',
    { timeout: 180_000 },
    async () => {
      const inbound = startPing(router.name, '10.0.0.2');
      const outbound = startPing(sb.node.name, '198.51.100.1');
      const routes = startRouteMonitor(sb.node.name);
      await until('pings answered', async () => true);
      agent = await sb.start();
      const moved = await agent.waitForLog(
        (l) => l.msg === 'single NIC: addresses and routes are on the bridge',
        { what: 'the move', timeoutMs: 120_000 },
      );
      await new Promise((r) => setTimeout(r, 1000)); // replies after the move
      const [inb, outb, dflt] = await Promise.all([inbound.stop(), outbound.stop(), routes.stop()]);
      console.log(
        `MIGRATION to-bridge agent_gap_ms=${String(moved.gapMs)} inbound_ping_gap_ms=${inb.longestGapMs} outbound_ping_gap_ms=${outb.longestGapMs} default_route_missing_ms=${dflt.longestWithoutDefaultMs} (datapath netdev, 20 ms pings; ${inb.received}/${inb.sent} and ${outb.received}/${outb.sent} answered)`,
      );
      expect(Math.max(...inb.answered)).toBeGreaterThan(inb.sent - 20); // answered until the end
      expect(Math.max(...outb.answered)).toBeGreaterThan(outb.sent - 20);
      expect(dflt.events.length).toBeGreaterThan(0); // the monitor saw the move
      await expectMigrated();
      expect(await journalStep()).toBe('moved');
    },
  );

  it(
    'converges within seconds when a network manager puts the address and a route back on the NIC',
    { timeout: 60_000 },
    async () => {
      const t0 = performance.now();
      // The route first (on-link: the NIC has no address yet), then the address. When the agent
      // removes the NIC's last IPv4 address the kernel flushes the routes through it: a route added
      // between the agent's look and its batch would be gone (why the docs say: unmanage the NIC).
      await sb.node.ip(
        'route',
        'add',
        'default',
        'via',
        '10.0.0.1',
        'dev',
        'eth0',
        'metric',
        '100',
        'proto',
        'dhcp',
        'onlink',
      );
      await sb.node.ip('addr', 'add', '10.0.0.2/24', 'dev', 'eth0');
      await until(
        'eth0 clean again',
        async () => (await addressesOf('eth0')).length === 0 && (await routesVia('eth0')).length === 0,
      );
      console.log(`MIGRATION network-manager re-add converged_ms=${Math.round(performance.now() - t0)}`);
      // The route the "network manager" added is the node's now: on the bridge, and in the journal.
      await expectMigrated(['default via 10.0.0.1 proto dhcp metric 100 onlink']);
    },
  );

  it(
    'restarts without duplicating anything, and repairs an ovs-vswitchd restart',
    { timeout: 120_000 },
    async () => {
      expect(await agent.stop()).toBe(0);
      agent = await sb.start();
      await agent.waitForLog((l) => l.msg === 'reconciled', { what: 'a reconcile' });
      await expectMigrated(['default via 10.0.0.1 proto dhcp metric 100 onlink']);
      await restartVswitchd(sb);
      await until('reachable after the vswitchd restart', () => reachable(), 60_000);
      await until(
        'migrated state',
        async () => (await addressesOf('br-ex')).length === original.addresses.length,
      );
      await expectMigrated(['default via 10.0.0.1 proto dhcp metric 100 onlink']);
      await agent.stop();
    },
  );

  it(
    'cleanup puts back the exact addresses and routes (and what was adopted)',
    { timeout: 120_000 },
    async () => {
      await sb.stopAgents();
      const inbound = startPing(router.name, '10.0.0.2');
      const r = await sb.cli('cleanup');
      const inb = await inbound.stop();
      expect(r.code).toBe(0);
      console.log(`MIGRATION to-nic (cleanup) ${r.stdout.trim()} inbound_ping_gap_ms=${inb.longestGapMs}`);
      await expectRestored(['default via 10.0.0.1 proto dhcp metric 100 onlink']);
      await sb.node.ip(
        'route',
        'del',
        'default',
        'via',
        '10.0.0.1',
        'dev',
        'eth0',
        'metric',
        '100',
        'onlink',
      );
      await expectRestored();
    },
  );

  // Each round: the agent killed after a forward step, restarted; then cleanup killed after a
  // backward step, run again. Every step of the journal is hit once.
  const rounds = [
    ['begin', 'restoring'],
    ['bridged', 'unbridged'],
    ['moved', 'restored'],
  ] as const;
  for (const [forward, back] of rounds) {
    it(
      `kill -9 after "${forward}" then restart finishes the move; kill -9 after "${back}" then cleanup finishes the way back`,
      { timeout: 240_000 },
      async () => {
        await sb.stopAgents();
        const crashed = await sb.start({ FABRIK_AGENT_HOST_CRASH_AFTER: forward });
        expect((await crashed.exited).signal).toBe('SIGKILL');
        expect(await journalStep()).toBe(forward);
        const resumed = await sb.start();
        await resumed.waitForLog((l) => l.msg === 'reconciled' && l.result === 'success', {
          what: 'the move',
          timeoutMs: 120_000,
        });
        await until('journal at moved', async () => (await journalStep()) === 'moved');
        await expectMigrated();
        await resumed.stop();

        const killed = await sb.cli('cleanup', { FABRIK_AGENT_HOST_CRASH_AFTER: back });
        expect(killed.code).toBe('SIGKILL');
        expect(await journalStep()).toBe(back === 'restored' ? 'unbridged' : back);
        const finished = await sb.cli('cleanup');
        expect(finished.code).toBe(0);
        await expectRestored();
      },
    );
  }
});
