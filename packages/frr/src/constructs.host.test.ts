import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { reloadFrr } from './runtime/reload.js';
import { renderFrrConfig } from './render.js';

// The underlay constructs of the golden fixtures, reloaded into real zebra, bgpd, staticd and bfdd
// (host kernel, no VRF devices: the VRF fixtures are reloaded in constructs.lab.test.ts). FRR
// must take every line, and a second reload of the same text must change nothing: what fabrik
// renders is FRR's own form, so the agents do not reload forever.
const fixture = async (name: string): Promise<unknown> =>
  parse(await readFile(new URL(`./__fixtures__/${name}.input.yaml`, import.meta.url), 'utf8'));

let ns: TempNetns;
let frr: FrrInstance;

// A fresh FRR per case: each fixture is checked from an empty configuration.
beforeEach(async () => {
  ns = await createTempNetns('fabrik-frrc-');
  await ns.ip('link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth2');
  frr = await startFrr({
    netns: ns.name,
    config: `frr defaults datacenter\nhostname ${hostname()}\n!\n`,
    daemons: ['zebra', 'bgpd', 'staticd', 'bfdd'],
  });
});
afterEach(async () => {
  await frr?.stop();
  await ns?.destroy();
});

describe('underlay constructs against running daemons', () => {
  const target = () => ({ pathspace: ns.name, netns: ns.name });
  const cases: [string, string[]][] = [
    [
      'one-asn',
      [
        '  neighbor eth2 allowas-in origin\n',
        '  neighbor eth1 allowas-in 1\n',
        ' neighbor 192.0.2.9 local-as 65101 no-prepend replace-as\n',
        ' neighbor 192.0.2.10 local-as 65102\n',
      ],
    ],
    [
      'route-reflectors',
      [
        ' bgp bestpath as-path multipath-relax\n',
        ' neighbor 192.0.2.2 ebgp-multihop 4\n',
        ' neighbor 192.0.2.1 update-source 10.0.0.31\n',
        ' neighbor eth1 timers 30 90\n',
      ],
    ],
    [
      'bfd-timers',
      [
        ' neighbor eth2 bfd profile fabrik-rx200-tx200-x5\n',
        ' profile fast\n  transmit-interval 100\n  receive-interval 100\n exit\n',
        '  vni 2100\n   advertise-svi-ip\n  exit-vni\n',
      ],
    ],
    ['loop-guard', ['route-map fabrik-fabric-in permit 10\n set community 65000:999 additive\n']],
    [
      'graceful',
      [
        ' no bgp default ipv4-unicast\n bgp graceful-shutdown\n bgp graceful-restart restart-time 240\n' +
          ' bgp graceful-restart\n bgp graceful-restart preserve-fw-state\n bgp bestpath as-path multipath-relax\n',
      ],
    ],
  ];

  it.each(cases)(
    '%s: applied, FRR shows what was rendered, the second reload changes nothing',
    async (name, lines) => {
      const intent = (await fixture(name)) as { vrfs?: unknown };
      // No VRF devices on the host kernel: the loop guard fixture's VRF is left to the lab.
      const config = renderFrrConfig({ ...intent, vrfs: [] }, { hostname: hostname() });
      const first = await reloadFrr({ ...target(), config });
      expect(first.changed).toBe(true);
      const running = await frr.runningConfig();
      for (const line of lines) expect(running).toContain(line);
      const again = await reloadFrr({ ...target(), config });
      expect(again).toMatchObject({ changed: false, added: [], removed: [] });
    },
  );
});

describe('BFD profiles removed', () => {
  const target = () => ({ pathspace: ns.name, netns: ns.name });
  const intent = (bfd: unknown) => ({
    asn: 65000,
    routerId: '10.0.0.1',
    vtepIp: '10.0.0.1',
    underlay: { neighbors: [{ interface: 'eth1', remoteAs: 'external', bfd }] },
  });

  // frr-reload.py removes the `bfd` block and the neighbor's `bfd`, then re-creates both with the
  // `no` lines of what was inside them: without the second pass an empty `bfd` block and
  // `neighbor eth1 bfd` stayed, and every full reload after it reported them as removed.
  it('leave neither an empty bfd block nor BFD on the neighbor, and a full reload then changes nothing', async () => {
    const withProfile = renderFrrConfig(
      { ...intent({ profile: 'fast' }), bfdProfiles: [{ name: 'fast', minRx: 100, minTx: 100 }] },
      { hostname: hostname() },
    );
    await reloadFrr({ ...target(), config: withProfile });
    expect(await frr.runningConfig()).toContain('\nbfd\n profile fast\n');
    expect(await frr.runningConfig()).toContain(' neighbor eth1 bfd profile fast\n');

    const without = renderFrrConfig(intent(false), { hostname: hostname() });
    const removed = await reloadFrr({ ...target(), config: without });
    expect(removed.removed).toContainEqual({ context: ['bfd'], line: 'profile fast' });
    const running = await frr.runningConfig();
    expect(running).not.toMatch(/^bfd$/m);
    expect(running).not.toContain('neighbor eth1 bfd');

    // Without the record of the last apply (as after an agent restart), the full --test runs.
    const runDir = await mkdtemp(join(tmpdir(), 'fabrik-frr-run-'));
    try {
      const full = await reloadFrr({ ...target(), config: without, runDir });
      expect(full).toMatchObject({ changed: false, skipped: false, added: [], removed: [] });
    } finally {
      await rm(runDir, { recursive: true, force: true });
    }
  });
});

describe('set actions against running daemons', () => {
  const target = () => ({ pathspace: ns.name, netns: ns.name });

  // The route-maps that change routes (LOCAL_PREF, MED, AS path, next hop, large communities)
  // live in VRFs' filters; the host kernel has no VRF devices, so only the policy blocks (lists
  // and route-maps, which need no VRF) are reloaded here.
  it('FRR shows every route-map as rendered (set clauses in its order), the second reload changes nothing', async () => {
    const rendered = renderFrrConfig(await fixture('set-actions'), { hostname: hostname() });
    const [header = '', ...blocks] = rendered.split('!\n');
    const policy = blocks.filter((b) =>
      /^(route-map|ip prefix-list|ipv6 prefix-list|bgp (large-)?community-list) /.test(b),
    );
    const config = [header, ...policy, ''].join('!\n');
    await reloadFrr({ ...target(), config });
    const running = await frr.runningConfig();
    const routeMaps = policy.filter((b) => b.startsWith('route-map '));
    expect(routeMaps.join('')).toContain(' set local-preference 200\n set metric 10\n');
    for (const block of routeMaps) expect(running).toContain(block);
    const again = await reloadFrr({ ...target(), config });
    expect(again).toMatchObject({ changed: false, added: [], removed: [] });
  });
});
