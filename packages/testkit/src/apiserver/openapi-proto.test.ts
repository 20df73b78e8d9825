import { describe, expect, it } from 'vitest';
import { openApiV2Protobuf } from './openapi-proto.js';

describe('OpenAPI v2 as gnostic protobuf', () => {
  it('encodes the document, a definition and its schema keywords with openapi.v2 field numbers', () => {
    const bytes = openApiV2Protobuf({
      swagger: '2.0',
      definitions: { K: { type: 'integer', maximum: 1, required: ['a'], 'x-k': 'v' } },
    });
    // Schema: required (19) "a", type (22) TypeItem{"integer"}, maximum (7) double 1, vendor_extension (31) NamedAny{"x-k", Any{yaml "\"v\""}}
    const schema = Buffer.concat([
      Buffer.from([0x39, ...Buffer.from([0, 0, 0, 0, 0, 0, 0xf0, 0x3f])]),
      Buffer.from([0x9a, 0x01, 0x01, 0x61]),
      Buffer.from([0xb2, 0x01, 0x09, 0x0a, 0x07, ...Buffer.from('integer')]),
      Buffer.from([
        0xfa,
        0x01,
        0x0c,
        0x0a,
        0x03,
        ...Buffer.from('x-k'),
        0x12,
        0x05,
        0x12,
        0x03,
        ...Buffer.from('"v"'),
      ]),
    ]);
    const named = Buffer.concat([Buffer.from([0x0a, 0x01, 0x4b, 0x12, schema.length]), schema]);
    const definitions = Buffer.concat([Buffer.from([0x0a, named.length]), named]);
    const expected = Buffer.concat([
      Buffer.from([0x0a, 0x03, ...Buffer.from('2.0')]),
      Buffer.from([0x4a, definitions.length]),
      definitions,
    ]);
    expect(bytes.toString('hex')).toBe(expected.toString('hex'));
  });
});
