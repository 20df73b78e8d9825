import { describe, expect, it } from 'vitest';
import { CelUnsupportedError } from './cel.js';
import type { JsonObject } from './json.js';
import { applyDefaults, compileSchema, prune, validate } from './schema.js';

const schema = compileSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['vni', 'vlan'],
      properties: {
        vni: { type: 'integer', minimum: 1, maximum: 16777215 },
        vlan: { type: 'integer', minimum: 1, maximum: 4094 },
        mtu: { type: 'integer', default: 1500, exclusiveMaximum: true, maximum: 9001 },
        vrf: { type: 'string', maxLength: 15, minLength: 1, pattern: '^[a-z]+$' },
        mode: { type: 'string', enum: ['bridged', 'routed'] },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        gateways: {
          type: 'array',
          minItems: 1,
          maxItems: 2,
          items: { type: 'string' },
          'x-kubernetes-list-type': 'set',
        },
        options: {
          type: 'object',
          default: {},
          properties: { learning: { type: 'boolean', default: false } },
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        subnet: {
          type: 'object',
          properties: { cidr: { type: 'string' }, gateway: { type: 'string' } },
          'x-kubernetes-validations': [
            {
              rule: 'cidr(self.cidr).containsIP(self.gateway)',
              message: 'gateway must be inside the subnet',
              fieldPath: '.gateway',
            },
            { rule: 'self == oldSelf', message: 'subnet is immutable', reason: 'FieldValueForbidden' },
          ],
        },
      },
    },
  },
});

function admit(obj: JsonObject, old?: JsonObject): string[] {
  prune(schema, obj);
  applyDefaults(schema, obj);
  return validate(schema, obj, old).map((e) => `${e.field}: ${e.body}`);
}

describe('structural schema admission', () => {
  it('applies nested defaults and prunes unknown fields, keeping preserved ones', () => {
    const obj: JsonObject = {
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'n' },
      spec: { vni: 1, vlan: 2, bogus: 1, extra: { any: 1 } },
      top: 1,
    };
    expect(prune(schema, obj)).toEqual(['spec.bogus', 'top']);
    applyDefaults(schema, obj);
    expect(obj).toEqual({
      apiVersion: 'x/v1',
      kind: 'K',
      metadata: { name: 'n' },
      spec: { vni: 1, vlan: 2, mtu: 1500, options: { learning: false }, extra: { any: 1 } },
    });
  });

  it('words every keyword error as kube-apiserver does', () => {
    const errors = admit({
      spec: {
        vni: 0,
        vlan: 5000,
        mtu: 9001,
        vrf: 'way-too-long-vrf-name',
        mode: 'tunnel',
        port: 1.5,
        gateways: ['a', 'a', 'b'],
      },
    });
    expect(errors).toEqual([
      'spec.vni: Invalid value: 0: spec.vni in body should be greater than or equal to 1',
      'spec.vlan: Invalid value: 5000: spec.vlan in body should be less than or equal to 4094',
      'spec.mtu: Invalid value: 9001: spec.mtu in body should be less than 9001',
      'spec.vrf: Too long: may not be more than 15 bytes',
      'spec.vrf: Invalid value: "way-too-long-vrf-name": spec.vrf in body should match \'^[a-z]+$\'',
      'spec.mode: Unsupported value: "tunnel": supported values: "bridged", "routed"',
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      'spec.gateways: Too many: 3: must have at most 2 items',
      'spec.gateways[1]: Duplicate value: "a"',
    ]);
  });

  it('reports required fields, wrong types, null for non-nullable and minItems', () => {
    expect(admit({ spec: { vlan: 'ten', vrf: null, note: null, gateways: [] } })).toEqual([
      'spec.vni: Required value',
      'spec.vlan: Invalid value: "string": spec.vlan in body must be of type integer: "string"',
      'spec.vrf: Invalid value: "null": spec.vrf in body must be of type string: "null"',
      'spec.gateways: Invalid value: []: spec.gateways in body should have at least 1 items',
    ]);
  });

  it('evaluates CEL rules with their message and fieldPath, and transition rules only on update', () => {
    const subnet = { cidr: '10.1.0.0/24', gateway: '10.2.0.1' };
    expect(admit({ spec: { vni: 1, vlan: 1, subnet } })).toEqual([
      'spec.subnet.gateway: Invalid value: "object": gateway must be inside the subnet',
    ]);
    const ok = { cidr: '10.1.0.0/24', gateway: '10.1.0.1' };
    expect(
      admit({ spec: { vni: 1, vlan: 1, subnet: ok } }, { spec: { vni: 1, vlan: 1, subnet: ok } }),
    ).toEqual([]);
    expect(
      admit(
        { spec: { vni: 1, vlan: 1, subnet: ok } },
        { spec: { vni: 1, vlan: 1, subnet: { ...ok, gateway: '10.1.0.2' } } },
      ),
    ).toEqual(['spec.subnet: Forbidden: subnet is immutable']);
  });

  it('refuses a schema with a CEL construct it cannot evaluate, at compile time', () => {
    expect(() =>
      compileSchema({
        type: 'object',
        properties: {
          a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.lowerAscii().quantity()' }] },
        },
      }),
    ).toThrow(CelUnsupportedError);
  });

  it('checks formats, anyOf/oneOf/not, metadata.name and root rules as kube does', () => {
    const root = compileSchema({
      type: 'object',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
        spec: {
          type: 'object',
          properties: {
            gw: { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] },
            one: { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 10 }] },
            mac: { type: 'string', format: 'mac', not: { pattern: '^01:' } },
            net: { type: 'string', format: 'cidr' },
          },
        },
      },
      'x-kubernetes-validations': [
        { rule: "self.metadata.name != 'default'", message: 'not default', fieldPath: '.metadata.name' },
        { rule: 'has(self.spec)', message: 'needs spec' },
      ],
    });
    const errors = validate(root, {
      metadata: { name: 'default', labels: { long: 'ignored' } },
      spec: { gw: '10.0.0', one: 5, mac: '01:00:5e:00:00:01', net: '10.0.0.1/33' },
    }).map((e) => `${e.field}: ${e.body}`);
    expect(errors).toEqual([
      'metadata.name: Too long: may not be more than 5 bytes',
      'spec.gw: Invalid value: "10.0.0": must validate at least one schema (anyOf)',
      'spec.gw: Invalid value: "10.0.0": spec.gw in body must be of type ipv4: "10.0.0"',
      'spec.gw: Invalid value: "10.0.0": spec.gw in body must be of type ipv6: "10.0.0"',
      'spec.one: Invalid value: 5: must validate one and only one schema (oneOf)',
      'spec.mac: Invalid value: "01:00:5e:00:00:01": must not validate the schema (not)',
      'spec.net: Invalid value: "10.0.0.1/33": spec.net in body must be of type cidr: "10.0.0.1/33"',
      'metadata.name: Invalid value: "object": not default',
    ]);
    expect(validate(root, { metadata: { name: 'ok' } }).map((e) => `${e.field}: ${e.body}`)).toEqual([
      '<nil>: Invalid value: "object": needs spec',
    ]);
  });
});
