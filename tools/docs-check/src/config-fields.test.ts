import { describe, expect, it } from 'vitest';
import {
  schemaFields,
  tableFields,
  undocumentedFields,
  unknownFields,
  type JsonSchema,
} from './config-fields.js';

const doc = [
  '# Config', // 1
  '## Shared', // 2
  '| field | meaning |', // 3
  '| ----- | ------- |', // 4
  '| `name` | x |', // 5
  '## agent', // 6
  '| field | meaning |', // 7
  '| ----- | ------- |', // 8
  '| `list[]` | `[]` |', // 9
  '| `  .inner` | continues the row above |', // 10
  '| `a.b`, `a.typo` | two in one cell |', // 11
  '### details', // 12
  '| `deep` | a subsection belongs to its section |', // 13
  '## other', // 14
  '| `elsewhere` | another section |', // 15
].join('\n');

const schema: JsonSchema = {
  properties: {
    name: {},
    list: { items: { properties: { inner: {} } } },
    a: { anyOf: [{ properties: { b: {} } }, { properties: { c: {} } }] },
    deep: {},
    missing: {},
  },
};

describe('config fields', () => {
  it('reads the first column of the tables under one heading, subsections included', () => {
    expect(tableFields(doc, 'agent')).toEqual([
      { line: 9, field: 'list[]' },
      { line: 11, field: 'a.b' },
      { line: 11, field: 'a.typo' },
      { line: 13, field: 'deep' },
    ]);
  });
  it('lists the fields of a schema through arrays and unions', () => {
    expect([...schemaFields(schema)].sort()).toEqual([
      'a',
      'a.b',
      'a.c',
      'deep',
      'list',
      'list[].inner',
      'missing',
      'name',
    ]);
  });
  it('finds a documented field the schema lacks, and schema fields nothing documents', () => {
    const named = [...tableFields(doc, 'Shared'), ...tableFields(doc, 'agent')];
    expect(unknownFields(named, schemaFields(schema))).toEqual([{ line: 11, field: 'a.typo' }]);
    // list[] documents list[].inner, a.b its container a, but not its sibling a.c.
    expect(undocumentedFields(schemaFields(schema), named)).toEqual(['a.c', 'missing']);
  });
});
