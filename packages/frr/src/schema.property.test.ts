import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { propertyRunOptions } from '@fabrik/testkit/arbitraries';
import { describe, expect, it } from 'vitest';
import { runFrrCli } from './cli-run.js';
import { FrrIntentSchema, type FrrIntentInput } from './intent.js';

// `fabrik-frr schema` publishes the JSON Schema of the intent. A pipeline that validates with it
// and fabrik must agree on every field: generated values go through both, field by field. (The
// rules between fields are the validator's alone; the schema's description lists them.)

async function publishedSchema(): Promise<object> {
  let out = '';
  const code = await runFrrCli(['schema'], { stdout: (t) => (out += t), stderr: () => undefined });
  expect(code).toBe(0);
  return JSON.parse(out) as object;
}

const base = { asn: 65000, routerId: '10.0.0.1', vtepIp: '10.0.0.1' };
const vrf = { name: 'red', vni: 1, addressFamilies: ['ipv4', 'ipv6'] };

/** Where a generated string goes in an otherwise valid intent. */
const FIELDS: Record<string, (x: string) => unknown> = {
  'vrfs[].name': (x) => ({ ...base, vrfs: [{ name: x, vni: 1 }] }),
  hbrVrf: (x) => ({ ...base, hbrVrf: x }),
  'underlay.neighbors[].interface': (x) => ({
    ...base,
    underlay: { neighbors: [{ interface: x, remoteAs: 'external' }] },
  }),
  'underlay.neighbors[].address': (x) => ({
    ...base,
    underlay: { neighbors: [{ address: x, remoteAs: 'external' }] },
  }),
  'underlay.neighbors[].password': (x) => ({
    ...base,
    underlay: { neighbors: [{ address: '192.0.2.1', remoteAs: 'external', password: x }] },
  }),
  'vrfs[].aggregates[]': (x) => ({ ...base, vrfs: [{ ...vrf, aggregates: [x] }] }),
  'vrfs[].staticRoutes[].prefix': (x) => ({
    ...base,
    vrfs: [{ ...vrf, staticRoutes: [{ prefix: x, blackhole: true }] }],
  }),
  'vrfs[].routeTarget': (x) => ({ ...base, vrfs: [{ name: 'red', vni: 1, routeTarget: x }] }),
  'fabricLoopGuard.community': (x) => ({ ...base, fabricLoopGuard: { community: x } }),
  routerId: (x) => ({ ...base, routerId: x }),
};

const hex = (n: number) => n.toString(16);
/** Strings near the rules' edges: networks with and without host bits, odd spellings, names FRR reserves. */
const candidates = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF:./'), maxLength: 44 }),
  fc.string({ unit: 'binary', maxLength: 90 }),
  fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 75,
    maxLength: 85,
  }),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 33 })).map(([a, l]) => `${a}/${l}`),
  fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }),
      fc.integer({ min: 0, max: 8 }),
      fc.integer({ min: 0, max: 129 }),
    )
    .map(([g, keep, l]) => `${g.slice(0, keep).map(hex).join(':')}${keep < 8 ? '::' : ''}/${l}`),
  fc.ipV4(),
  fc.ipV6(),
  fc
    .tuple(fc.integer({ min: 0, max: 4_294_967_296 }), fc.integer({ min: 0, max: 4_294_967_296 }))
    .map(([a, b]) => `${a}:${b}`),
  fc.constantFrom(
    '.',
    '..',
    'default',
    'route-map',
    'all',
    'red',
    '1.2.3.4',
    '1.2.3',
    '::ffff:1.2.3.4',
    '::',
    '::/0',
    'no-export',
    'no_export',
    '0:0',
    '65535:65536',
    '2001:db8::1/128',
    '2001:db8::1/64',
    'é'.repeat(80),
  ),
);

describe('fabrik-frr schema agrees with the validator', () => {
  it.each(Object.keys(FIELDS))('on %s', { timeout: 120_000 }, async (field) => {
    const validate = new Ajv2020({ allErrors: false, strict: false }).compile(await publishedSchema());
    const place = FIELDS[field] ?? (() => undefined);
    fc.assert(
      fc.property(candidates, (x) => {
        const intent = place(x);
        const zodOk = FrrIntentSchema.safeParse(intent).success;
        const schemaOk = validate(intent) === true;
        expect({ value: x, schemaOk }).toEqual({ value: x, schemaOk: zodOk });
      }),
      propertyRunOptions(300),
    );
  });

  it('accepts the golden fixtures and lists the rules it leaves to the validator', async () => {
    const schema = (await publishedSchema()) as { description?: string };
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const full: FrrIntentInput = {
      ...base,
      vrfs: [{ name: 'red', vni: 1001, bgpPeers: [{ listenRange: '10.20.0.0/24', remoteAs: 'external' }] }],
    };
    expect(validate(full)).toBe(true);
    // AS numbers are not strings (the property above): the reserved ones, checked one by one.
    for (const asn of [0, 23456, 65535, 4_294_967_295]) {
      expect({ asn, valid: validate({ ...base, asn }) }).toEqual({ asn, valid: false });
      expect({ asn, valid: FrrIntentSchema.safeParse({ ...base, asn }).success }).toEqual({
        asn,
        valid: false,
      });
    }
    expect(validate({ ...base, asn: 4_294_967_294 })).toBe(true);
    expect(schema.description).toContain('Rules between fields');
    expect(schema.description).toContain('no two with the same address or interface');
  });
});
