import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStatusFile } from './status-file.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('createStatusFile', () => {
  it('writes only changes, and with a heartbeat rewrites the last status stamped afresh', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-status-'));
    dirs.push(dir);
    const path = join(dir, 'status.json');
    const read = async () => JSON.parse(await readFile(path, 'utf8')) as { state: string; at: string };
    const sink = createStatusFile<{ state: string; at: string }>({
      path,
      volatile: ['at'],
      heartbeat: { everyMs: 200, stamp: (s, now) => ({ ...s, at: now.toISOString() }) },
    });
    await sink.write({ state: 'ready', at: 'first' });
    await sink.write({ state: 'ready', at: 'second' }); // only the volatile field changed: not written
    expect(await read()).toEqual({ state: 'ready', at: 'first' });
    await new Promise((r) => setTimeout(r, 500));
    const beat = await read();
    expect(beat.state).toBe('ready');
    expect(Date.now() - Date.parse(beat.at)).toBeLessThan(400);
  });
});
