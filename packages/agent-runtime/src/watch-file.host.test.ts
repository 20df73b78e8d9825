import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file.js';
import { watchFile } from './watch-file.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-watch-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('watchFile', () => {
  it('reports the content of a file replaced by rename, once per change, and its removal', async () => {
    const path = join(dir, 'status.json');
    const seen: (string | undefined)[] = [];
    const w = await watchFile(path, (c) => seen.push(c), { pollIntervalMs: 100 });
    try {
      expect(seen).toEqual([undefined]); // first read: not there yet
      await writeFileAtomic(path, '{"a":1}');
      await until('the first content', async () => seen.length === 2);
      expect(seen[1]).toBe('{"a":1}');
      await writeFileAtomic(path, '{"a":1}'); // same bytes: no change
      await writeFileAtomic(path, '{"a":2}');
      await until('the second content', async () => seen.length === 3);
      expect(seen[2]).toBe('{"a":2}');
      expect(w.current()).toBe('{"a":2}');
      await rm(path);
      await until('the removal', async () => seen.length === 4);
      expect(seen[3]).toBeUndefined();
    } finally {
      w.stop();
    }
  });

  it('notices a file in a directory that appears later (poll)', async () => {
    const sub = join(dir, 'later');
    const path = join(sub, 'status.json');
    const seen: (string | undefined)[] = [];
    const w = await watchFile(path, (c) => seen.push(c), { pollIntervalMs: 50 });
    try {
      await mkdir(sub);
      await writeFile(path, 'x');
      await until('the file', async () => seen.at(-1) === 'x');
    } finally {
      w.stop();
    }
  });
});
