import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';

export interface WatchFileOptions {
  /** How often the file is read besides the directory watch (a watch misses some writers). Default 2000 ms. */
  readonly pollIntervalMs?: number;
  /** Told when the file could not be read (other than missing) or watched. */
  readonly onError?: (error: Error) => void;
}

export interface FileWatch {
  /** The content last read; undefined while the file does not exist. */
  current(): string | undefined;
  stop(): void;
}

/**
 * Follows one file that another process replaces (a status file written atomically): `onChange`
 * gets its content (undefined once it is missing) whenever that changes, first right after the
 * first read. `fs.watch` on the directory sees a rename over the file; a periodic read covers
 * bind mounts and a directory that appears later.
 */
export async function watchFile(
  path: string,
  onChange: (content: string | undefined) => void,
  options: WatchFileOptions = {},
): Promise<FileWatch> {
  const name = basename(path);
  let content: string | undefined;
  let hash: string | undefined = '(not read yet)';
  let watcher: FSWatcher | undefined;
  let stopped = false;
  let reading: Promise<void> | undefined;
  let again = false;
  const report = (e: unknown) => options.onError?.(e instanceof Error ? e : new Error(String(e)));

  async function read(): Promise<void> {
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') report(e);
      text = undefined;
    }
    const h = text === undefined ? undefined : createHash('sha256').update(text).digest('hex');
    if (h === hash) return;
    hash = h;
    content = text;
    if (!stopped) onChange(text);
  }
  // Reads never overlap; a change seen during a read causes one more.
  function schedule(): void {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = read()
      .catch(report)
      .finally(() => {
        reading = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  }
  function startWatch(): void {
    if (watcher || stopped) return;
    try {
      watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
        if (file === null || file === name) schedule();
      });
      watcher.on('error', (e) => {
        report(e);
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      // No directory yet: the poll retries.
    }
  }
  startWatch();
  schedule();
  await reading;
  const poll = setInterval(() => {
    startWatch();
    schedule();
  }, options.pollIntervalMs ?? 2000);
  poll.unref();
  return {
    current: () => content,
    stop() {
      stopped = true;
      clearInterval(poll);
      watcher?.close();
      watcher = undefined;
    },
  };
}
