import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { removeStaleTempFiles, writeFileAtomic } from './atomic-file.js';

/** A value kept across restarts in the agent's state directory (the last-good desired state). */
export interface StateStore<T> {
  /** The file: STATE_DIR/NAME.json. */
  readonly path: string;
  /**
   * The stored value; `undefined` when there is none, or when the file is corrupted or does not
   * match the schema (then `onCorrupted` is told and the file is ignored, not deleted).
   */
  load(): Promise<T | undefined>;
  /** Replaces the stored value atomically (temp file + fsync + rename). */
  save(value: T): Promise<void>;
  /** Removes the stored value. */
  clear(): Promise<void>;
}

export interface StateStoreOptions<S extends z.ZodType> {
  readonly dir: string;
  /** File name without extension: `last-good`. */
  readonly name: string;
  /** Checks a loaded value: a file written by another version that no longer matches is ignored. */
  readonly schema: S;
  readonly onCorrupted?: (path: string, reason: string) => void;
}

/** The file's envelope: a format number to tell future layouts apart, and when it was written. */
const FORMAT = 1;

export function createStateStore<S extends z.ZodType>(
  options: StateStoreOptions<S>,
): StateStore<z.output<S>> {
  const path = join(options.dir, `${options.name}.json`);
  const corrupted = (reason: string): undefined => {
    options.onCorrupted?.(path, reason);
    return undefined;
  };
  return {
    path,
    async load() {
      // A process killed while saving leaves its temporary file behind: nothing else will use it.
      await removeStaleTempFiles(path);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      let envelope: unknown;
      try {
        envelope = JSON.parse(text);
      } catch (e) {
        return corrupted(`not JSON: ${(e as Error).message}`);
      }
      const { format, value } = (envelope ?? {}) as { format?: unknown; value?: unknown };
      if (format !== FORMAT) return corrupted(`unknown format ${JSON.stringify(format)}`);
      const parsed = options.schema.safeParse(value);
      if (!parsed.success)
        return corrupted(`does not match the schema: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return parsed.data;
    },
    async save(value) {
      await mkdir(options.dir, { recursive: true, mode: 0o700 });
      const envelope = { format: FORMAT, savedAt: new Date().toISOString(), value };
      await writeFileAtomic(path, `${JSON.stringify(envelope)}\n`, { mode: 0o600 });
    },
    async clear() {
      await rm(path, { force: true });
    },
  };
}
