import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { writeFileAtomic } from './atomic-file.js';

/** Where an agent reports its status: a NodeNetworkStatus section, or a file another agent publishes. */
export interface StatusSink<S> {
  /** Writes `status` unless it equals the last one written (fields in `volatile` aside). */
  write(status: S): Promise<void>;
}

export interface StatusFileOptions<S = object> {
  readonly path: string;
  /**
   * Top-level fields that change on every report (a timestamp such as `lastUpdate`) and are left
   * out when deciding whether the status changed. Default: `['lastUpdate']`.
   */
  readonly volatile?: readonly string[];
  /**
   * A heartbeat: the last status is written again, as `stamp` makes it (a fresh `lastUpdate`),
   * when nothing was written for `everyMs`, so a reader can tell a live writer from a dead one.
   */
  readonly heartbeat?: { readonly everyMs: number; readonly stamp: (status: S, now: Date) => S };
}

/** A status written as JSON into a file, atomically, only when it changed (or for the heartbeat). */
export function createStatusFile<S extends object>(options: StatusFileOptions<S>): StatusSink<S> {
  const volatile = new Set(options.volatile ?? ['lastUpdate']);
  let last: string | undefined;
  let lastStatus: S | undefined;
  let writtenAt = 0;
  const stable = (s: S) =>
    JSON.stringify(Object.fromEntries(Object.entries(s).filter(([k]) => !volatile.has(k))));
  const writeFile = async (status: S) => {
    await mkdir(dirname(options.path), { recursive: true });
    await writeFileAtomic(options.path, `${JSON.stringify(status, null, 2)}\n`);
    writtenAt = Date.now();
  };
  const heartbeat = options.heartbeat;
  if (heartbeat) {
    const timer = setInterval(
      () => {
        if (lastStatus === undefined || Date.now() - writtenAt < heartbeat.everyMs) return;
        lastStatus = heartbeat.stamp(lastStatus, new Date());
        void writeFile(lastStatus).catch(() => {
          /* the next beat tries again; a reconcile's write reports its own failure */
        });
      },
      Math.max(100, Math.round(heartbeat.everyMs / 4)),
    );
    timer.unref();
  }
  return {
    async write(status) {
      lastStatus = status;
      const key = stable(status);
      if (key === last) return;
      await writeFile(status);
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
