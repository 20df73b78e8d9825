import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isFileLockTimeoutError, lockFile, withFileLock } from './lock.js';

// The lock between real processes: this test process and a second Node process
// (__fixtures__/hold-lock.ts) that takes the same lock with the same code.

const dir = mkdtempSync(join(tmpdir(), 'fabrik-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const holder = fileURLToPath(new URL('./__fixtures__/hold-lock.ts', import.meta.url));

interface OtherProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The first line it printed: `locked` or `timeout`. */
  readonly said: Promise<string>;
  readonly exited: Promise<number | null>;
}

function otherProcess(path: string, timeoutMs: number): OtherProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', holder, path, String(timeoutMs)]);
  const said = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
    });
    child.once('close', (code) => reject(new Error(`holder exited ${code} before saying anything`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, said, exited };
}

describe('lockFile (two processes)', () => {
  it('keeps a second process out while held, and lets it in once released', async () => {
    const path = join(dir, 'a.lock');
    const lock = await lockFile(path, { timeoutMs: 5_000 });
    const refused = otherProcess(path, 300);
    expect(await refused.said).toBe('timeout');
    expect(await refused.exited).toBe(3);
    await lock.release();
    await lock.release(); // twice is fine

    const admitted = otherProcess(path, 30_000);
    expect(await admitted.said).toBe('locked');
    // Now this process is the one kept out.
    const err = await lockFile(path, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(isFileLockTimeoutError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'FILE_LOCK_TIMEOUT', path });
    admitted.child.stdin.end();
    expect(await admitted.exited).toBe(0);
    expect(await withFileLock(path, { timeoutMs: 5_000 }, async () => 'ran')).toBe('ran');
  });

  it('leaves no stale lock when its holder is killed', async () => {
    const path = join(dir, 'b.lock');
    const killed = otherProcess(path, 30_000);
    expect(await killed.said).toBe('locked');
    killed.child.kill('SIGKILL');
    await killed.exited;
    // The kernel dropped the dead holder's lock; no pid file to clean up, nothing to guess.
    const lock = await lockFile(path, { timeoutMs: 30_000 });
    await lock.release();
  });

  it('releases the lock when the function run under it throws', async () => {
    const path = join(dir, 'c.lock');
    await expect(
      withFileLock(path, {}, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const other = otherProcess(path, 5_000);
    expect(await other.said).toBe('locked');
    other.child.stdin.end();
    await other.exited;
  });
});
