import { mkdir, mkdtemp, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileSource, writeIntentFile } from './file-source.js';
import type { IntentSource } from './intent.js';

const vrf = (name: string) => ({
  apiVersion: 'network.fabrik.dev/v1alpha1',
  kind: 'VRF',
  metadata: { name },
  spec: { vni: 1001 },
});

/** Resolves with the next change reason the source reports. */
function changes() {
  const seen: string[] = [];
  let waiter: (() => void) | undefined;
  return {
    seen,
    onChange: (reason: string) => {
      seen.push(reason);
      waiter?.();
    },
    /** Resolves once `count` changes have been reported in all. */
    async next(count: number): Promise<void> {
      while (seen.length < count) await new Promise<void>((r) => (waiter = r));
    },
  };
}

describe('file source (real files)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-source-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  const started = async (source: IntentSource, onChange: (r: string) => void) => {
    cleanup.push(() => source.stop());
    await source.start(onChange);
    return source;
  };

  it('reads the file at start and follows atomic replacements (rename over it)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    await writeIntentFile(path, [vrf('red')]);
    const c = changes();
    const source = await started(createFileSource({ path }), c.onChange);
    expect(source.hasSynced()).toBe(true);
    expect(source.snapshot().objects.map((o) => o.metadata.name)).toEqual(['red']);
    const t0 = performance.now();
    await writeIntentFile(path, [vrf('red'), vrf('blue')]);
    await c.next(2);
    console.log(`file source: change seen ${Math.round(performance.now() - t0)} ms after the rename`);
    expect(source.snapshot().objects.map((o) => o.metadata.name)).toEqual(['red', 'blue']);
  });

  it('a missing file is "not synced yet"; its appearance syncs the source', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    const c = changes();
    const source = await started(createFileSource({ path }), c.onChange);
    expect(source.hasSynced()).toBe(false);
    expect(c.seen).toEqual([]);
    await writeIntentFile(path, []);
    await c.next(1);
    expect(source.hasSynced()).toBe(true);
    expect(source.snapshot()).toEqual({ objects: [], problems: [] });
  });

  it('a file that is not YAML keeps the last good objects and reports the problem', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    await writeIntentFile(path, [vrf('red')]);
    const c = changes();
    const source = await started(createFileSource({ path }), c.onChange);
    await writeFile(join(dir, 'tmp'), 'kind: [\n');
    await rename(join(dir, 'tmp'), path);
    await c.next(2);
    const s = source.snapshot();
    expect(s.objects.map((o) => o.metadata.name)).toEqual(['red']);
    // A relay file was read: what follows must be one too.
    expect(s.problems).toEqual([
      { where: 'intent.yaml', message: expect.stringContaining('no relay header') },
    ]);
  });

  it('a relay file cut short, emptied, older or rewritten without its header keeps the last good objects', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    await writeIntentFile(path, [vrf('red'), vrf('blue')]);
    const good = await readFile(path, 'utf8');
    expect(good).toMatch(/^apiVersion: relay\.fabrik\.dev\/v1\nkind: RelayHeader\n/);
    expect(good).toContain('  sequence: 1\n');
    await writeIntentFile(path, [vrf('red'), vrf('blue'), vrf('green')]);
    expect(await readFile(path, 'utf8')).toContain('  sequence: 2\n');
    const newest = await readFile(path, 'utf8');
    const c = changes();
    const source = await started(createFileSource({ path, requireRelayHeader: true }), c.onChange);
    const names = () => source.snapshot().objects.map((o) => o.metadata.name);
    expect(names()).toEqual(['red', 'blue', 'green']);
    /** Replaces the file; resolves with the problems once the source has read it (each step's differ). */
    const replace = async (text: string) => {
      const before = JSON.stringify(source.snapshot().problems);
      await writeFile(join(dir, 'tmp'), text);
      await rename(join(dir, 'tmp'), path);
      for (let i = 0; i < 100 && JSON.stringify(source.snapshot().problems) === before; i++)
        await new Promise((r) => setTimeout(r, 50));
      return source.snapshot().problems.map((p) => p.message);
    };
    expect(await replace(newest.slice(0, newest.length - 20))).toEqual([expect.stringContaining('digest')]);
    expect(names()).toEqual(['red', 'blue', 'green']);
    expect(await replace('')).toEqual([expect.stringContaining('no relay header')]);
    expect(await replace(newest.slice(0, 30))).toEqual([expect.stringContaining('cut short')]);
    expect(await replace(good)).toEqual([expect.stringContaining('older than 2')]);
    expect(await replace(newest.replace('RelayHeader', 'Nothing'))).toEqual([
      expect.stringContaining('not readable'),
    ]);
    expect(names()).toEqual(['red', 'blue', 'green']);
    // A good write with a newer sequence is taken.
    await writeIntentFile(path, [vrf('red')]);
    for (let i = 0; i < 100 && names().length > 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect(names()).toEqual(['red']);
    expect(source.snapshot().problems).toEqual([]);
  });

  it('a relay file the source must read is not taken without a header at start (nothing is deleted)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    await writeFile(path, '');
    const c = changes();
    const source = await started(createFileSource({ path, requireRelayHeader: true }), c.onChange);
    expect(source.hasSynced()).toBe(false);
  });

  it('an unchanged rewrite is not a change', async () => {
    const dir = await tempDir();
    const path = join(dir, 'intent.yaml');
    await writeIntentFile(path, [vrf('red')]);
    const c = changes();
    await started(createFileSource({ path }), c.onChange);
    await writeIntentFile(path, [vrf('red')]); // same bytes, new inode
    await writeIntentFile(path, [vrf('blue')]);
    await c.next(2);
    expect(c.seen).toHaveLength(2); // the start, then blue: the identical rewrite made no change
  });

  it('finds the file by polling when its directory did not exist at start (no watch possible)', async () => {
    const dir = join(await tempDir(), 'relay');
    const path = join(dir, 'intent.yaml');
    const c = changes();
    const errors: Error[] = [];
    const source = await started(
      createFileSource({ path, pollIntervalMs: 50, onError: (e) => errors.push(e) }),
      c.onChange,
    );
    expect(errors.length).toBeGreaterThan(0); // the watch failed: ENOENT
    await mkdir(dir);
    await writeIntentFile(path, [vrf('red')]);
    await c.next(1);
    expect(source.snapshot().objects.map((o) => o.metadata.name)).toEqual(['red']);
  });
});
