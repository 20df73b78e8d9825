import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCreationJournal } from './creation-journal.js';
import { createStateStore } from './state-store.js';
import { createStatusFile, readStatusFile } from './status-file.js';

const Schema = z.object({ links: z.array(z.string()), frr: z.string() });

describe('state store and status file (real files)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fabrik-state-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('saves and loads a value; the file is private to root', async () => {
    const store = createStateStore({ dir: join(dir, 'state'), name: 'last-good', schema: Schema });
    expect(await store.load()).toBeUndefined();
    await store.save({ links: ['vx100'], frr: 'router bgp 65000\n' });
    expect(await store.load()).toEqual({ links: ['vx100'], frr: 'router bgp 65000\n' });
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'state'))).toEqual(['last-good.json']);
  });

  it.each([
    ['not JSON', '{"format":1,"value":', 'not JSON'],
    ['another format', '{"format":99,"value":{}}', 'unknown format 99'],
    ['a value the schema refuses', '{"format":1,"value":{"links":"x"}}', 'does not match the schema'],
  ])('ignores a file that is %s, and says so', async (_what, text, reason) => {
    const reports: string[] = [];
    const store = createStateStore({
      dir,
      name: 'last-good',
      schema: Schema,
      onCorrupted: (_p, r) => reports.push(r),
    });
    await writeFile(store.path, text);
    expect(await store.load()).toBeUndefined();
    expect(reports[0]).toContain(reason);
    expect(await readFile(store.path, 'utf8')).toBe(text); // kept for a post-mortem, never applied
  });

  it('removes temporary files a killed save left behind', async () => {
    const store = createStateStore({ dir, name: 'last-good', schema: Schema });
    await store.save({ links: [], frr: '' });
    await writeFile(join(dir, '.last-good.json.fabrik-tmp-deadbeef'), '{"format":1,');
    expect(await store.load()).toEqual({ links: [], frr: '' });
    expect(await readdir(dir)).toEqual(['last-good.json']);
  });

  it('a status file is rewritten only when something besides lastUpdate changed', async () => {
    const path = join(dir, 'status', 'netns.json');
    const sink = createStatusFile<{ configStatus: string; lastUpdate: string }>({ path });
    await sink.write({ configStatus: 'provisioned', lastUpdate: 't1' });
    const first = await stat(path);
    await sink.write({ configStatus: 'provisioned', lastUpdate: 't2' });
    expect((await stat(path)).ino).toBe(first.ino); // not rewritten
    await sink.write({ configStatus: 'invalid', lastUpdate: 't3' });
    expect(
      await readStatusFile(path, z.object({ configStatus: z.string(), lastUpdate: z.string() })),
    ).toEqual({
      configStatus: 'invalid',
      lastUpdate: 't3',
    });
    expect(await readStatusFile(join(dir, 'none.json'), z.unknown())).toBeUndefined();
  });

  it('keeps a creation journal: names accumulate on disk until cleared', async () => {
    const journal = createCreationJournal(join(dir, 'state'));
    expect(journal.path).toBe(join(dir, 'state', 'creating.json'));
    expect([...(await journal.load())]).toEqual([]);
    await journal.record(['vx100', 'br100']);
    await journal.record(['br100', 'br200']);
    // Another process (the restarted agent) reads what this one recorded.
    expect([...(await createCreationJournal(join(dir, 'state')).load())]).toEqual([
      'br100',
      'br200',
      'vx100',
    ]);
    await journal.clear();
    expect(await readdir(join(dir, 'state'))).toEqual([]);
  });
});
