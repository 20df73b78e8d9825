// The informer against the real kube-apiserver (list/watch semantics: resourceVersions, bookmarks,
// 410 after etcd compaction, restarts with saved data), driven through client-node's Watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './backoff.js';
import { startInformer, type Informer, type InformerOptions } from './informer.js';
import { startNodeInformer } from './node.js';
import {
  createNode,
  memoryLogger,
  startTestCluster,
  Widget,
  widget,
  WIDGETS,
  type TestCluster,
} from './testing/cluster.js';

const FAST = { initialMs: 20, maxMs: 300, factor: 2, jitter: 0.5 };

let cluster: TestCluster;
const informers: Informer<unknown>[] = [];
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await Promise.all(informers.map((i) => i.stop()));
  await cluster.server.destroy();
});

/** An informer on the widgets of one test (label `test=<id>`), recording what each notification saw. */
function widgetInformer(id: string, extra: Partial<InformerOptions<Widget>> = {}) {
  const seen: [string, number | undefined][] = [];
  const invalid: string[] = [];
  const informer: Informer<Widget> = startInformer({
    kc: cluster.kc,
    ...WIDGETS,
    labelSelector: { matchLabels: { test: id } },
    parse: Widget,
    backoff: FAST,
    log: memoryLogger(),
    onChange: (key) => {
      seen.push([key, informer.get(key)?.spec?.size]);
    },
    onInvalid: (key) => {
      invalid.push(key);
    },
    ...extra,
  });
  informers.push(informer);
  return { informer, seen, invalid };
}

/** What the server has, as the informer should see it: name -> size. */
async function serverState(id: string): Promise<Record<string, number | undefined>> {
  const { items } = await cluster.widgets.list({ labelSelector: `test=${id}` });
  return Object.fromEntries(items.map((w) => [w.metadata.name, w.spec?.size]));
}
const cacheState = (informer: Informer<Widget>): Record<string, number | undefined> =>
  Object.fromEntries(informer.list().map((w) => [w.metadata.name, w.spec?.size]));

