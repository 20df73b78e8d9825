import { constants } from 'node:fs';
import { mkdir, open, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FabrikError } from '@fabrik/api/errors';

// File-system steps with an end. A CNI plugin runs inside a runtime's ADD or DEL, so a step that
// never returns (a FIFO opened for reading, a hung network mount) or never stops (Node's recursive
// mkdir loops forever where mkdir keeps answering ENOENT, as it does under /proc) hangs the Pod.
// Every step here has a deadline, directories are created one level at a time, and files are
// opened without blocking and read only when they are regular files of a bounded size.

/** How long one file-system step may take. */
export const FS_STEP_TIMEOUT_MS = 5000;

/** A file-system step failed (`errno` is Node's code, such as ENOTDIR) or took too long (ETIMEDOUT). */
export class FsStepError extends FabrikError<'FS_STEP'> {
  override readonly name = 'FsStepError';
  constructor(
    readonly path: string,
    readonly errno: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('FS_STEP', message, options);
  }
}

export const isFsStepError = (e: unknown): e is FsStepError => e instanceof FsStepError;

const errnoOf = (e: unknown): string => (e as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';

/** Runs one step on `path`; rejects with {@link FsStepError} on failure or after `timeoutMs`. */
export async function fsStep<T>(
  what: string,
  path: string,
  step: () => Promise<T>,
  timeoutMs = FS_STEP_TIMEOUT_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new FsStepError(path, 'ETIMEDOUT', `${what} ${path}: no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([step(), deadline]);
  } catch (e) {
    if (isFsStepError(e)) throw e;
    throw new FsStepError(path, errnoOf(e), `${what} ${path}: ${errnoOf(e)}`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads a regular file of at most `maxBytes`; undefined when it does not exist. Anything else
 * (a directory, a FIFO, a device, a larger file) is an {@link FsStepError}.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<string | undefined> {
  let fh;
  try {
    fh = await fsStep('open', path, () => open(path, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch (e) {
    if (isFsStepError(e) && e.errno === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = await fsStep('stat', path, () => fh.stat());
    if (!st.isFile()) throw new FsStepError(path, 'EINVAL', `${path} is ${describeFileType(st)}, not a file`);
    if (st.size > maxBytes)
      throw new FsStepError(path, 'EFBIG', `${path} is ${st.size} bytes, more than ${maxBytes}`);
    return await fsStep('read', path, () => fh.readFile('utf8'));
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * Creates `dir` and whichever of its parents are missing, one level at a time (mode 0700 for new
 * levels), and checks that it is a directory. Unlike `mkdir -p` in Node, a level that cannot be
 * created fails at once instead of looping.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await fsStep('mkdir', dir, () => mkdir(dir, { mode: 0o700 }));
  } catch (e) {
    if (!isFsStepError(e)) throw e;
    if (e.errno === 'ENOENT' && dirname(dir) !== dir) {
      await makeDirectory(dirname(dir));
      // The parent exists now: a second ENOENT (pseudo file systems answer so) is final.
      await fsStep('mkdir', dir, () => mkdir(dir, { mode: 0o700 })).catch((again: FsStepError) => {
        if (again.errno !== 'EEXIST') throw again;
      });
    } else if (e.errno !== 'EEXIST') {
      throw e;
    }
  }
  const st = await fsStep('stat', dir, () => stat(dir));
  if (!st.isDirectory())
    throw new FsStepError(dir, 'ENOTDIR', `${dir} is ${describeFileType(st)}, not a directory`);
}

/** The file-system type of the file at `path` (statfs f_type; NSFS_MAGIC for namespace files). */
export async function fileSystemType(path: string): Promise<number> {
  return (await fsStep('statfs', path, () => statfs(path))).type;
}

/** "a directory", "a FIFO", ...: for messages about a file of the wrong kind. */
export function describeFileType(st: {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
