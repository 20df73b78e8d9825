import { z } from 'zod';
import { createStateStore } from './state-store.js';

/**
 * A durable set of link names: the creation journal an agent gives its netlink handle
 * (`@fabrik/netcore` `NetlinkOptions.journal`, which it satisfies), so that a link created just
 * before a kill -9 and not yet marked is recognised as its own after the restart.
 */
export interface NameJournal {
  readonly path: string;
  load(): Promise<ReadonlySet<string>>;
  /** Adds names; on disk (temp file + fsync + rename) when it returns. */
  record(names: readonly string[]): Promise<void>;
  clear(): Promise<void>;
}

/** The creation journal of an agent: `STATE_DIR/creating.json` (present only while it creates links). */
export function createCreationJournal(
  dir: string,
  onCorrupted?: (path: string, reason: string) => void,
): NameJournal {
  const store = createStateStore({
    dir,
    name: 'creating',
    schema: z.array(z.string()),
    ...(onCorrupted ? { onCorrupted } : {}),
  });
  return {
    path: store.path,
    load: async () => new Set((await store.load()) ?? []),
    async record(names) {
      const held = (await store.load()) ?? [];
      await store.save([...new Set([...held, ...names])].sort());
    },
    clear: () => store.clear(),
  };
}