describe('startInformer', () => {
  it('lists, then sees create, update and delete in order, each with the cache already updated', async () => {
    await cluster.widgets.create(widget('order-pre', { test: 'order' }, { size: 0 }));
    await cluster.widgets.create(widget('order-other', { test: 'not-this-one' }, { size: 9 }));
    const { informer, seen } = widgetInformer('order');
    expect(informer.hasSynced()).toBe(false);
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
    expect(informer.keys()).toEqual(['order-pre']);

    await cluster.widgets.create(widget('order-a', { test: 'order' }, { size: 1 }));
    await cluster.widgets.patch('order-a', { spec: { size: 2 } });
    await cluster.widgets.patch('order-a', { spec: { size: 3 } });
    await cluster.widgets.delete('order-a');
    await expect.poll(() => seen.length).toBe(5);
    expect(seen).toEqual([
      ['order-pre', 0],
      ['order-a', 1],
      ['order-a', 2],
      ['order-a', 3],
      ['order-a', undefined],
    ]);
    expect(informer.get('order-a')).toBeUndefined();
    expect(informer.get('order-pre')?.spec?.size).toBe(0);

    // Writes it does not select still move its resourceVersion forward, through bookmarks: a resume
    // after a dropped connection starts from there instead of replaying them. kube-apiserver sends
    // a watch a bookmark about once a minute, carrying its latest revision (the server's own lease
    // renewals move it too, so it may be past this list's).
    await cluster.widgets.create(widget('order-elsewhere', { test: 'elsewhere' }));
    const { resourceVersion: latest } = await cluster.widgets.list();
    await expect
      .poll(() => Number(informer.stats().resourceVersion), { timeout: 100_000, interval: 500 })
      .toBeGreaterThanOrEqual(Number(latest));
    expect(seen).toHaveLength(5);
  }, 120_000);

  it('survives a forced 410 (compaction) by relisting: final state exact, deletions notified', async () => {
    for (const n of [1, 2, 3])
      await cluster.widgets.create(widget(`gone-${n}`, { test: 'gone' }, { size: n }));
    const { informer, seen } = widgetInformer('gone');
    await informer.waitForSync();
    const before = informer.stats();

    await cluster.server.compact();
    // Written around the cut: seen either by the relist or by the new watch, never lost or doubled.
    await cluster.widgets.delete('gone-1');
    await cluster.widgets.patch('gone-2', { spec: { size: 7 } });
    await cluster.widgets.create(widget('gone-4', { test: 'gone' }, { size: 4 }));

    await expect.poll(() => informer.stats().relistsAfterGone).toBeGreaterThan(before.relistsAfterGone);
    const expected = await serverState('gone');
    expect(expected).toEqual({ 'gone-2': 7, 'gone-3': 3, 'gone-4': 4 });
    await expect.poll(() => cacheState(informer)).toEqual(expected);
    expect(informer.stats().lists).toBeGreaterThan(before.lists);
    expect(seen).toContainEqual(['gone-1', undefined]);
    expect(seen).toContainEqual(['gone-2', 7]);
    expect(seen).toContainEqual(['gone-4', 4]);

    // And it keeps watching after the relist.
    await cluster.widgets.patch('gone-3', { spec: { size: 8 } });
    await expect.poll(() => informer.get('gone-3')?.spec?.size).toBe(8);
  });

  it('100 concurrent writes with a compaction in the middle: the cache ends equal to the server', async () => {
    const { informer } = widgetInformer('churn');
    await informer.waitForSync();
    const names = Array.from({ length: 50 }, (_, i) => `churn-${i}`);
    await Promise.all(
      names.map((n, i) => cluster.widgets.create(widget(n, { test: 'churn' }, { size: i % 10 }))),
    );
    await cluster.server.compact();
    await Promise.all([
      ...names.filter((_, i) => i % 2 === 0).map((n) => cluster.widgets.delete(n)),
      ...names.filter((_, i) => i % 2 === 1).map((n) => cluster.widgets.patch(n, { spec: { size: 10 } })),
    ]);
    const expected = await serverState('churn');
    expect(Object.keys(expected)).toHaveLength(25);
    await expect.poll(() => cacheState(informer)).toEqual(expected);
  });

  it('survives a server restart: what was written meanwhile is seen after (reconnect time logged)', async () => {
    await cluster.widgets.create(widget('restart-1', { test: 'restart' }, { size: 1 }));
    const { informer } = widgetInformer('restart');
    await informer.waitForSync();

    await cluster.server.stop();
    await expect.poll(() => informer.stats().watching).toBe(false);
    const started = performance.now();
    await cluster.server.start();
    // Written while the informer's watch is still down (it is backing off).
    await cluster.widgets.patch('restart-1', { spec: { size: 5 } });
    await cluster.widgets.create(widget('restart-2', { test: 'restart' }, { size: 2 }));

    await expect.poll(() => informer.stats().watching, { timeout: 10_000 }).toBe(true);
    const reconnectMs = performance.now() - started;
    await expect.poll(() => cacheState(informer)).toEqual({ 'restart-1': 5, 'restart-2': 2 });
    const caughtUpMs = performance.now() - started;
    console.log(
      `informer after API server restart: watching again after ${reconnectMs.toFixed(0)} ms, ` +
        `caught up after ${caughtUpMs.toFixed(0)} ms (backoff ${FAST.initialMs}-${FAST.maxMs} ms)`,
    );
  });

  it('counts as synced only after a list that succeeded', async () => {
    await cluster.server.stop();
    const { informer } = widgetInformer('sync');
    try {
      await expect.poll(() => informer.stats().failures).toBeGreaterThanOrEqual(2);
      expect(informer.hasSynced()).toBe(false);
    } finally {
      await cluster.server.start();
    }
    await informer.waitForSync();
    expect(informer.hasSynced()).toBe(true);
  });

  it('resync re-emits every cached key without any change on the server', async () => {
    await cluster.widgets.create(widget('resync-1', { test: 'resync' }, { size: 1 }));
    const { informer, seen } = widgetInformer('resync', { resyncIntervalMs: 100 });
    await informer.waitForSync();
    await expect.poll(() => seen.filter(([k]) => k === 'resync-1').length).toBeGreaterThanOrEqual(4);
    expect(new Set(seen.map(([k, size]) => `${k}:${size}`))).toEqual(new Set(['resync-1:1']));
  });

  it('keeps objects that parse refuses out of the cache, reports them, and takes them back once fixed', async () => {
    const { informer, invalid, seen } = widgetInformer('invalid');
    await informer.waitForSync();
    await cluster.rawWidgets.create(widget('invalid-1', { test: 'invalid' }, { size: 1, color: 'green' }));
    await expect.poll(() => invalid).toEqual(['invalid-1']);
    expect(informer.get('invalid-1')).toBeUndefined();
    expect([...informer.invalid().keys()]).toEqual(['invalid-1']);
    expect(seen).toContainEqual(['invalid-1', undefined]);

    await cluster.widgets.patch('invalid-1', { spec: { color: 'red' } });
    await expect.poll(() => informer.get('invalid-1')?.spec?.color).toBe('red');
    expect(informer.invalid().size).toBe(0);
  });

  it('catches and logs handler errors, thrown or rejected, and goes on', async () => {
    const log = memoryLogger();
    let calls = 0;
    const { informer } = widgetInformer('throw', {
      log,
      onChange: async (key) => {
        calls++;
        if (key === 'throw-1') throw new Error('handler broke');
      },
      onInvalid: () => {
        throw new Error('invalid handler broke');
      },
    });
    await informer.waitForSync();
    await cluster.widgets.create(widget('throw-1', { test: 'throw' }, { size: 1 }));
    await cluster.rawWidgets.create(widget('throw-2', { test: 'throw' }, { color: 'green' }));
    await cluster.widgets.create(widget('throw-3', { test: 'throw' }, { size: 3 }));
    await expect.poll(() => informer.get('throw-3')?.spec?.size).toBe(3);
    await expect.poll(() => calls).toBe(3);
    const errors = log.lines.filter((l) => l.level === 'error');
    expect(
      errors.map(
        (l) => (l.obj as { handler: string; key: string }).handler + ':' + (l.obj as { key: string }).key,
      ),
    ).toEqual(['onChange:throw-1', 'onInvalid:throw-2']);
  });

  it('watches one Node by name (field selector)', async () => {
    await createNode(cluster, 'field-1', { role: 'a' });
    await createNode(cluster, 'field-2');
    const keys: string[] = [];
    const informer = startNodeInformer({
      kc: cluster.kc,
      nodeName: 'field-1',
      backoff: FAST,
      log: memoryLogger(),
      onChange: (k) => void keys.push(k),
    });
    informers.push(informer);
    await informer.waitForSync();
    expect(informer.keys()).toEqual(['field-1']);
    await cluster.nodes.patch('field-2', { metadata: { labels: { role: 'b' } } });
    await cluster.nodes.patch('field-1', { metadata: { labels: { role: 'c' } } });
    await expect.poll(() => informer.get('field-1')?.metadata.labels?.role).toBe('c');
    expect(new Set(keys)).toEqual(new Set(['field-1']));
  });

  it('stop() ends everything: no handler call after, waitForSync of an unsynced informer rejects', async () => {
    const { informer, seen } = widgetInformer('stop');
    await informer.waitForSync();
    await informer.stop();
    await cluster.widgets.create(widget('stop-1', { test: 'stop' }, { size: 1 }));
    await sleep(300);
    expect(seen).toEqual([]);

    await cluster.server.stop();
    try {
      const { informer: never } = widgetInformer('never');
      const waiting = never.waitForSync();
      await never.stop();
      await expect(waiting).rejects.toThrow(/stopped before its first list/);
    } finally {
      await cluster.server.start();
    }
  });
});

describe('staleness watchdog', () => {
  let quiet: TestCluster;
  beforeAll(async () => {
    // kube-apiserver sends bookmarks about once a minute: a watch without events looks dead to a
    // 300 ms watchdog.
    quiet = await startTestCluster();
  });
  afterAll(() => quiet.server.destroy());

  it('re-watches from the last resourceVersion when nothing arrives for staleAfterMs, missing nothing', async () => {
    await quiet.widgets.create(widget('stale-1', { test: 'stale' }, { size: 1 }));
    const informer = startInformer({
      kc: quiet.kc,
      ...WIDGETS,
      parse: Widget,
      staleAfterMs: 300,
      backoff: FAST,
      log: memoryLogger(),
    });
    informers.push(informer);
    await informer.waitForSync();
    await expect.poll(() => informer.stats().staleRestarts).toBeGreaterThanOrEqual(2);
    expect(informer.stats().relistsAfterGone).toBe(0);
    expect(informer.stats().lists).toBe(1);
    await quiet.widgets.patch('stale-1', { spec: { size: 6 } });
    await expect.poll(() => informer.get('stale-1')?.spec?.size).toBe(6);
  });
});
