import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isFileLockTimeoutError, runCommand } from '@fabrik/netcore';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrrIntentInput } from '../intent.js';
import { diffConfigLines } from '../config-text.js';
import { FrrReloadError } from './reload-errors.js';
import { reloadFrr } from './reload.js';
import { renderFrrConfig } from '../render.js';
import { readFrrStatus, readVrfVnis } from './status.js';
import { showRunningConfig, vtysh, vtyshCommands } from './vtysh.js';

// Real zebra + bgpd + staticd in a throwaway netns of the host kernel. No VRF devices here (the
// host kernel has no vrf): VRF reloads are covered by reload.lab.test.ts.
const intent: FrrIntentInput = {
  asn: 65000,
  routerId: '10.0.0.1',
  vtepIp: '10.0.0.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external', password: 's3cret' }] },
  layer2s: [
    { vni: 2100, vlan: 100, routeTarget: '65000:2100' },
    { vni: 2200, vlan: 200, routeTarget: '65001:2200' },
  ],
};

let ns: TempNetns;
let frr: FrrInstance;
const dirs: string[] = [];
const header = `frr defaults datacenter\nhostname ${hostname()}\n!\n`;

beforeAll(async () => {
  ns = await createTempNetns('fabrik-frr-');
  frr = await startFrr({ netns: ns.name, config: header, daemons: ['zebra', 'bgpd', 'staticd'] });
});
afterAll(async () => {
  await frr?.stop();
  await ns?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('reloadFrr (host kernel)', () => {
  const target = () => ({ pathspace: ns.name, netns: ns.name });

  it('applies a rendered configuration, reports what changed, and is a no-op the second time', async () => {
    const config = renderFrrConfig(intent, { hostname: hostname() });
    const result = await reloadFrr({ ...target(), config });
    expect(result.changed).toBe(true);
    expect(result.added).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.2 remote-as external',
    });
    expect(result.added).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.2 password <redacted>',
    });
    expect(result.file).toBe(join(frr.configDir, 'frr.conf'));
    const running = await frr.runningConfig();
    expect(running).toContain(' neighbor 192.0.2.2 password s3cret\n');
    expect(running).toMatch(
      / {2}vni 2200\n {3}route-target import 65001:2200\n {3}route-target export 65001:2200\n {2}exit-vni\n/,
    );

    // The result carries what FRR runs after the reload, as vtysh shows it now.
    expect(result.running).toBe(await showRunningConfig(target()));
    // FRR prints the rendered configuration line for line: what lets a reload that only adds
    // lines skip frr-reload.py --test (diffConfigLines).
    expect(diffConfigLines(result.running, config)).toEqual({ added: [], removed: [] });
    expect(result.running).toContain(' neighbor 192.0.2.2 password s3cret\n');

    const again = await reloadFrr({ ...target(), config });
    expect(again).toMatchObject({ changed: false, skipped: true, added: [], removed: [] });
    expect(again.running).toBe(result.running);

    const status = await readFrrStatus(target());
    expect(status.bgpSessions).toContainEqual(
      expect.objectContaining({ vrf: 'default', addressFamily: 'l2VpnEvpn', neighbor: '192.0.2.2' }),
    );
    expect(status.bgpSessions.every((s) => s.state !== 'Established')).toBe(true);
    // The one-call read of the VRF-to-VNI mapping answers as the full status does.
    expect(await readVrfVnis(target())).toEqual(status.vrfVnis);
  });

  it('runs several commands through one vtysh and gives each its own output, an empty one included', async () => {
    // The host kernel has no VRF device: vtysh prints nothing at all for `show vrf`.
    const commands = ['show vrf', 'show running-config', 'show bgp vrf all summary json'];
    const one = await vtyshCommands(target(), commands);
    const each = await Promise.all(commands.map((c) => vtysh(target(), c)));
    expect(each[0]!.trim()).toBe('');
    expect(one.map((o) => o.trim())).toEqual(each.map((o) => o.trim()));
    expect(JSON.parse(one[2]!)).toEqual(JSON.parse(each[2]!));
  });

  it('reports a broken partial with FRR message, restores the previous configuration and keeps secrets out', async () => {
    const before = await showRunningConfig(target());
    const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-broken-'));
    dirs.push(dir);
    // A user override that references a peer-group nobody defined: vtysh -C accepts it, bgpd does not.
    writeFileSync(join(dir, 'bfd.hbs'), ' neighbor {{id}} peer-group UNDEFINED\n');
    const broken = renderFrrConfig(
      {
        ...intent,
        underlay: {
          neighbors: [
            { address: '192.0.2.2', remoteAs: 'external', password: 's3cret', bfd: true },
            { address: '192.0.2.3', remoteAs: 'external', bfd: true },
          ],
        },
      },
      { hostname: hostname(), templatesDir: dir },
    );
    const error = await reloadFrr({ ...target(), config: broken }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FrrReloadError);
    const e = error as FrrReloadError;
    expect(e.stage).toBe('reload');
    expect(e.frrMessage).toContain('% Configure the peer-group first');
    expect(e.restored).toBe(true);
    expect(`${e.message} ${e.frrMessage}`).not.toContain('s3cret');
    expect(await showRunningConfig(target())).toBe(before);
  });

  it('refuses an addition FRR cannot parse, found without frr-reload.py --test, and restores what ran', async () => {
    const config = renderFrrConfig(intent, { hostname: hostname() });
    await reloadFrr({ ...target(), config });
    const before = await showRunningConfig(target());
    const broken = `${config}route-map fabrik-extra permit 10\n set no-such-thing 1\nexit\n`;
    // Only additions: the reload goes straight to vtysh, which stops at the unknown command.
    expect(diffConfigLines(before, broken).removed).toEqual([]);
    const error = await reloadFrr({ ...target(), config: broken }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FrrReloadError);
    expect((error as FrrReloadError).stage).toBe('reload');
    expect((error as FrrReloadError).frrMessage).toContain('set no-such-thing 1');
    expect((error as FrrReloadError).restored).toBe(true);
    expect(await showRunningConfig(target())).toBe(before);
  });

  it("removes a network's vni block, and adds it back, leaving nothing the file lacks", async () => {
    const config = renderFrrConfig(intent, { hostname: hostname() });
    await reloadFrr({ ...target(), config });
    const without = renderFrrConfig(
      { ...intent, layer2s: intent.layer2s?.slice(0, 1) },
      { hostname: hostname() },
    );
    const removed = await reloadFrr({ ...target(), config: without });
    expect(removed.removed).toContainEqual({
      context: ['router bgp 65000', 'address-family l2vpn evpn'],
      line: 'vni 2200',
    });
    expect(removed.running).not.toContain('vni 2200');
    expect(diffConfigLines(removed.running, without)).toEqual({ added: [], removed: [] });
    const back = await reloadFrr({ ...target(), config });
    expect(back.added).toContainEqual({
      context: ['router bgp 65000', 'address-family l2vpn evpn', 'vni 2200'],
      line: 'route-target import 65001:2200',
    });
    expect(diffConfigLines(back.running, config)).toEqual({ added: [], removed: [] });
  });

  it('runs concurrent reloads of one pathspace one after the other: the last one wins', async () => {
    const configs = [65010, 65020, 65030].map((remote) =>
      renderFrrConfig(
        { ...intent, underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: remote }] } },
        { hostname: hostname() },
      ),
    );
    const results = await Promise.all(
      configs.map((config) =>
        reloadFrr({ ...target(), config, file: join(frr.configDir, `c${configs.indexOf(config)}.conf`) }),
      ),
    );
    expect(results.every((r) => r.changed)).toBe(true);
    const running = await frr.runningConfig();
    expect(running).toContain(' neighbor 192.0.2.2 remote-as 65030\n');
    expect(running).not.toContain('password');
  });

  it('skips frr-reload.py for the configuration last applied, and reloads in full once the running one was changed by hand', async () => {
    const config = renderFrrConfig(intent, { hostname: hostname() });
    await reloadFrr({ ...target(), config });
    expect(await reloadFrr({ ...target(), config })).toMatchObject({ changed: false, skipped: true });

    await frr.vtysh('configure terminal', 'router bgp 65000', 'neighbor 192.0.2.2 description by-hand');
    expect(await frr.runningConfig()).toContain('description by-hand');
    const repaired = await reloadFrr({ ...target(), config });
    expect(repaired).toMatchObject({ changed: true, skipped: false });
    expect(repaired.removed).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.2 description by-hand',
    });
    expect(await frr.runningConfig()).not.toContain('description by-hand');
    expect(await reloadFrr({ ...target(), config })).toMatchObject({ skipped: true });
  });

  it('removes a prefix-list entry added by hand, which frr-reload.py lists as a `no` line to add', async () => {
    const config = renderFrrConfig(intent, { hostname: hostname() });
    await reloadFrr({ ...target(), config });
    const before = await showRunningConfig(target());
    await frr.vtysh('configure terminal', 'ip prefix-list FABRIK-BY-HAND seq 5 permit 10.99.0.0/16');
    const repaired = await reloadFrr({ ...target(), config });
    expect(repaired.added).toEqual([
      { context: [], line: 'no ip prefix-list FABRIK-BY-HAND seq 5 permit 10.99.0.0/16' },
    ]);
    expect(await showRunningConfig(target())).toBe(before);
  });

  it('turns forwarding on, as a configuration without `no ip forwarding` asks, along with lines it adds', async () => {
    await reloadFrr({ ...target(), config: renderFrrConfig(intent, { hostname: hostname() }) });
    // As in a new namespace: the kernel does not forward, and zebra shows it.
    await frr.vtysh('configure terminal', 'no ip forwarding', 'no ipv6 forwarding');
    const forwarding = async () =>
      (await ns.exec('sysctl', ['-n', 'net.ipv4.ip_forward', 'net.ipv6.conf.all.forwarding'])).stdout.split(
        '\n',
        2,
      );
    expect(await forwarding()).toEqual(['0', '0']);
    const more = {
      ...intent,
      underlay: {
        neighbors: [
          ...(intent.underlay?.neighbors ?? []),
          { address: '192.0.2.3', remoteAs: 'external' as const },
        ],
      },
    };
    const config = renderFrrConfig(more, { hostname: hostname() });
    const result = await reloadFrr({ ...target(), config });
    expect(result.removed).toEqual([
      { context: [], line: 'no ip forwarding' },
      { context: [], line: 'no ipv6 forwarding' },
    ]);
    expect(result.added).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.3 remote-as external',
    });
    expect(await forwarding()).toEqual(['1', '1']);
    const running = await frr.runningConfig();
    expect(running).not.toContain('forwarding');
    expect(running).toContain(' neighbor 192.0.2.3 remote-as external\n');
    expect(await reloadFrr({ ...target(), config })).toMatchObject({ skipped: true });
    await reloadFrr({ ...target(), config: renderFrrConfig(intent, { hostname: hostname() }) });
  });

  it("waits for another process's reload lock, and is not kept out by a holder that died", async () => {
    const before = await showRunningConfig(target());
    const other = spawn(process.execPath, [
      '--conditions=@fabrik/source',
      '--import',
      'tsx',
      fileURLToPath(new URL('../__fixtures__/hold-reload-lock.ts', import.meta.url)),
      ns.name,
    ]);
    try {
      await new Promise<void>((resolve, reject) => {
        other.stdout.once('data', () => resolve());
        other.once('close', (code) => reject(new Error(`the other process exited ${code}`)));
      });
      const config = renderFrrConfig(
        {
          ...intent,
          layer2s: [...(intent.layer2s ?? []), { vni: 2300, vlan: 300, routeTarget: '65001:2300' }],
        },
        { hostname: hostname() },
      );
      const refused = await reloadFrr({ ...target(), config, lockTimeoutMs: 500 }).catch((e: unknown) => e);
      expect(isFileLockTimeoutError(refused)).toBe(true);
      expect(await showRunningConfig(target())).toBe(before);

      // The holder dies without releasing anything: the kernel drops its lock.
      other.kill('SIGKILL');
      const applied = await reloadFrr({ ...target(), config, lockTimeoutMs: 30_000 });
      expect(applied.changed).toBe(true);
      expect(await frr.runningConfig()).toContain('  vni 2300\n');
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('reports both failures when restoring the previous configuration fails too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-norestore-'));
    const configDir = mkdtempSync(join(tmpdir(), 'fabrik-frr-immutable-'));
    dirs.push(dir, configDir);
    writeFileSync(join(dir, 'bfd.hbs'), ' neighbor {{id}} peer-group UNDEFINED\n');
    const broken = renderFrrConfig(
      {
        ...intent,
        underlay: {
          neighbors: [{ address: '192.0.2.2', remoteAs: 'external', password: 's3cret', bfd: true }],
        },
      },
      { hostname: hostname(), templatesDir: dir },
    );
    // The restore writes the previous configuration into configDir: an immutable directory
    // refuses that, even to root.
    await runCommand('chattr', ['+i', configDir]);
    try {
      const error = await reloadFrr({
        ...target(),
        config: broken,
        file: join(dir, 'broken.conf'),
        configDir,
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FrrReloadError);
      const e = error as FrrReloadError;
      expect(e).toMatchObject({ stage: 'reload', restored: false });
      expect(e.frrMessage).toContain('% Configure the peer-group first');
      expect(e.restoreError).toMatchObject({ code: 'EPERM' });
      expect(e.errors).toHaveLength(2);
      expect(e.errors[0]).toMatchObject({ frrMessage: e.frrMessage });
      expect(e.errors[1]).toBe(e.restoreError);
      expect(e.message).toMatch(
        /peer-group first.*restoring the previous configuration failed too: .*EPERM/s,
      );
      expect(e.message).not.toContain('s3cret');
    } finally {
      await runCommand('chattr', ['-i', configDir]);
    }
    // Put the daemons back as the other tests expect them.
    await reloadFrr({ ...target(), config: renderFrrConfig(intent, { hostname: hostname() }) });
  });
});
