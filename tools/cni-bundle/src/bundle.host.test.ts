// bundleProgram as the agents use it: a `.cjs` bundle required by a bin module elsewhere, its
// assets beside it, one V8 code cache per verb, written only by a successful run, and the build's
// own code cache until then.
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, isCommandError } from '@fabrik/netcore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleProgram } from './bundle.js';

const FIXTURE = fileURLToPath(new URL('./__fixtures__/program/', import.meta.url));

let dir: string;
let bin: string;
const cacheDir = () => join(dir, 'code-cache');

async function run(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await runCommand(process.execPath, [bin, ...args], {
      env: { ...process.env, FABRIK_TEST_PROGRAM_CODE_CACHE_DIR: cacheDir() },
    });
    return { code: 0, stdout };
  } catch (e) {
    if (!isCommandError(e) || e.exitCode === null) throw e;
    return { code: e.exitCode, stdout: e.stdout };
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-bundle-'));
  // The layout of an app: dist/<program>.cjs and bin/<program>.mjs, which requires it.
  await mkdir(join(dir, 'bin'));
  await bundleProgram({
    entry: join(FIXTURE, 'main.ts'),
    outfile: join(dir, 'dist', 'program.cjs'),
    codeCache: { dir: '/nonexistent', env: 'FABRIK_TEST_PROGRAM_CODE_CACHE_DIR', key: 'verb' },
    assets: [{ from: join(FIXTURE, 'greetings'), to: 'greetings' }],
    warmUp: { args: ['greet'] },
  });
  bin = join(dir, 'bin', 'program.mjs');
  await writeFile(
    bin,
    "import { createRequire } from 'node:module';\ncreateRequire(import.meta.url)('../dist/program.cjs');\n",
  );
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bundleProgram', () => {
  it('runs from its bundle file: import.meta.url names it (assets beside it), dynamic imports work', async () => {
    expect(await run('greet')).toEqual({ code: 0, stdout: 'HELLO FROM AN ASSET!\n' });
  });

  it('keeps one code cache per verb, written by a successful run only, and runs the same with it', async () => {
    await rm(cacheDir(), { recursive: true, force: true });
    expect((await run('wave')).code).toBe(2);
    await expect(readdir(cacheDir())).rejects.toThrow(/ENOENT/);
    await run('greet');
    const files = await readdir(cacheDir());
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version}-${process.arch}-greet\\.bin$`));
    expect(await run('greet')).toEqual({ code: 0, stdout: 'HELLO FROM AN ASSET!\n' });
    expect(await readdir(cacheDir())).toEqual(files);
  });

  it('starts with the code cache its build made until a verb has its own; ignores one others can write', async () => {
    const buildCache = join(dir, 'dist', `program.cjs.${process.version}-${process.arch}.code-cache`);
    expect((await stat(buildCache)).mode & 0o777).toBe(0o644);
    // Which cache a start used, as the launcher says it on stderr.
    const cacheUsed = async () =>
      (
        await runCommand(process.execPath, [bin, 'greet'], {
          env: { ...process.env, FABRIK_TEST_PROGRAM_CODE_CACHE_DIR: cacheDir(), FABRIK_CODE_CACHE_LOG: '1' },
        })
      ).stderr.trim();
    await rm(cacheDir(), { recursive: true, force: true });
    expect(await cacheUsed()).toBe('code cache: build accepted');
    expect(await cacheUsed()).toBe('code cache: own accepted');
    await rm(cacheDir(), { recursive: true, force: true });
    await chmod(buildCache, 0o664);
    try {
      expect(await cacheUsed()).toBe('code cache: none');
    } finally {
      await chmod(buildCache, 0o644);
    }
  });
});
