import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffConfigLines } from '../config-text.js';
import type { FrrIntentInput } from '../intent.js';
import { FrrReloadError } from './reload-errors.js';
import { releaseL3Vnis, reloadFrr } from './reload.js';
import { renderFrrConfig } from '../render.js';
import { readFrrStatus } from './status.js';
import { showRunningConfig } from './vtysh.js';

// VRF reloads need VRF devices: the lab kernel. zebra, bgpd and staticd run in a netns with its
// own pathspace; every configuration goes through reloadFrr as the agents apply it.
const base = {
  asn: 65000,
  routerId: '10.0.0.1',
  vtepIp: '10.0.0.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external' as const }] },
};

const first: FrrIntentInput = {
  ...base,
  vrfs: [
    {
      name: 'red',
      vni: 1001,
      importVrfs: ['blue'],
      import: [{ cidr: '10.20.0.0/16', le: 24 }],
      export: [{ cidr: '10.10.0.0/16' }],
      redistribute: { connected: true, static: true },
      staticRoutes: [{ prefix: '10.98.0.0/24', blackhole: true }],
    },
    { name: 'blue', vni: 1002, redistribute: { connected: true } },
  ],
  layer2s: [{ vni: 2100, vlan: 100, vrf: 'red', routeTarget: '65001:2100' }],
};

const second: FrrIntentInput = {
  ...base,
  vrfs: [
    { name: 'red', vni: 1001, importVrfs: ['green'], redistribute: { connected: true } },
    { name: 'blue', vni: 1002, redistribute: { connected: true } },
    { name: 'green', vni: 1003, importVrfs: ['red'] },
  ],
};

let ns: TempNetns;
let frr: FrrInstance;

beforeAll(async () => {
  ns = await createTempNetns('fabrik-frr-');
  for (const [name, table] of [
    ['red', 1001],
    ['blue', 1002],
    ['green', 1003],
  ] as const) {
    await ns.ip('link', 'add', name, 'type', 'vrf', 'table', String(table));
    await ns.ip('link', 'set', name, 'up');
  }
  frr = await startFrr({
    netns: ns.name,
    config: `frr defaults datacenter\nhostname ${hostname()}\n!\n`,
    daemons: ['zebra', 'bgpd', 'staticd'],
  });
});
afterAll(async () => {
  await frr?.stop();
  await ns?.destroy();
});

const target = () => ({ pathspace: ns.name, netns: ns.name });

