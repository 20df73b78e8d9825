import { describe, expect, it } from 'vitest';
import { comment, insert, insertedUuid, selectedRows, where } from './index.js';

const U1 = '4ecd241b-eda3-485d-bb1e-bd17b73e727e';

describe('operation builders', () => {
  it('insert encodes decoded values and references named rows', () => {
    expect([
      ...insert('Interface', { name: 'p1', type: 'internal' }, 'iface'),
      ...insert('Port', {
        name: 'p1',
        interfaces: ['iface'],
        tag: 10,
        trunks: [1, 2],
        external_ids: { k: 'v' },
      }),
    ]).toEqual([
      { op: 'insert', table: 'Interface', row: { name: 'p1', type: 'internal' }, 'uuid-name': 'iface' },
      {
        op: 'insert',
        table: 'Port',
        row: {
          name: 'p1',
          interfaces: ['set', [['named-uuid', 'iface']]],
          tag: 10,
          trunks: ['set', [1, 2]],
          external_ids: ['map', [['k', 'v']]],
        },
      },
    ]);
  });

  it('where(...).update/mutate/delete/select/wait encode conditions and values by column type', () => {
    const q = where('Port', ['_uuid', '==', U1], ['external_ids', 'includes', { owner: 'x' }]);
    const w = [
      ['_uuid', '==', ['uuid', U1]],
      ['external_ids', 'includes', ['map', [['owner', 'x']]]],
    ];
    expect(q.update({ tag: null, vlan_mode: 'trunk' })).toEqual([
      { op: 'update', table: 'Port', where: w, row: { tag: ['set', []], vlan_mode: 'trunk' } },
    ]);
    expect(
      q.mutate(
        ['external_ids', 'delete', ['a']],
        ['external_ids', 'insert', { a: '1' }],
        ['trunks', 'insert', 5],
      ),
    ).toEqual([
      {
        op: 'mutate',
        table: 'Port',
        where: w,
        mutations: [
          ['external_ids', 'delete', ['set', ['a']]],
          ['external_ids', 'insert', ['map', [['a', '1']]]],
          ['trunks', 'insert', ['set', [5]]],
        ],
      },
    ]);
    expect(where('Open_vSwitch').mutate(['next_cfg', '+=', 1])).toEqual([
      { op: 'mutate', table: 'Open_vSwitch', where: [], mutations: [['next_cfg', '+=', 1]] },
    ]);
    expect(q.delete()).toEqual([{ op: 'delete', table: 'Port', where: w }]);
    expect(q.select('name')).toEqual([{ op: 'select', table: 'Port', where: w, columns: ['name'] }]);
    expect(
      where('Interface', ['name', '==', 'p1']).wait({
        columns: ['ofport'],
        until: '!=',
        rows: [{ ofport: null }],
        timeoutMs: 50,
      }),
    ).toEqual([
      {
        op: 'wait',
        table: 'Interface',
        where: [['name', '==', 'p1']],
        columns: ['ofport'],
        until: '!=',
        rows: [{ ofport: ['set', []] }],
        timeout: 50,
      },
    ]);
    expect(comment('x')).toEqual([{ op: 'comment', comment: 'x' }]);
  });

  it('rejects unknown columns and bad uuid-names before anything is sent', () => {
    expect(() => where('Port', ['nosuch' as 'name', '==', 1])).toThrow(/Port\.nosuch/);
    expect(() => insert('Port', { name: 'x' }, 'bad name')).toThrow(/uuid-name/);
  });

  it('decodes select rows and insert uuids', () => {
    expect(
      selectedRows('Port', {
        rows: [{ name: 'p1', tag: 7, trunks: ['set', [5, 6]], interfaces: ['uuid', U1] }],
      }),
    ).toEqual([{ name: 'p1', tag: 7, trunks: [5, 6], interfaces: [U1] }]);
    expect(insertedUuid({ uuid: ['uuid', U1] })).toBe(U1);
  });
});
