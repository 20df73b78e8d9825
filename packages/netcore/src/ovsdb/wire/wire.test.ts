import { describe, expect, it } from 'vitest';
import { isOvsdbInvalidInputError, isOvsdbProtocolError } from '../errors.js';
import { vswitchColumns } from '../model/index.js';
import {
  applyColumnDiff,
  decodeRow,
  decodeValue,
  encodeRow,
  encodeValue,
  JsonStreamDecoder,
} from './index.js';

const U1 = '4ecd241b-eda3-485d-bb1e-bd17b73e727e';
const U2 = 'c50e6f94-a9c4-4e4d-bec8-7c0d49dead02';
const port = vswitchColumns.Port;

describe('encodeValue', () => {
  it('encodes sets, maps, optional values and uuids', () => {
    expect(encodeValue(port.trunks, [10, 20], 'trunks')).toEqual(['set', [10, 20]]);
    expect(encodeValue(port.tag, 100, 'tag')).toBe(100);
    expect(encodeValue(port.tag, null, 'tag')).toEqual(['set', []]);
    expect(encodeValue(port.external_ids, { a: '1' }, 'external_ids')).toEqual(['map', [['a', '1']]]);
    expect(encodeValue(port.interfaces, [U1, 'iface0'], 'interfaces')).toEqual([
      'set',
      [
        ['uuid', U1],
        ['named-uuid', 'iface0'],
      ],
    ]);
    expect(encodeValue(vswitchColumns.Bridge.flow_tables, new Map([[3, U1]]), 'flow_tables')).toEqual([
      'map',
      [[3, ['uuid', U1]]],
    ]);
  });

  it('an array for a map column is a set of keys (map delete mutation)', () => {
    expect(encodeValue(port.external_ids, ['a', 'b'], 'external_ids')).toEqual(['set', ['a', 'b']]);
  });

  it('rejects values of the wrong type, naming the field', () => {
    const bad = [
      () => encodeValue(port.tag, 'x', 'Port.tag'),
      () => encodeValue(port.tag, 1.5, 'Port.tag'),
      () => encodeValue(port.name, null, 'Port.name'),
      () => encodeValue(port.external_ids, { a: 1 }, 'Port.external_ids'),
      () => encodeValue(port.interfaces, ['not a uuid-name!'], 'Port.interfaces'),
      () => encodeRow(port, 'Port', { nosuch: 1 }),
    ];
    for (const f of bad) {
      const e = (() => {
        try {
          f();
        } catch (err) {
          return err;
        }
        return undefined;
      })();
      expect(isOvsdbInvalidInputError(e)).toBe(true);
    }
    expect(() => encodeValue(port.tag, 'x', 'Port.tag')).toThrow(/Port\.tag/);
  });
});

