import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-file.js';

/** Where an agent reports its status: a NodeNetworkStatus section, or a file another agent publishes. */
export interface StatusSink<S> {
  /** Writes `status` unless it equals the last one written (fields in `volatile` aside). */
  write(status: S): Promise<void>;
}

export interface StatusFileOptions {
  readonly path: string;
  /**
   * Top-level fields that change on every report (a timestamp such as `lastUpdate`) and are left
   * out when deciding whether the status changed. Default: `['lastUpdate']`.
   */
  readonly volatile?: readonly string[];
}

/** A status written as JSON into a file, atomically, only when it changed. */
export function createStatusFile<S extends object>(options: StatusFileOptions): StatusSink<S> {
  const volatile = new Set(options.volatile ?? ['lastUpdate']);
  let last: string | undefined;
  const stable = (s: S) =>
    JSON.stringify(Object.fromEntries(Object.entries(s).filter(([k]) => !volatile.has(k))));
  return {
    async write(status) {
      const key = stable(status);
      if (key === last) return;
      await mkdir(dirname(options.path), { recursive: true });
      await writeFileAtomic(options.path, `${JSON.stringify(status, null, 2)}\n`);
      last = key;
    },
  };
}

/** Reads a status file written by {@link createStatusFile}; `undefined` when it does not exist. */
export async function readStatusFile<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<z.output<S> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return schema.parse(JSON.parse(text));
}
