import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsStep, makeDirectory, readRegularFile } from './bounded-fs.js';

let dir: string | undefined;
const tempDir = async () => (dir = await mkdtemp(join(tmpdir(), 'fabrik-bfs-')));
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('makeDirectory', () => {
  it('creates every missing level with mode 0700 and accepts an existing directory', async () => {
    const d = join(await tempDir(), 'a', 'b', 'c');
    await makeDirectory(d);
    await makeDirectory(d);
    expect((await stat(d)).isDirectory()).toBe(true);
    expect((await stat(join(dir!, 'a'))).mode & 0o777).toBe(0o700);
  });

  it('fails where mkdir keeps answering ENOENT (under /proc) instead of looping like recursive mkdir', async () => {
    const link = join(await tempDir(), 'proc');
    await symlink('/proc/self', link);
    await expect(makeDirectory(join(link, 'x', 'y'))).rejects.toMatchObject({ errno: 'ENOENT' });
  });

  it('fails below a regular file', async () => {
    const file = join(await tempDir(), 'f');
    await writeFile(file, '');
    await expect(makeDirectory(join(file, 'x'))).rejects.toMatchObject({ errno: 'ENOTDIR' });
    await expect(makeDirectory(file)).rejects.toMatchObject({ errno: 'ENOTDIR' });
  });
});

describe('readRegularFile', () => {
  it('reads a small file, answers undefined for a missing one, refuses directories and large files', async () => {
    const d = await tempDir();
    await writeFile(join(d, 'f'), 'hello');
    expect(await readRegularFile(join(d, 'f'), 10)).toBe('hello');
    expect(await readRegularFile(join(d, 'missing'), 10)).toBeUndefined();
    await expect(readRegularFile(d, 10)).rejects.toThrow(/is a directory, not a file/);
    await expect(readRegularFile(join(d, 'f'), 4)).rejects.toMatchObject({ errno: 'EFBIG' });
  });
});

describe('fsStep', () => {
  it('turns a step that never ends into ETIMEDOUT naming the step and the path', async () => {
    await expect(fsStep('open', '/some/fifo', () => new Promise(() => undefined), 20)).rejects.toMatchObject({
      errno: 'ETIMEDOUT',
      message: 'open /some/fifo: no answer within 20 ms',
    });
  });
});
