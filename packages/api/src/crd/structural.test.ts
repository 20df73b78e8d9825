import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentHostConfig, PhysicalInterface } from '../config/agent-host-config.js';
import { RESOURCE_KINDS } from '../network/resources.js';
import { withRules } from '../rules.js';
import { customResourceDefinition } from './custom-resource-definition.js';
import { StructuralSchemaError, toStructuralSchema, type JsonSchema } from './structural.js';

const structural = (schema: z.ZodType) =>
  toStructuralSchema(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw' }) as JsonSchema);

describe('toStructuralSchema', () => {
  it('keeps optional fields out of required, and defaults on the property', () => {
    expect(
      structural(z.object({ a: z.string(), b: z.number().int().min(1).default(5).optional() }).strict()),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer', minimum: 1, default: 5 } },
      required: ['a'],
    });
  });
  it('turns a union of strings into one string type with the alternatives as value validations', () => {
    expect(structural(z.union([z.string().regex(/^a/), z.string().max(3)]))).toEqual({
      type: 'string',
      anyOf: [{ pattern: '^a' }, { maxLength: 3 }],
    });
  });
  it('drops a union that constrains nothing (one branch takes every string)', () => {
    expect(structural(z.union([z.string().regex(/^a/), z.string()]))).toEqual({ type: 'string' });
  });
  it('turns a union of objects into one object with every property, the branches told apart by required/not', () => {
    const schema = z.union([
      z.object({ cidr: z.string() }).strict(),
      z.object({ start: z.string(), end: z.string() }).strict(),
    ]);
    expect(structural(schema)).toEqual({
      type: 'object',
      properties: { cidr: { type: 'string' }, start: { type: 'string' }, end: { type: 'string' } },
      anyOf: [
        { required: ['cidr'], not: { anyOf: [{ required: ['start'] }, { required: ['end'] }] } },
        { required: ['start', 'end'], not: { anyOf: [{ required: ['cidr'] }] } },
      ],
    });
  });
  it('keeps z.xor as oneOf', () => {
    const out = structural(
      z.xor([z.object({ a: z.string() }).strict(), z.object({ b: z.string() }).strict()]),
    );
    expect(out.type).toBe('object');
    expect(out.oneOf).toHaveLength(2);
  });
  it('marks an integer-or-string union, and refuses one whose sides carry constraints', () => {
    expect(structural(z.union([z.number().int(), z.string()]))).toEqual({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    expect(() => structural(PhysicalInterface)).toThrow(StructuralSchemaError);
    expect(() => structural(z.union([z.number().int().min(1), z.string()]))).toThrow(/int-or-string/);
  });
  it('turns nullable into nullable: true', () => {
    expect(structural(z.string().max(2).nullable())).toEqual({
      type: 'string',
      maxLength: 2,
      nullable: true,
    });
  });
  it("turns records into additionalProperties and key lengths into CEL (key patterns stay zod's)", () => {
    expect(
      structural(
        z.record(
          z
            .string()
            .regex(/^[a-z]+$/)
            .max(8),
          z.number().int(),
        ),
      ),
    ).toEqual({
      type: 'object',
      additionalProperties: { type: 'integer' },
      'x-kubernetes-validations': [
        { rule: 'self.all(k, size(k) <= 8)', message: 'keys must be at most 8 characters' },
      ],
    });
  });
  it('keeps unknown fields only where zod does (loose objects, unknown values)', () => {
    expect(structural(z.looseObject({ a: z.string() }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(structural(z.object({ any: z.unknown() }).strict())).toEqual({
      type: 'object',
      properties: { any: { 'x-kubernetes-preserve-unknown-fields': true } },
      required: ['any'],
    });
  });
  it('carries CEL rules and list types from zod metadata', () => {
    const schema = withRules(z.object({ a: z.number().int(), b: z.number().int() }).strict(), [
      { message: 'must not be less than a', field: ['b'], holds: (v) => v.b >= v.a, cel: 'self.b >= self.a' },
    ]);
    expect(structural(schema)['x-kubernetes-validations']).toEqual([
      { rule: 'self.b >= self.a', message: 'must not be less than a', fieldPath: '.b' },
    ]);
    expect(structural(z.array(z.string()).meta({ 'x-kubernetes-list-type': 'set' }))).toEqual({
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'set',
    });
  });
  it('refuses what a structural schema cannot say, naming where', () => {
    expect(() => structural(z.object({ a: z.union([z.string(), z.boolean()]) }).strict())).toThrow(
      /\.properties\.a: a union of different types/,
    );
    expect(() => toStructuralSchema({ allOf: [{ type: 'object' }, { type: 'object' }] })).toThrow(/allOf/);
    expect(() => structural(z.tuple([z.string(), z.number()]))).toThrow(/tuples/);
    expect(() => toStructuralSchema({ $ref: '#/$defs/x' })).toThrow(/\$ref/);
  });
  it('refuses the agent host config: its NIC entries are a name or an object (no CRD has such a field)', () => {
    expect(() => structural(AgentHostConfig)).toThrow(/physicalInterfaces/);
  });
});

describe('generated CRDs', () => {
  const crds = RESOURCE_KINDS.map(customResourceDefinition);

  it('are structural: every node has a type, no $ref, nothing but value validations inside junctors', () => {
    for (const crd of crds) {
      const problems = structuralProblems(crd.spec.versions[0]!.schema.openAPIV3Schema, crd.metadata.name);
      expect(problems).toEqual([]);
    }
  });
  it('use regular expressions RE2 (the API server) understands: no lookaround, no backreferences', () => {
    for (const crd of crds) {
      for (const pattern of patternsOf(crd)) {
        expect(pattern, crd.metadata.name).not.toMatch(/\(\?[=!<]|\\[1-9]/);
      }
    }
  });
  it('bound every string, list and map a CEL rule reads (the API server refuses rules it estimates too expensive)', () => {
    for (const crd of crds) {
      expect(unboundedCelInputs(crd.spec.versions[0]!.schema.openAPIV3Schema, crd.metadata.name)).toEqual([]);
    }
  });
  it('have the names, scope, short names and status subresource of their kind', () => {
    const vrf = crds.find((c) => c.metadata.name === 'vrfs.network.fabrik.dev');
    expect(vrf?.spec.names).toMatchObject({ kind: 'VRF', shortNames: ['fvrf'], categories: ['fabrik'] });
    expect(vrf?.spec.scope).toBe('Cluster');
    expect(vrf?.spec.versions[0]?.subresources).toEqual({ status: {} });
    const nad = crds.find((c) => c.spec.group === 'k8s.cni.cncf.io');
    expect(nad?.spec.scope).toBe('Namespaced');
    expect(nad?.spec.versions[0]?.subresources).toBeUndefined();
    expect(crds.map((c) => c.spec.names.shortNames[0])).toEqual([
      'fvrf',
      'l2',
      'bgpp',
      'fipp',
      'fnns',
      'fnnc',
      'fnro',
      'net-attach-def',
    ]);
  });
});

/** Violations of the structural schema rules of apiextensions.k8s.io/v1, with their JSON path. */
function structuralProblems(node: JsonSchema, path: string, inJunctor = false): string[] {
  const problems: string[] = [];
  if ('$ref' in node) problems.push(`${path}: $ref`);
  const junctors = ['anyOf', 'oneOf', 'allOf', 'not'] as const;
  if (inJunctor) {
    for (const key of [
      'type',
      'description',
      'default',
      'additionalProperties',
      'nullable',
      'properties',
      'items',
    ]) {
      if (key in node) problems.push(`${path}: ${key} inside a junctor`);
    }
  } else if (
    node.type === undefined &&
    node['x-kubernetes-int-or-string'] !== true &&
    node['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    problems.push(`${path}: no type`);
  }
  for (const [name, child] of Object.entries((node.properties as Record<string, JsonSchema>) ?? {})) {
    problems.push(...structuralProblems(child, `${path}.${name}`));
  }
  if (node.items) problems.push(...structuralProblems(node.items as JsonSchema, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    problems.push(...structuralProblems(node.additionalProperties as JsonSchema, `${path}{}`));
  }
  for (const j of junctors) {
    const value = node[j];
    if (value === undefined) continue;
    const branches = (Array.isArray(value) ? value : [value]) as JsonSchema[];
    if (node['x-kubernetes-int-or-string'] === true) continue; // its anyOf carries the two types
    branches.forEach((b, i) => problems.push(...structuralProblems(b, `${path}.${j}[${i}]`, true)));
  }
  return problems;
}

/**
 * The nodes a CEL rule reads without a bound: the rule's own node and every property it names
 * (`self.spec.importVrfs` reads spec and importVrfs), with list items and map values.
 */
function unboundedCelInputs(node: JsonSchema, path: string): string[] {
  const found: string[] = [];
  const unbounded = (n: JsonSchema) =>
    (n.type === 'string' && n.maxLength === undefined && n.enum === undefined) ||
    (n.type === 'array' && n.maxItems === undefined) ||
    (n.type === 'object' && n.additionalProperties !== undefined && n.maxProperties === undefined);
  const rules = (node['x-kubernetes-validations'] as { rule: string }[] | undefined) ?? [];
  for (const { rule } of rules) {
    const named = new Set([...rule.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)\b(?!\()/g)].map((m) => m[1]));
    const visit = (n: JsonSchema, at: string, depth: number) => {
      if (unbounded(n)) found.push(`${at}: read by ${rule}`);
      if (depth > 4) return;
      for (const [name, child] of Object.entries((n.properties as Record<string, JsonSchema>) ?? {})) {
        if (named.has(name)) visit(child, `${at}.${name}`, depth + 1);
      }
      if (n.items) visit(n.items as JsonSchema, `${at}[]`, depth + 1);
      if (typeof n.additionalProperties === 'object')
        visit(n.additionalProperties as JsonSchema, `${at}{}`, depth + 1);
    };
    visit(node, path, 0);
  }
  for (const [name, child] of Object.entries((node.properties as Record<string, JsonSchema>) ?? {})) {
    found.push(...unboundedCelInputs(child, `${path}.${name}`));
  }
  if (node.items) found.push(...unboundedCelInputs(node.items as JsonSchema, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    found.push(...unboundedCelInputs(node.additionalProperties as JsonSchema, `${path}{}`));
  }
  return found;
}

function patternsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(patternsOf);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    k === 'pattern' && typeof v === 'string' ? [v] : patternsOf(v),
  );
}
