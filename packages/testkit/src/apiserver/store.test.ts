import { mkdtempSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from './json.js';
import { Store, type StoredEvent } from './store.js';

const R = 'network.fabrik.dev/vrfs';

function vrf(name: string, vni: number): JsonObject {
  return { metadata: { name }, spec: { vni } };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function names(objects: JsonObject[]): string[] {
  return objects.map(
    (o) =>
      `${(o.metadata as { name: string }).name}@${(o.metadata as { resourceVersion: string }).resourceVersion}`,
  );
}

describe('Store', () => {
  it('stamps one increasing resourceVersion across resources and reads past states exactly', () => {
    const store = new Store({ dir: undefined, historyLimit: 100 });
    store.commit('ADDED', R, vrf('b', 1));
    store.commit('ADDED', 'core/nodes', { metadata: { name: 'n' } });
    store.commit('ADDED', R, vrf('a', 2));
    store.commit('MODIFIED', R, vrf('b', 3));
    store.commit('DELETED', R, vrf('a', 2));
    expect(store.resourceVersion).toBe(5);
    expect(names(store.list(R, undefined))).toEqual(['b@4']);
    expect(names(store.list(R, undefined, 3))).toEqual(['a@3', 'b@1']);
    expect(names(store.list(R, undefined, 1))).toEqual(['b@1']);
    expect(names(store.list(R, undefined, 0))).toEqual([]);
  });

  it('replays history after a version, then streams, and answers 410 before the window', () => {
    const store = new Store({ dir: undefined, historyLimit: 2 });
    for (let i = 1; i <= 4; i++) store.commit('ADDED', R, vrf(`v${i}`, i));
    const seen: number[] = [];
    const stop = store.watch(2, (e: StoredEvent) => seen.push(e.rv));
    store.commit('MODIFIED', R, vrf('v1', 10));
    stop();
    store.commit('MODIFIED', R, vrf('v1', 11));
    expect(seen).toEqual([3, 4, 5]);
    const fromFuture: number[] = [];
    store.watch(7, (e) => fromFuture.push(e.rv));
    for (let i = 0; i < 3; i++) store.commit('MODIFIED', R, vrf('v2', 20 + i));
    expect(fromFuture).toEqual([8, 9]);
    expect(() => store.watch(1, () => undefined)).toThrow('too old resource version');
    expect(() => store.list(R, undefined, 1)).toThrow('too old resource version');
  });

  it('compact() expires every earlier version', () => {
    const store = new Store({ dir: undefined, historyLimit: 100 });
    store.commit('ADDED', R, vrf('a', 1));
    store.compact();
    expect(() => store.watch(1, () => undefined)).toThrow(
      expect.objectContaining({ code: 410, reason: 'Expired' }),
    );
    expect(() => store.watch(store.resourceVersion, () => undefined)).not.toThrow();
  });

  it('persists objects, versions and history, surviving a torn last log line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fabrik-store-'));
    dirs.push(dir);
    const first = new Store({ dir, historyLimit: 100 });
    first.commit('ADDED', R, vrf('a', 1));
    first.persistSnapshot();
    first.commit('ADDED', R, vrf('b', 2));
    first.commit('MODIFIED', R, vrf('a', 3));
    appendFileSync(join(dir, 'events.jsonl'), '{"rv":4,"type":"ADD');
    const second = new Store({ dir, historyLimit: 100 });
    expect(second.resourceVersion).toBe(3);
    expect(names(second.list(R, undefined))).toEqual(['a@3', 'b@2']);
    const replayed: number[] = [];
    second.watch(0, (e) => replayed.push(e.rv));
    expect(replayed).toEqual([1, 2, 3]);
    second.commit('DELETED', R, vrf('b', 2));
    expect(new Store({ dir, historyLimit: 100 }).resourceVersion).toBe(4);
  });
});
