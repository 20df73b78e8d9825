import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { admissionErrors } from '../../test/admission.js';
import { RESOURCE_KINDS } from '../network/resources.js';
import { openApiSchemaOf } from './custom-resource-definition.js';

// The CRDs must refuse what zod refuses and accept what zod accepts: every valid example is
// mutated at every field (values out of range, of the wrong type or shape, fields removed or
// unknown ones added), and zod's verdict is compared with the API server's (test/admission.ts:
// the CRD's schema with defaults, strict field validation and its CEL rules).

const examplesDir = fileURLToPath(new URL('../../../../examples/', import.meta.url));

/** Rules only zod checks, as docs/api.md lists them: zod refuses, the API server admits. */
const ZOD_ONLY: readonly { kind: string; path: RegExp; why: string }[] = [
  { kind: 'Layer2Network', path: /^spec\.anycastMac$/, why: 'unicast MAC: CEL cannot parse hex' },
  {
    kind: 'NetworkAttachmentDefinition',
    path: /^spec\.config$/,
    why: 'the config is JSON: CEL cannot parse it',
  },
  { kind: 'IPPool', path: /^spec\.ipRanges$/, why: 'overlapping ranges: CEL cannot order addresses' },
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Mutation = { path: string; object: Json };

const VALUES: readonly Json[] = [
  -1,
  0,
  1.5,
  33,
  129,
  4095,
  9001,
  16_777_216,
  4_294_967_296,
  '',
  'x'.repeat(300),
  'Bad Value!',
  'a.b',
  '10.0.0.1',
  '10.0.0.0/8',
  '10.0.0.1/8',
  'fd00::/64',
  'fd00::1',
  '02:00:00:00:00:01',
  '01:00:5e:00:00:01',
  '2026-11-30T04:00:00Z',
  true,
  [],
  {},
];

/** Every object that differs from `value` in one place, with where. */
function* mutations(value: Json, path: string[] = []): Generator<Mutation> {
  const at = path.join('.');
  for (const v of VALUES) {
    if (JSON.stringify(v) !== JSON.stringify(value)) yield { path: at, object: v };
  }
  if (Array.isArray(value)) {
    if (value.length > 0) yield { path: at, object: [...value, value[0] as Json] };
    for (let i = 0; i < value.length; i++) {
      for (const m of mutations(value[i] as Json, [...path, String(i)])) {
        yield { path: m.path, object: value.map((x, j) => (j === i ? m.object : x)) };
      }
    }
  } else if (typeof value === 'object' && value !== null) {
    yield { path: at, object: { ...value, zz: 1 } };
    for (const key of Object.keys(value)) {
      const { [key]: _dropped, ...rest } = value;
      yield { path: [...path, key].join('.'), object: rest };
      for (const m of mutations(value[key] as Json, [...path, key])) {
        yield { path: m.path, object: { ...value, [key]: m.object } };
      }
    }
  }
}

async function validExamples(): Promise<Json[]> {
  const out: Json[] = [];
  for (const sub of ['', 'lab/']) {
    for (const file of (await readdir(`${examplesDir}${sub}`)).filter((f) => f.endsWith('.yaml'))) {
      for (const doc of parseAllDocuments(await readFile(`${examplesDir}${sub}${file}`, 'utf8'))) {
        out.push(doc.toJS() as Json);
      }
    }
  }
  return out;
}

/** Objects with a status, which examples/ has none of (agents and fabrik-ipam write it). */
const WITH_STATUS: Json[] = [
  {
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'NodeNetworkStatus',
    metadata: { name: 'node-1' },
    status: {
      netns: {
        configStatus: 'degraded',
        appliedGenerations: { vrfs: { red: 3 }, layer2Networks: { 'red-web': 1 } },
        errorMessage: 'Layer2Network red-db: spec.vrf: VRF blue does not exist',
        objectErrors: [
          { kind: 'Layer2Network', name: 'red-db', field: 'spec.vrf', message: 'VRF blue does not exist' },
        ],
        frr: { bgpSessionsUp: 2, bgpSessionsTotal: 2, vnis: 3 },
        ownedObjects: { vrf: 1, bridge: 2 },
        lastUpdate: '2026-11-30T04:00:00Z',
        conditions: [
          {
            type: 'FabrikNetnsReady',
            status: 'True',
            reason: 'Applied',
            message: '',
            lastTransitionTime: '2026-11-30T04:00:00Z',
            observedGeneration: 1,
          },
        ],
      },
    },
  },
  {
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name: 'p' },
    spec: { ipRanges: [{ cidr: 'fd00:1::/112' }], subnetInfo: { gateway: 'fd00:1::1', prefixLength: 64 } },
    status: {
      ipAddresses: [
        {
          ipAddress: 'fd00:1::5',
          phase: 'Allocated',
          owner: { pod: { name: 'a', namespace: 'default', containerID: 'c1', ifName: 'net1' } },
        },
      ],
      usage: { total: 65534, used: 1 },
    },
  },
];

describe('zod and the generated CRDs agree', () => {
  it('on every one-field mutation of every example', async () => {
    const disagreements: string[] = [];
    let compared = 0;
    const used = new Set<(typeof ZOD_ONLY)[number]>();
    for (const example of [...(await validExamples()), ...WITH_STATUS]) {
      const kind = (example as { kind: string }).kind;
      const resource = RESOURCE_KINDS.find((r) => r.kind === kind);
      if (!resource) throw new Error(`no resource kind ${kind}`);
      const schema = openApiSchemaOf(resource);
      for (const m of mutations(example)) {
        // The API server owns these: it refuses another kind or version, or no name, before any schema runs.
        if (/^(apiVersion|kind|metadata)(\.|$)/.test(m.path) && m.path !== 'metadata.name') continue;
        if (typeof valueAt(m.object, 'metadata.name') !== 'string') continue;
        compared++;
        const zodOk = resource.schema.safeParse(m.object).success;
        const apiErrors = admissionErrors(schema, m.object);
        if (zodOk === (apiErrors.length === 0)) continue;
        const known = ZOD_ONLY.find((z) => z.kind === kind && !zodOk && z.path.test(m.path));
        if (known) used.add(known);
        else {
          disagreements.push(
            `${kind} ${m.path} = ${JSON.stringify(valueAt(m.object, m.path))}: zod ${zodOk ? 'accepts' : 'refuses'}, API server ${apiErrors.length === 0 ? 'accepts' : `refuses (${apiErrors.map((e) => `${e.path}: ${e.message}`).join('; ')})`}`,
          );
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(disagreements).toEqual([]);
    // Every zod-only rule listed above is still zod-only (else drop it from the list and the docs).
    expect([...used].map((z) => z.why).sort()).toEqual(ZOD_ONLY.map((z) => z.why).sort());
  }, 60_000); // hundreds of ajv + CEL admissions: seconds on a loaded 2-core machine
});

function valueAt(object: Json, path: string): Json | undefined {
  let v: Json | undefined = object;
  for (const k of path.split('.').filter(Boolean)) {
    v = typeof v === 'object' && v !== null ? (v as Record<string, Json>)[k] : undefined;
  }
  return v;
}
