import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installPlugin } from './install.js';

describe('installPlugin', () => {
  it('copies the file with mode 755 and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-install-'));
    try {
      const source = join(dir, 'src-plugin');
      await writeFile(source, '#!/usr/bin/env node\n');
      await writeFile(join(dir, 'fabrik-ovs'), 'old');
      await installPlugin(source, join(dir, 'bin'), 'fabrik-ovs');
      expect(await readFile(join(dir, 'bin', 'fabrik-ovs'), 'utf8')).toBe('#!/usr/bin/env node\n');
      expect((await stat(join(dir, 'bin', 'fabrik-ovs'))).mode & 0o777).toBe(0o755);
      expect(await readdir(join(dir, 'bin'))).toEqual(['fabrik-ovs']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
