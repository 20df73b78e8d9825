import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDocs, docFiles, problemText } from './check-docs.js';
import { pathReferences, scriptReferences } from './references.js';

// The checker on a small repository written for the test: it must find what is missing and
// nothing else, or the docs test that runs it on the real repository proves nothing.

const files: Record<string, string> = {
  'package.json': JSON.stringify({ scripts: { lab: 'x', test: 'x' } }),
  'README.md': [
    'Run `npm run lab`, then `npm run labb`.', // line 1: labb is missing
    'See [the guide](docs/guide.md) and [gone](docs/gone.md#intro).', // line 2: gone.md is missing
    'Apply `kubectl apply -k deploy/base` and `deploy/components/x.yaml`.', // line 3: components missing
    'Not checked: `tr.<vid>`, `packages/*/README.md`, `/etc/frr/daemons`, `apps/app/dist/x.js`, [web](https://example.org).',
    '```sh',
    'kubectl apply -f examples/missing.yaml', // line 6: missing, in a fenced block
    '```',
  ].join('\n'),
  'deploy/base/kustomization.yaml': '',
  'docs/guide.md': 'Back to [the README](../README.md#top); `apps/app/src/main.ts:12` is the entry.',
  'apps/app/package.json': JSON.stringify({ scripts: { bench: 'x' } }),
  'apps/app/README.md':
    '`npm run bench` here, `npm run lab` at the root; [main](src/main.ts), [no](src/no.ts).',
  'apps/app/src/main.ts': '',
};

describe('checkDocs', () => {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'docs-check-'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('reads the README, docs/ and every package README', () => {
    expect(docFiles(root)).toEqual(['README.md', 'docs/guide.md', 'apps/app/README.md']);
  });
  it('reports exactly the missing files and scripts, each with its doc and line', () => {
    expect(checkDocs(root).map(problemText)).toEqual([
      'README.md:2: names docs/gone.md, which does not exist',
      'README.md:3: names deploy/components/x.yaml, which does not exist',
      'README.md:6: names examples/missing.yaml, which does not exist',
      'README.md:1: names `npm run labb`, which no package.json defines',
      'apps/app/README.md:1: names apps/app/src/no.ts, which does not exist',
    ]);
  });
});

describe('references', () => {
  it('takes link targets relative to the doc and code relative to the root, without anchors or lines', () => {
    expect(pathReferences('[a](../x.md#s) `packages/api/src/x.ts:3-9`, `docs/`.')).toEqual([
      { line: 1, path: '../x.md', relativeTo: 'doc' },
      { line: 1, path: 'packages/api/src/x.ts', relativeTo: 'root' },
      { line: 1, path: 'docs/', relativeTo: 'root' },
    ]);
  });
  it('finds npm run with and without -s', () => {
    expect(scriptReferences('`npm run -s apiserver -- --port 1`\nnpm run bench:cni')).toEqual([
      { line: 1, script: 'apiserver' },
      { line: 2, script: 'bench:cni' },
    ]);
  });
});
