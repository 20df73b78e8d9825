import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CniErrorCode, isCniError } from './errors.js';
import { loadNodeSettings } from './node-settings.js';

// loadNodeSettings parses a file again only when its text changed (agent-host runs many verbs in
// one process): every change must still be seen at once, and a bad file refused every time.
describe('loadNodeSettings', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const settingsFile = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-skel-'));
    dirs.push(dir);
    return join(dir, 'config.yaml');
  };

  it('sees every change of the file, valid or not, and the file going away', async () => {
    const path = await settingsFile();
    const env = { FABRIK_CNI_CONFIG: path };
    await writeFile(path, 'cacheDir: /var/lib/a\n');
    expect((await loadNodeSettings(env)).settings.cacheDir).toBe('/var/lib/a');
    expect((await loadNodeSettings(env)).settings.cacheDir).toBe('/var/lib/a');

    await writeFile(path, 'cacheDir: /var/lib/b\n');
    expect((await loadNodeSettings(env)).settings.cacheDir).toBe('/var/lib/b');

    await writeFile(path, 'cacheDir: relative\n');
    for (let i = 0; i < 2; i++) {
      const err = await loadNodeSettings(env).catch((e: unknown) => e);
      expect(isCniError(err) && err.code).toBe(CniErrorCode.invalidNetworkConfig);
      expect(String((err as Error).message)).toContain('cacheDir');
    }

    await writeFile(path, 'cacheDir: /var/lib/b\n');
    expect((await loadNodeSettings(env)).settings.cacheDir).toBe('/var/lib/b');
    await rm(path);
    expect((await loadNodeSettings(env)).settings.cacheDir).toBe('/var/lib/cni/fabrik-ovs');
  });
});