describe('reloadFrr with VRFs (lab kernel)', () => {
  it('applies VRFs, L3 VNIs, leaks and static routes, and zebra maps each L3 VNI to its VRF', async () => {
    const config = renderFrrConfig(first, { hostname: hostname() });
    const result = await reloadFrr({ ...target(), config });
    expect(result.changed).toBe(true);
    // FRR prints VRFs, leaks and route-maps as the templates write them (in its own order): what
    // lets a reload that adds a network or VRF skip frr-reload.py --test (diffConfigLines).
    expect(diffConfigLines(result.running, config)).toEqual({ added: [], removed: [] });
    expect(result.added).toContainEqual({ context: ['vrf red'], line: 'vni 1001' });
    const running = await frr.runningConfig();
    expect(running).toMatch(/\nvrf red\n vni 1001\n ip route 10\.98\.0\.0\/24 blackhole\nexit-vrf\n/);
    expect(running).toMatch(/\nvrf blue\n vni 1002\nexit-vrf\n/);
    expect(running).toMatch(
      /router bgp 65000 vrf red\n[\s\S]*? {2}import vrf route-map fabrik-red-import\n {2}import vrf blue\n/,
    );
    expect(running).toContain('  advertise ipv4 unicast route-map fabrik-red-export\n');
    expect(running).toContain('ip prefix-list fabrik-red-import seq 5 permit 10.20.0.0/16 le 24\n');
    const status = await readFrrStatus(target());
    expect(status.vrfVnis.map((v) => [v.vrf, v.vni])).toEqual([
      ['blue', 1002],
      ['red', 1001],
    ]);
  });

  it('reloads a second intent in place: new VRF, changed leaks, nothing left of the old leak', async () => {
    const result = await reloadFrr({
      ...target(),
      config: renderFrrConfig(second, { hostname: hostname() }),
    });
    expect(result.removed).toContainEqual({
      context: ['router bgp 65000 vrf red', 'address-family ipv4 unicast'],
      line: 'import vrf blue',
    });
    const running = await frr.runningConfig();
    expect(running).toMatch(/\nvrf green\n vni 1003\nexit-vrf\n/);
    expect(running).toMatch(/router bgp 65000 vrf red\n[\s\S]*? {2}import vrf green\n/);
    expect(running).toMatch(/router bgp 65000 vrf green\n[\s\S]*? {2}import vrf red\n/);
    expect(running).not.toContain('import vrf blue');
    expect(running).not.toContain('fabrik-red-import');
    expect(running).not.toContain('ip route 10.98.0.0/24');
    const status = await readFrrStatus(target());
    expect(status.vrfVnis.map((v) => [v.vrf, v.vni])).toEqual([
      ['blue', 1002],
      ['green', 1003],
      ['red', 1001],
    ]);
    // The same configuration again changes nothing.
    expect(
      (await reloadFrr({ ...target(), config: renderFrrConfig(second, { hostname: hostname() }) })).changed,
    ).toBe(false);
  });

  it('reports a broken partial with FRR message and keeps the previous configuration', async () => {
    const before = await showRunningConfig(target());
    const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-broken-'));
    try {
      // An override that puts every VRF's BGP instance into a peer-group nobody defined.
      writeFileSync(join(dir, 'ibgp-vrf-neighbor.hbs'), ' neighbor 192.0.2.9 peer-group UNDEFINED\n');
      const broken = renderFrrConfig(
        { ...second, vrfs: [...(second.vrfs ?? []), { name: 'blue2', vni: 1004 }] },
        { hostname: hostname(), templatesDir: dir },
      );
      const error = await reloadFrr({ ...target(), config: broken }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FrrReloadError);
      expect((error as FrrReloadError).frrMessage).toContain('% Configure the peer-group first');
      expect((error as FrrReloadError).restored).toBe(true);
      expect(await showRunningConfig(target())).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('removes a VRF whose device is gone when its L3 VNI was released while the device existed', async () => {
    // bgpd keeps the L3 VNI of a VRF whose device went before `no vni` (FRR 8.4): releaseL3Vnis
    // runs first, as agent-netns does before it deletes the devices of the VRFs FRR drops.
    const withGone: FrrIntentInput = {
      ...second,
      vrfs: [...(second.vrfs ?? []), { name: 'gone', vni: 1009 }],
    };
    await ns.ip('link', 'add', 'gone', 'type', 'vrf', 'table', '1009');
    await ns.ip('link', 'set', 'gone', 'up');
    await reloadFrr({ ...target(), config: renderFrrConfig(withGone, { hostname: hostname() }) });
    expect(await frr.runningConfig()).toMatch(/\nvrf gone\n vni 1009\nexit-vrf\n/);

    await releaseL3Vnis(target(), [{ vrf: 'gone', vni: 1009 }]);
    expect(await frr.runningConfig()).not.toContain(' vni 1009');
    await ns.ip('link', 'del', 'gone');
    const result = await reloadFrr({
      ...target(),
      config: renderFrrConfig(second, { hostname: hostname() }),
    });
    expect(result.removed).toContainEqual({ context: [], line: 'router bgp 65000 vrf gone' });
    const running = await frr.runningConfig();
    expect(running).not.toContain('vrf gone');
    expect((await readFrrStatus(target())).vrfVnis.map((v) => v.vni)).toEqual([1002, 1003, 1001]);
  });

  it('switches the same intent to template set vrf-ibgp: iBGP sessions over veth names instead of import vrf', async () => {
    await reloadFrr({
      ...target(),
      config: renderFrrConfig(second, { hostname: hostname(), mode: 'vrf-ibgp' }),
    });
    const running = await frr.runningConfig();
    expect(running).not.toContain('import vrf');
    expect(running).toMatch(
      /router bgp 65000 vrf red\n[\s\S]*? neighbor ibv1001 interface remote-as internal\n/,
    );
    expect(running).toContain(' neighbor ibd1003 interface remote-as internal\n');
    expect(running).toContain(
      'route-map fabrik-green-from-default permit 10\n match large-community fabrik-green-sources\n',
    );
    const status = await readFrrStatus(target());
    expect(status.vrfVnis.map((v) => v.vni)).toEqual([1002, 1003, 1001]);
  });
});
