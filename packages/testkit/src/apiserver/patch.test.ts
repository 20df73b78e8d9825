import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch, strategicMergePatch, type PatchStrategies } from './patch.js';

const nodeStrategies: PatchStrategies = {
  'status.conditions': { mergeKey: 'type' },
  'metadata.finalizers': { primitiveSet: true },
};

const node = {
  metadata: { name: 'n1', labels: { a: '1' }, finalizers: ['x'] },
  spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'MemoryPressure', status: 'False' },
    ],
  },
};

describe('JSON merge patch (RFC 7386)', () => {
  it('merges objects, replaces lists and deletes nulls', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 }, l: [1, 2] }, { b: { c: null, e: 4 }, l: [3] })).toEqual({
      a: 1,
      b: { d: 3, e: 4 },
      l: [3],
    });
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('applies add, remove, replace, move, copy and test in order', () => {
    const out = jsonPatch({ a: { b: 1 }, l: [1, 2] }, [
      { op: 'add', path: '/l/-', value: 3 },
      { op: 'add', path: '/l/0', value: 0 },
      { op: 'replace', path: '/a/b', value: 2 },
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'move', from: '/c/b', path: '/d' },
      { op: 'remove', path: '/l/1' },
      { op: 'test', path: '/d', value: 2 },
      { op: 'add', path: '/x~1y', value: true },
    ]);
    expect(out).toEqual({ a: { b: 2 }, c: {}, d: 2, l: [0, 2, 3], 'x/y': true });
  });

  it('fails on a failed test or a missing path, leaving the input alone', () => {
    const input = { a: 1 };
    expect(() => jsonPatch(input, [{ op: 'test', path: '/a', value: 2 }])).toThrow('test failed');
    expect(() => jsonPatch(input, [{ op: 'remove', path: '/b' }])).toThrow('missing');
    expect(() => jsonPatch(input, [{ op: 'replace', path: '/x/y', value: 1 }])).toThrow('missing');
    expect(input).toEqual({ a: 1 });
  });
});

describe('strategic merge patch', () => {
  it('merges Node conditions by type and keeps the ones it does not name', () => {
    const out = strategicMergePatch(
      node,
      {
        status: {
          conditions: [
            { type: 'Fabrik', status: 'True' },
            { type: 'Ready', status: 'False' },
          ],
        },
      },
      nodeStrategies,
    );
    expect(out.status).toEqual({
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Fabrik', status: 'True' },
      ],
    });
  });

  it('replaces lists without a strategy (Node taints) and unions primitive sets (finalizers)', () => {
    const out = strategicMergePatch(
      node,
      { spec: { taints: [{ key: 'j', effect: 'NoExecute' }] }, metadata: { finalizers: ['y', 'x'] } },
      nodeStrategies,
    );
    expect(out.spec).toEqual({ taints: [{ key: 'j', effect: 'NoExecute' }] });
    expect((out.metadata as { finalizers: string[] }).finalizers).toEqual(['x', 'y']);
  });

  it('honours $patch: delete, $patch: replace, $deleteFromPrimitiveList and $setElementOrder', () => {
    const deleted = strategicMergePatch(
      node,
      { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } },
      nodeStrategies,
    );
    expect(deleted.status).toEqual({ conditions: [{ type: 'MemoryPressure', status: 'False' }] });
    const replaced = strategicMergePatch(
      node,
      { status: { conditions: [{ type: 'Only', status: 'True' }, { $patch: 'replace' }] } },
      nodeStrategies,
    );
    expect(replaced.status).toEqual({ conditions: [{ type: 'Only', status: 'True' }] });
    const removed = strategicMergePatch(
      node,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } },
      nodeStrategies,
    );
    expect((removed.metadata as { finalizers: string[] }).finalizers).toEqual([]);
    const ordered = strategicMergePatch(
      node,
      {
        status: {
          '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
          conditions: [{ type: 'Ready', status: 'Unknown' }],
        },
      },
      nodeStrategies,
    );
    expect(ordered.status).toEqual({
      conditions: [
        { type: 'MemoryPressure', status: 'False' },
        { type: 'Ready', status: 'Unknown' },
      ],
    });
    const mapDeleted = strategicMergePatch(
      node,
      { metadata: { labels: { $patch: 'replace', b: '2' } } },
      nodeStrategies,
    );
    expect((mapDeleted.metadata as { labels: object }).labels).toEqual({ b: '2' });
  });

  it('refuses a list item without its merge key', () => {
    expect(() =>
      strategicMergePatch(node, { status: { conditions: [{ status: 'True' }] } }, nodeStrategies),
    ).toThrow('does not contain declared merge key: type');
  });
});
