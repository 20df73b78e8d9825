import { readdir } from 'node:fs/promises';
import { createStateStore, type StateStore } from '@fabrik/agent-runtime';
import { MigrationJournal } from './migration.js';

// One journal per single-NIC bridge, `STATE_DIR/migration-<bridge>.json`, written atomically
// (temp file, fsync, rename) before each step it records.

const PREFIX = 'migration-';

export interface JournalStore {
  /** Every journal in the state directory, by bridge name (unreadable ones reported and ignored). */
  loadAll(): Promise<Map<string, MigrationJournal>>;
  save(journal: MigrationJournal): Promise<void>;
  clear(bridge: string): Promise<void>;
}

export function createJournalStore(
  dir: string,
  onCorrupted: (path: string, reason: string) => void,
): JournalStore {
  const stores = new Map<string, StateStore<MigrationJournal>>();
  const store = (bridge: string) => {
    let s = stores.get(bridge);
    if (!s) {
      s = createStateStore({ dir, name: `${PREFIX}${bridge}`, schema: MigrationJournal, onCorrupted });
      stores.set(bridge, s);
    }
    return s;
  };
  return {
    async loadAll() {
      const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return [] as string[];
        throw e;
      });
      const out = new Map<string, MigrationJournal>();
      for (const name of names) {
        const m = /^migration-(.+)\.json$/.exec(name);
        if (!m) continue;
        const journal = await store(m[1]!).load();
        if (journal && journal.bridge === m[1]) out.set(journal.bridge, journal);
      }
      return out;
    },
    save: (journal) => store(journal.bridge).save(journal),
    clear: (bridge) => store(bridge).clear(),
  };
}