describe('decodeValue', () => {
  it('accepts one-element sets sent as bare atoms', () => {
    expect(decodeValue(port.interfaces, ['uuid', U1], 'interfaces')).toEqual([U1]);
    expect(
      decodeValue(
        port.interfaces,
        [
          'set',
          [
            ['uuid', U1],
            ['uuid', U2],
          ],
        ],
        'interfaces',
      ),
    ).toEqual([U1, U2]);
    expect(decodeValue(port.trunks, 5, 'trunks')).toEqual([5]);
    expect(decodeValue(port.tag, 7, 'tag')).toBe(7);
    expect(decodeValue(port.tag, ['set', []], 'tag')).toBeUndefined();
    expect(decodeValue(port.tag, ['set', [7]], 'tag')).toBe(7);
  });

  it('decodes maps to records (string keys) and Maps (other keys)', () => {
    expect(decodeValue(port.external_ids, ['map', [['a', '1']]], 'x')).toEqual({ a: '1' });
    expect(decodeValue(vswitchColumns.Bridge.flow_tables, ['map', [[3, ['uuid', U1]]]], 'x')).toEqual(
      new Map([[3, U1]]),
    );
  });

  it('keeps a __proto__ key as data', () => {
    const m = decodeValue(port.external_ids, ['map', [['__proto__', 'x']]], 'x') as Record<string, string>;
    expect(Object.keys(m)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
  });

  it('throws OvsdbProtocolError on malformed values', () => {
    for (const [type, v] of [
      [port.tag, 'x'],
      [port.tag, ['set', [1, 2]]],
      [port.interfaces, 'not-a-uuid-pair'],
      [port.external_ids, ['set', []]],
      [port.external_ids, ['map', [['a']]]],
      [port.name, 5],
    ] as const) {
      expect(() => decodeValue(type, v, 'f')).toThrow(expect.objectContaining({ code: 'OVSDB_PROTOCOL' }));
    }
  });

  it('decodeRow skips columns the schema does not know (_version)', () => {
    expect(decodeRow(port, 'Port', { name: 'p1', _version: ['uuid', U2] }, U1)).toEqual({
      _uuid: U1,
      name: 'p1',
    });
  });
});

describe('applyColumnDiff (monitor_cond update2 "modify")', () => {
  it('sets toggle the elements of the diff', () => {
    expect(applyColumnDiff(port.trunks, [5], 6, 't')).toEqual([5, 6]);
    expect(applyColumnDiff(port.trunks, [5, 6], ['set', [5, 7]], 't')).toEqual([6, 7]);
  });
  it('optional and scalar columns take the new value', () => {
    expect(applyColumnDiff(port.tag, 100, ['set', []], 't')).toBeUndefined();
    expect(applyColumnDiff(port.tag, undefined, 7, 't')).toBe(7);
    expect(applyColumnDiff(port.tag, 7, 8, 't')).toBe(8);
    expect(applyColumnDiff(port.name, 'a', 'b', 't')).toBe('b');
  });
  it('maps: a new key is inserted, the same pair deleted, another value replaces', () => {
    expect(
      applyColumnDiff(
        port.external_ids,
        { a: '1', b: '2' },
        [
          'map',
          [
            ['a', '9'],
            ['b', '2'],
            ['c', '3'],
          ],
        ],
        'e',
      ),
    ).toEqual({ a: '9', c: '3' });
  });
});

describe('JsonStreamDecoder', () => {
  const encode = (s: string) => Buffer.from(s, 'utf8');

  it('splits concatenated objects, across any chunk boundary', () => {
    const text =
      '{"id":1,"result":["a}",{"b":"\\"]"}]}  {"method":"echo","params":[],"id":"x"}\n[1,{"é€😀":2}]';
    const expected = [
      { id: 1, result: ['a}', { b: '"]' }] },
      { method: 'echo', params: [], id: 'x' },
      [1, { 'é€😀': 2 }],
    ];
    const bytes = encode(text);
    for (let size = 1; size <= bytes.length; size++) {
      const d = new JsonStreamDecoder();
      const got: unknown[] = [];
      for (let i = 0; i < bytes.length; i += size) d.push(bytes.subarray(i, i + size), (v) => got.push(v));
      expect(got).toEqual(expected);
      expect(d.inValue).toBe(false);
    }
  });

  it('reports an unfinished value', () => {
    const d = new JsonStreamDecoder();
    const got: unknown[] = [];
    d.push(encode('{"id":1,'), (v) => got.push(v));
    expect(got).toEqual([]);
    expect(d.inValue).toBe(true);
    d.push(encode('"x":2}'), (v) => got.push(v));
    expect(got).toEqual([{ id: 1, x: 2 }]);
  });

  it('throws OvsdbProtocolError on garbage between or inside values, after the values before it', () => {
    for (const [garbage, before] of [
      ['HTTP/1.1 400 Bad Request\r\n', 0],
      ['{"id":1}xyz', 1],
      ['{"id": nope}', 0],
      ['42', 0],
    ] as const) {
      const d = new JsonStreamDecoder();
      const got: unknown[] = [];
      let error: unknown;
      try {
        d.push(encode(garbage), (v) => got.push(v));
      } catch (e) {
        error = e;
      }
      expect(isOvsdbProtocolError(error), garbage).toBe(true);
      expect(got).toHaveLength(before);
    }
  });
});
