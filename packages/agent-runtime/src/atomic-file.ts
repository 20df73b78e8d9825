import { open, readdir, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

// Files other processes read (the status file, the relayed intent file) and files a restart reads
// (the last-good state) are replaced atomically: written to a temporary file in the same directory,
// flushed to disk, renamed over the target, and the directory flushed, so a reader or a crash sees
// the old content or the new one, never a prefix.

const TMP_MARK = '.fabrik-tmp-';

/** Writes `data` to `file` atomically and durably (temp file + fsync + rename + fsync of the directory). */
export async function writeFileAtomic(
  file: string,
  data: string,
  options: { mode?: number } = {},
): Promise<void> {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}${TMP_MARK}${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(tmp, 'wx', options.mode ?? 0o644);
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Removes the temporary files a process killed in the middle of {@link writeFileAtomic} left
 * next to `file`. Returns their names.
 */
export async function removeStaleTempFiles(file: string): Promise<string[]> {
  const prefix = `.${basename(file)}${TMP_MARK}`;
  const dir = dirname(file);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith(prefix));
  await Promise.all(names.map((n) => rm(join(dir, n), { force: true })));
  return names;
}
