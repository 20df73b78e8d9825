import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { admissionErrors } from '../test/admission.js';
import {
  RESOURCE_KINDS,
  checkIntentConflicts,
  isPathWithin,
  openApiSchemaOf,
  parseBgpPeering,
  parseIpPool,
  parseLayer2Network,
  parseNetworkAttachmentDefinition,
  parseNodeNetworkStatus,
  parseVrf,
  type BgpPeering,
  type Layer2Network,
  type ParseResult,
  type Vrf,
} from './index.js';

// Every example of examples/ is valid, for zod and for the generated CRDs; every object of
// examples/invalid/ is refused by zod naming the field its annotation gives, and by the API server
// (the CRD's schema and CEL rules, see test/admission.ts) unless its annotation says it accepts it.

const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));
const ERROR_FIELD = 'test.fabrik.dev/error-field';
const API_SERVER = 'test.fabrik.dev/api-server';

type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
};

const parsers: Record<string, (o: unknown) => ParseResult<unknown>> = {
  VRF: parseVrf,
  Layer2Network: parseLayer2Network,
  BGPPeering: parseBgpPeering,
  IPPool: parseIpPool,
  NodeNetworkStatus: parseNodeNetworkStatus,
  NetworkAttachmentDefinition: parseNetworkAttachmentDefinition,
};

async function load(subdir: string): Promise<{ file: string; object: KubeObject }[]> {
  const dir = `${examplesDir}${subdir}`;
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  const out: { file: string; object: KubeObject }[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(`${dir}/${file}`, 'utf8'))) {
      expect(doc.errors, `${subdir}/${file}`).toEqual([]);
      out.push({ file: `${subdir}/${file}`, object: doc.toJS() as KubeObject });
    }
  }
  return out;
}

function schemaOf(kind: string) {
  const resource = RESOURCE_KINDS.find((r) => r.kind === kind);
  if (!resource) throw new Error(`no resource kind ${kind}`);
  return openApiSchemaOf(resource);
}

describe.each(['.', 'lab'])('examples/%s', (subdir) => {
  it('parses with the schemas, is admitted by the CRDs and has no cross-object conflict', async () => {
    const objects = await load(subdir);
    expect(objects.length).toBeGreaterThan(0);
    const vrfs: Vrf[] = [];
    const layer2s: Layer2Network[] = [];
    const bgpPeerings: BgpPeering[] = [];
    for (const { file, object } of objects) {
      const parse = parsers[object.kind];
      expect(parse, `${file}: kind ${object.kind}`).toBeDefined();
      const result = parse!(object);
      expect(result.ok ? [] : result.error.issues, `${file} ${object.metadata.name}`).toEqual([]);
      expect(admissionErrors(schemaOf(object.kind), object), `${file} ${object.metadata.name}`).toEqual([]);
      if (result.ok && object.kind === 'VRF') vrfs.push(result.value as Vrf);
      if (result.ok && object.kind === 'Layer2Network') layer2s.push(result.value as Layer2Network);
      if (result.ok && object.kind === 'BGPPeering') bgpPeerings.push(result.value as BgpPeering);
    }
    expect(checkIntentConflicts(vrfs, layer2s, { bgpPeerings })).toEqual([]);
  });
});

describe('examples/invalid', async () => {
  const objects = await load('invalid');
  it('has one object per file, each annotated with the field and what the API server does', () => {
    expect(new Set(objects.map((o) => o.file)).size).toBe(objects.length);
    for (const { file, object } of objects) {
      expect(object.metadata.annotations?.[ERROR_FIELD], file).toMatch(/^(spec|status|metadata)\b/);
      expect(['refuses-create', 'refuses-status-update', 'accepts'], file).toContain(
        object.metadata.annotations?.[API_SERVER],
      );
    }
  });
  it.each(objects.map((o) => [o.file, o.object] as const))('%s: zod names the field', (_file, object) => {
    const field = object.metadata.annotations?.[ERROR_FIELD];
    const result = parsers[object.kind]!(object);
    expect(result.ok).toBe(false);
    // Every issue is about that field (or inside it: a map key), so nothing else in the object is wrong.
    const paths = result.ok ? [] : result.error.issues.map((i) => i.path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !isPathWithin(p, field ?? ''))).toEqual([]);
  });
  it.each(objects.map((o) => [o.file, o.object] as const))(
    '%s: the API server does what the annotation says',
    (_file, object) => {
      const field = object.metadata.annotations?.[ERROR_FIELD] ?? '';
      const errors = admissionErrors(schemaOf(object.kind), object);
      if (object.metadata.annotations?.[API_SERVER] === 'accepts') {
        expect(errors).toEqual([]);
      } else {
        // Refused on create, or (status) on a status update: either way the CRD's schema refuses it.
        expect(errors.length).toBeGreaterThan(0);
        expect(errors.filter((e) => !isPathWithin(e.path, field))).toEqual([]);
      }
    },
  );
});
