// The status writer against the test API server: sections merged, never lost, under concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOwnerReference } from './node.js';
import { createStatusWriter, type StatusWriter } from './status-writer.js';
import { createNode, startTestCluster, widget, WIDGETS, type TestCluster } from './testing/cluster.js';
import { setCondition } from './conditions.js';

let cluster: TestCluster;
let writer: StatusWriter;
beforeAll(async () => {
  cluster = await startTestCluster();
  writer = createStatusWriter({ kc: cluster.kc, resource: WIDGETS });
});
afterAll(() => cluster.server.destroy());

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('createStatusWriter', () => {
  it('writes a section only when it differs, and removes keys the section no longer has', async () => {
    await cluster.widgets.create(widget('diff', {}, { size: 1 }));
    const first = await writer.write({
      name: 'diff',
      section: 'netns',
      status: { configStatus: 'invalid', errorMessage: 'x' },
    });
    expect(first.written).toBe(true);
    const again = await writer.write({
      name: 'diff',
      section: 'netns',
      status: { errorMessage: 'x', configStatus: 'invalid' },
    });
    expect(again).toMatchObject({ written: false, resourceVersion: first.resourceVersion });

    await writer.write({ name: 'diff', section: 'netns', status: { configStatus: 'provisioned' } });
    expect((await cluster.widgets.get('diff')).status).toEqual({ netns: { configStatus: 'provisioned' } });
    // The spec is not the writer's: untouched, and no generation bump from status writes.
    const object = await cluster.widgets.get('diff');
    expect(object.spec).toEqual({ size: 1 });
    expect(object.metadata.generation).toBe(1);
  });

  it('10 concurrent writers of different sections: every section is there', async () => {
    await cluster.widgets.create(widget('sections', {}));
    const results = await Promise.all(
      range(10).map((i) =>
        writer.write({ name: 'sections', section: `s${i}`, status: { writer: i, items: [i, i] } }),
      ),
    );
    expect(results.every((r) => r.written)).toBe(true);
    const { status } = await cluster.widgets.get('sections');
    expect(status).toEqual(Object.fromEntries(range(10).map((i) => [`s${i}`, { writer: i, items: [i, i] }])));
  });

  it("10 concurrent writers of one section: it ends as exactly one writer's value, never a mix", async () => {
    await cluster.widgets.create(widget('same', {}));
    await writer.write({ name: 'same', section: 'host', status: { keep: 'host section' } });
    const results = await Promise.all(
      range(10).map((i) =>
        writer.write({ name: 'same', section: 'netns', status: { writer: i, [`only${i}`]: true } }),
      ),
    );
    // Each writer's value differs from every other: each one had to be written once.
    expect(results.map((r) => r.written)).toEqual(range(10).map(() => true));
    const { status } = await cluster.widgets.get('same');
    const netns = status?.netns as { writer: number };
    expect(netns).toEqual({ writer: netns.writer, [`only${netns.writer}`]: true });
    expect(status?.host).toEqual({ keep: 'host section' });
    console.log(
      `same-section writers: ${results.reduce((n, r) => n + r.conflicts, 0)} conflicts resolved by retry`,
    );
  });

  it('two agents, five writes each to their own section, interleaved: neither section lost', async () => {
    await cluster.widgets.create(widget('agents', {}));
    await Promise.all(
      range(10).map((i) =>
        writer.write({
          name: 'agents',
          section: i % 2 === 0 ? 'netns' : 'host',
          status: { round: i, configStatus: 'provisioned' },
        }),
      ),
    );
    const { status } = await cluster.widgets.get('agents');
    expect(Object.keys(status ?? {}).sort()).toEqual(['host', 'netns']);
    expect(status?.netns).toMatchObject({ configStatus: 'provisioned' });
    expect(status?.host).toMatchObject({ configStatus: 'provisioned' });
  });

  it('computes the section from what is there: conditions keep their lastTransitionTime', async () => {
    await cluster.widgets.create(widget('conditions', {}));
    const write = (status: 'True' | 'False', at: string) =>
      writer.write({
        name: 'conditions',
        section: 'netns',
        status: (current: unknown) => {
          const conditions = (current as { conditions?: [] } | undefined)?.conditions;
          return {
            conditions: setCondition(
              conditions,
              { type: 'Ready', status, reason: 'Applied', message: '' },
              new Date(at),
            ).conditions,
          };
        },
      });
    await write('True', '2026-11-30T10:00:00Z');
    expect((await write('True', '2026-11-30T11:00:00Z')).written).toBe(false);
    await write('False', '2026-11-30T12:00:00Z');
    const { status } = await cluster.widgets.get('conditions');
    expect(status?.netns).toEqual({
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'Applied',
          message: '',
          lastTransitionTime: '2026-11-30T12:00:00Z',
        },
      ],
    });
  });

  it('stamps the stamp field on writes only', async () => {
    let now = new Date('2026-11-30T10:00:00Z');
    const stamping = createStatusWriter({
      kc: cluster.kc,
      resource: WIDGETS,
      stampField: 'lastUpdate',
      clock: () => now,
    });
    await cluster.widgets.create(widget('stamp', {}));
    await stamping.write({ name: 'stamp', section: 'netns', status: { configStatus: 'provisioned' } });
    now = new Date('2026-11-30T11:00:00Z');
    expect(
      (await stamping.write({ name: 'stamp', section: 'netns', status: { configStatus: 'provisioned' } }))
        .written,
    ).toBe(false);
    expect((await cluster.widgets.get('stamp')).status?.netns).toEqual({
      configStatus: 'provisioned',
      lastUpdate: '2026-11-30T10:00:00Z',
    });
  });

  it('creates the object when missing, owned by the Node of the same name (garbage-collected with it)', async () => {
    const node = await createNode(cluster, 'owner-node');
    const creating = createStatusWriter({
      kc: cluster.kc,
      resource: WIDGETS,
      create: async (name) => ({
        apiVersion: 'test.fabrik.dev/v1',
        kind: 'Widget',
        metadata: { name, ownerReferences: [await nodeOwnerReference(cluster.kc, name)] },
      }),
    });
    const result = await creating.write({
      name: 'owner-node',
      section: 'host',
      status: { configStatus: 'provisioning' },
    });
    expect(result).toMatchObject({ written: true, created: true });
    const object = await cluster.widgets.get('owner-node');
    expect(object.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'owner-node', uid: node.metadata.uid },
    ]);
    expect(object.status).toEqual({ host: { configStatus: 'provisioning' } });
  });

  it('concurrent first writes of two sections to a missing object: created once, both sections there', async () => {
    const creating = createStatusWriter({
      kc: cluster.kc,
      resource: WIDGETS,
      create: (name) => widget(name, {}),
    });
    await Promise.all([
      creating.write({ name: 'race', section: 'netns', status: { a: 1 } }),
      creating.write({ name: 'race', section: 'host', status: { b: 2 } }),
    ]);
    expect((await cluster.widgets.get('race')).status).toEqual({ netns: { a: 1 }, host: { b: 2 } });
  });
});
