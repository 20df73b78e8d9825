import { describe, expect, it } from 'vitest';
import { formatIntentDocuments, parseIntentDocuments } from './file-source.js';
import { formatRelayFile } from './relay-format.js';

const where = 'intent.yaml';
const vrf = (name: string, vni: number) => ({
  apiVersion: 'network.fabrik.dev/v1alpha1',
  kind: 'VRF',
  metadata: { name },
  spec: { vni },
});

describe('parseIntentDocuments', () => {
  it('returns every object of a multi-document file, empty documents skipped', () => {
    const text = `${formatIntentDocuments([vrf('red', 1001), vrf('blue', 1002)])}---\n`;
    const s = parseIntentDocuments(text, { where });
    expect(s.fatal).toBe(false);
    expect(s.problems).toEqual([]);
    expect(s.objects.map((o) => o.metadata.name)).toEqual(['red', 'blue']);
    expect(s.objects[0]?.spec).toEqual({ vni: 1001 });
  });

  it('reports a document without a name and keeps the others', () => {
    const text = 'apiVersion: v1\nkind: VRF\nmetadata: {}\n---\n' + formatIntentDocuments([vrf('red', 1)]);
    const s = parseIntentDocuments(text, { where });
    expect(s.objects.map((o) => o.metadata.name)).toEqual(['red']);
    expect(s.problems).toEqual([
      { where: 'intent.yaml document 1', message: 'metadata.name: required (a string)' },
    ]);
  });

  it.each([
    ['a list', '- 1\n', 'must be an object'],
    ['no apiVersion', 'kind: VRF\nmetadata: { name: a }\n', 'apiVersion: required'],
    ['no kind', 'apiVersion: v1\nmetadata: { name: a }\n', 'kind: required'],
    [
      'labels not strings',
      'apiVersion: v1\nkind: VRF\nmetadata: { name: a, labels: { x: 1 } }\n',
      'metadata.labels',
    ],
  ])('reports %s', (_what, text, message) => {
    const s = parseIntentDocuments(text, { where });
    expect(s.objects).toEqual([]);
    expect(s.problems[0]?.message).toContain(message);
  });

  it('is fatal when the text is not YAML', () => {
    const s = parseIntentDocuments('kind: [\n', { where });
    expect(s.fatal).toBe(true);
    expect(s.problems[0]?.where).toBe('intent.yaml document 1');
  });

  it("keeps only the given kinds and takes this node's labels from its Node document", () => {
    const text = formatIntentDocuments([
      vrf('red', 1),
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'other', labels: { a: 'x' } } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { rack: 'r1' } } },
      { apiVersion: 'network.fabrik.dev/v1alpha1', kind: 'IPPool', metadata: { name: 'p' } },
    ]);
    const s = parseIntentDocuments(text, { where, kinds: new Set(['VRF']), nodeName: 'n1' });
    expect(s.objects.map((o) => o.kind)).toEqual(['VRF']);
    expect(s.node).toEqual({ name: 'n1', labels: { rack: 'r1' } });
  });

  it('an empty text is no objects, not an error', () => {
    expect(parseIntentDocuments('', { where })).toEqual({ objects: [], problems: [], fatal: false });
  });

  it('checks a relay header: its sequence is returned; another version or a document count the file does not hold is fatal', () => {
    const body = formatIntentDocuments([vrf('red', 1), vrf('blue', 2)]);
    const ok = parseIntentDocuments(formatRelayFile(body, 2, 7), { where });
    expect(ok).toMatchObject({ fatal: false, relaySequence: 7, problems: [] });
    expect(ok.objects.map((o) => o.metadata.name)).toEqual(['red', 'blue']);
    const newer = parseIntentDocuments(formatRelayFile(body, 2, 7).replace('version: 1', 'version: 2'), {
      where,
    });
    expect(newer).toMatchObject({ fatal: true, objects: [] });
    expect(newer.problems[0]?.message).toContain('relay format version 2');
    const counted = parseIntentDocuments(formatRelayFile(body, 3, 7), { where });
    expect(counted.fatal).toBe(true);
    expect(counted.problems[0]?.message).toContain('counts 3 document(s), the file holds 2');
    expect(parseIntentDocuments(body, { where, requireRelayHeader: true }).fatal).toBe(true);
  });
});
