import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingFrrChanges } from './pending.js';
import { FrrReloadError } from './reload-errors.js';
import { reloadFrr } from './reload.js';
import { renderFrrConfig } from '../render.js';
import { showRunningConfig } from './vtysh.js';

let ns: TempNetns;
let frr: FrrInstance;
const header = `frr defaults datacenter\nhostname ${hostname()}\n!\n`;
const config = renderFrrConfig(
  {
    asn: 65000,
    routerId: '10.0.0.1',
    vtepIp: '10.0.0.1',
    underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external' }] },
  },
  { hostname: hostname() },
);

beforeAll(async () => {
  ns = await createTempNetns('fabrik-frr-');
  frr = await startFrr({ netns: ns.name, config: header });
});
afterAll(async () => {
  await frr?.stop();
  await ns?.destroy();
});

describe('pendingFrrChanges (real FRR)', () => {
  const target = () => ({ pathspace: ns.name, netns: ns.name });

  it('lists what a reload would add, and changes neither the running configuration nor frr.conf', async () => {
    const running = await showRunningConfig(target());
    const file = await readFile(join(frr.configDir, 'frr.conf'), 'utf8');
    const pending = await pendingFrrChanges(target(), config);
    expect(pending.added).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.2 remote-as external',
    });
    expect(await showRunningConfig(target())).toBe(running);
    expect(await readFile(join(frr.configDir, 'frr.conf'), 'utf8')).toBe(file);
  });

  it('is empty once the configuration runs', async () => {
    await reloadFrr({ ...target(), config });
    expect(await pendingFrrChanges(target(), config)).toEqual({ added: [], removed: [] });
  });

  it('sees a change made by hand after the reload (the last-applied record no longer matches)', async () => {
    await frr.vtysh('configure terminal', 'router bgp 65000', 'neighbor 192.0.2.2 description by-hand');
    expect((await pendingFrrChanges(target(), config)).removed).toContainEqual({
      context: ['router bgp 65000'],
      line: 'neighbor 192.0.2.2 description by-hand',
    });
  });

  it("reports a file frr-reload.py refuses with FRR's words", async () => {
    const error = await pendingFrrChanges(target(), `${header}router bgp 65000\n neighbor\n`).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FrrReloadError);
    expect((error as FrrReloadError).stage).toBe('test');
  });
});
