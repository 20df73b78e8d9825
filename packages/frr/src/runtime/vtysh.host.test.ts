import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadFrr } from './reload.js';
import { vtysh } from './vtysh.js';

// A hung FRR (a vtysh that never answers, first on PATH) fails the call within the target's
// toolTimeoutMs instead of holding the caller for the default two minutes.

let dir: string;
const path = process.env.PATH;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-frr-hung-'));
  for (const tool of ['vtysh', 'python3']) {
    await writeFile(join(dir, tool), '#!/bin/sh\nexec sleep 30\n');
    await chmod(join(dir, tool), 0o755);
  }
  process.env.PATH = `${dir}:${path}`;
});
afterAll(async () => {
  process.env.PATH = path;
  await rm(dir, { recursive: true, force: true });
});

describe('toolTimeoutMs', () => {
  it('bounds a vtysh call', async () => {
    const t0 = performance.now();
    await expect(vtysh({ pathspace: 'fabrik-hung', toolTimeoutMs: 500 }, 'show version')).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('bounds each step of a reload', async () => {
    const t0 = performance.now();
    await expect(
      reloadFrr({
        pathspace: 'fabrik-hung',
        toolTimeoutMs: 500,
        configDir: dir,
        runDir: dir,
        config: 'frr defaults datacenter\n!\n',
        restoreOnFailure: false,
      }),
    ).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
