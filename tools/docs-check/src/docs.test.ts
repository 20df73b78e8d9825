import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadHostConfig } from '@fabrik/agent-host';
import { AgentHostConfig, AgentNetnsConfig } from '@fabrik/api';
import { loadNetnsConfig } from '@fabrik/agent-netns';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDocs, problemText } from './check-docs.js';
import {
  schemaFields,
  tableFields,
  undocumentedFields,
  unknownFields,
  type JsonSchema,
} from './config-fields.js';

// The repository's docs against the repository: what they name exists, what they show as a
// configuration loads. Objects of examples/ (valid, lab and invalid) are checked where their
// schemas live: packages/api/src/examples.test.ts.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const env = { NODE_NAME: 'node-1' };

describe('the docs', () => {
  it('name only files and npm scripts that exist', () => {
    expect(checkDocs(root).map(problemText)).toEqual([]);
  });
});

/** The workspace packages published to npm: those without `"private": true`. */
function publishedPackages(): string[] {
  return ['packages', 'apps', 'tools']
    .flatMap((dir) => readdirSync(`${root}${dir}`).map((name) => `${root}${dir}/${name}/package.json`))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; private?: boolean })
    .filter((pkg) => pkg.private !== true)
    .map((pkg) => pkg.name)
    .sort();
}

describe('the published packages', () => {
  it.each(['README.md', 'CONTRIBUTING.md', '.changeset/README.md'])('are all named in %s', (doc) => {
    const text = readFileSync(`${root}${doc}`, 'utf8');
    expect(publishedPackages().length).toBeGreaterThan(0);
    expect(publishedPackages().filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
  });
});

describe("the agents' configuration fields in the docs", () => {
  const fieldsOf = (schema: z.ZodType) =>
    schemaFields(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema);
  const netns = fieldsOf(AgentNetnsConfig);
  const host = fieldsOf(AgentHostConfig);
  const both = new Set([...netns].filter((field) => host.has(field)));
  const doc = (file: string) => readFileSync(`${root}${file}`, 'utf8');
  const config = doc('docs/config.md');
  const shared = tableFields(config, 'Shared by both agents');
  const netnsNamed = tableFields(config, 'agent-netns');
  const hostNamed = tableFields(config, 'agent-host');

  it('docs/config.md reads its three tables', () => {
    expect([shared, netnsNamed, hostNamed].map((named) => named.length > 5)).toEqual([true, true, true]);
  });
  it.each([
    ['docs/config.md, shared', shared, both],
    ['docs/config.md, agent-netns', netnsNamed, netns],
    ['docs/config.md, agent-host', hostNamed, host],
    ['docs/agent-netns.md', tableFields(doc('docs/agent-netns.md'), 'Configuration'), netns],
    ['docs/agent-host.md', tableFields(doc('docs/agent-host.md'), 'Configuration'), host],
  ])('%s names only fields the schema has', (_doc, named, fields) => {
    expect(unknownFields(named, fields)).toEqual([]);
  });
  it('docs/config.md documents every field of AgentNetnsConfig', () => {
    expect(undocumentedFields(netns, [...shared, ...netnsNamed])).toEqual([]);
  });
  it('docs/config.md documents every field of AgentHostConfig', () => {
    expect(undocumentedFields(host, [...shared, ...hostNamed])).toEqual([]);
  });
});

describe('configuration files', () => {
  // The agents' own loaders: the schema plus what they check beyond it (agent-netns: where FRR runs).
  it.each(['examples/config/agent-netns.yaml', 'deploy/base/config/agent-netns.yaml'])(
    '%s loads as agent-netns loads it',
    async (file) => {
      await expect(loadNetnsConfig(`${root}${file}`, env)).resolves.toMatchObject({ nodeName: 'node-1' });
    },
  );
  it.each(['examples/config/agent-host.yaml', 'deploy/base/config/agent-host.yaml'])(
    '%s loads as agent-host loads it',
    async (file) => {
      await expect(loadHostConfig(`${root}${file}`, env)).resolves.toMatchObject({ nodeName: 'node-1' });
    },
  );
  it('examples/ has no directory that no test reads', () => {
    const dirs = readdirSync(`${root}examples`, { withFileTypes: true }).filter((d) => d.isDirectory());
    // config: this file; invalid and lab (and the top level): packages/api/src/examples.test.ts.
    expect(dirs.map((d) => d.name).sort()).toEqual(['config', 'invalid', 'lab']);
  });
});
