import { spawn } from 'node:child_process';
import { FabrikError, errorGuard } from '../errors.js';
import { CommandError, CommandNotFoundError } from './run.js';

/** An exclusive lock on a file, held until {@link FileLock.release}. */
export interface FileLock {
  readonly path: string;
  /** Releases the lock; safe to call twice. */
  release(): Promise<void>;
}

/** Options of {@link lockFile}. */
export interface LockFileOptions {
  /** Give up after this many milliseconds of waiting. Default: 5 minutes. */
  readonly timeoutMs?: number;
}

/** Another process held the lock for longer than the caller was willing to wait. */
export class FileLockTimeoutError extends FabrikError<'FILE_LOCK_TIMEOUT'> {
  override readonly name = 'FileLockTimeoutError';
  constructor(
    readonly path: string,
    readonly timeoutMs: number,
  ) {
    super('FILE_LOCK_TIMEOUT', `${path}: still locked by another process after ${timeoutMs} ms`);
  }
}

export const isFileLockTimeoutError = errorGuard(FileLockTimeoutError);

// flock(1) exits with this code when it gave up waiting (any other failure keeps its own code).
const TIMED_OUT = 75;

/**
 * Takes an exclusive `flock(2)` lock on `path` (created if missing), waiting up to `timeoutMs`,
 * for processes that must not interleave across processes (two `frr-reload.py` runs against the
 * same daemons). The lock is held by a child `flock PATH cat` that runs as long as the lock is
 * wanted: `cat` starts only once the lock is taken, and echoes a byte to say so; closing its
 * standard input ends it and releases the lock. The kernel releases a flock when its holder
 * dies, so a crashed holder (this process, or the child) never leaves a stale lock behind: no pid
 * files, no staleness guesses. Equivalent to: `flock --exclusive --timeout SECONDS PATH cat`.
 */
export function lockFile(path: string, options: LockFileOptions = {}): Promise<FileLock> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const args = [
    '--exclusive',
    '--timeout',
    (timeoutMs / 1000).toFixed(3),
    '--conflict-exit-code',
    String(TIMED_OUT),
    path,
    'cat',
  ];
  const child = spawn('flock', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let released = false;
  const release = async (): Promise<void> => {
    if (!released) {
      released = true;
      child.stdin.end();
    }
    await closed;
  };
  return new Promise<FileLock>((resolve, reject) => {
    child.stdout.once('data', () => resolve({ path, release }));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new CommandNotFoundError('flock', { cause: e }) : e),
    );
    // Before the lock was taken (after it, `resolve` has already run and this changes nothing).
    child.on('close', (code, signal) =>
      reject(
        code === TIMED_OUT
          ? new FileLockTimeoutError(path, timeoutMs)
          : new CommandError(['flock', ...args], code, Buffer.concat(stderr).toString('utf8'), '', signal),
      ),
    );
    child.stdin.on('error', () => {}); // EPIPE when flock failed before `cat` ran: reported above
    child.stdin.write('\n');
  });
}

/** Runs `fn` while holding {@link lockFile}`(path)`; releases the lock however `fn` ends. */
export async function withFileLock<T>(
  path: string,
  options: LockFileOptions,
  fn: () => Promise<T>,
): Promise<T> {
  const lock = await lockFile(path, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
