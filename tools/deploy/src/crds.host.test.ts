// deploy/crds as a real cluster takes them: every CRD accepted by kube-apiserver (its structural
// schema and CEL checks, cost estimates included), examples/ applied and listed with the printer
// columns, and each examples/invalid object answered as its annotations say
// (test.fabrik.dev/api-server: accepts | refuses-create | refuses-status-update, naming
// test.fabrik.dev/error-field). Through the server's own kubectl and Debian's 1.20, the oldest
// client users run.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { REPO_ROOT, kubectlPath } from './render.js';

const EXAMPLES = join(REPO_ROOT, 'examples');
const CRDS = join(REPO_ROOT, 'deploy', 'crds');

interface Crd {
  spec: {
    names: { plural: string; kind: string };
    group: string;
    versions: { name: string; additionalPrinterColumns?: { name: string; priority?: number }[] }[];
  };
}

// deploy/crds also holds its kustomize Kustomization file: only the CRD manifests.
const crds = readdirSync(CRDS)
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .map((f) => parse(readFileSync(join(CRDS, f), 'utf8')) as Crd);

function documents(dir: string): { kind: string; metadata: { name: string; namespace?: string } }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as never));
}

const invalid = readdirSync(join(EXAMPLES, 'invalid')).map((file) => {
  const obj = parse(readFileSync(join(EXAMPLES, 'invalid', file), 'utf8')) as {
    metadata: { annotations: Record<string, string> };
  };
  return {
    file,
    field: obj.metadata.annotations['test.fabrik.dev/error-field']!,
    expect: obj.metadata.annotations['test.fabrik.dev/api-server']!,
  };
});

let api: KubeApiServer;
let home: string;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'fabrik-kubectl-home-'));
  // No CRDs at start: the first test installs them as a user would.
  api = await startKubeApiServer({ crdDirs: [] });
}, 120_000);
afterAll(async () => {
  await api?.destroy();
  rmSync(home, { recursive: true, force: true });
});

it('kube-apiserver accepts every CRD of deploy/crds and establishes it', async () => {
  await api.kubectl('apply', '--server-side', '-f', CRDS);
  await api.kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
  const names = (await api.kubectl('get', 'crd', '-o', 'name')).trim().split('\n').sort();
  expect(names).toEqual(
    crds
      .map((c) => `customresourcedefinition.apiextensions.k8s.io/${c.spec.names.plural}.${c.spec.group}`)
      .sort(),
  );
});

describe.each(['server release', '1.20'])('kubectl %s', (client) => {
  const kubectl = async (...args: string[]): Promise<string> => {
    const path = client === '1.20' ? kubectlPath('1.20') : api.binaries.kubectl;
    return (
      await runCommand(path, args, {
        env: { ...process.env, KUBECONFIG: api.kubeconfigPath, HOME: home },
        timeoutMs: 60_000,
      })
    ).stdout;
  };
  const kubectlError = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (err) {
      if (isCommandError(err)) return err.stderr;
      throw err;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };

  it('applies examples/ and examples/lab/ and lists every kind with its printer columns', async () => {
    for (const sub of ['', 'lab']) {
      const docs = documents(join(EXAMPLES, sub));
      const out = await kubectl('apply', '-f', join(EXAMPLES, sub));
      expect(
        out
          .trim()
          .split('\n')
          .filter((l) => / (created|configured|unchanged)$/.test(l)),
      ).toHaveLength(docs.length);
    }
    const applied = [...documents(EXAMPLES), ...documents(join(EXAMPLES, 'lab'))];
    for (const crd of crds) {
      const objects = applied.filter((d) => d.kind === crd.spec.names.kind);
      if (objects.length === 0) continue;
      const columns = (crd.spec.versions[0]!.additionalPrinterColumns ?? [{ name: 'Age' }])
        .filter((c) => (c.priority ?? 0) === 0)
        .map((c) => c.name.toUpperCase());
      const lines = (await kubectl('get', `${crd.spec.names.plural}.${crd.spec.group}`, '-A'))
        .trim()
        .split('\n');
      const header = lines[0]!.split(/\s{2,}/);
      expect(header.slice(header.indexOf('NAME'))).toEqual(['NAME', ...columns]);
      const nameColumn = header[0] === 'NAMESPACE' ? 1 : 0;
      expect(
        lines
          .slice(1)
          .map((l) => l.split(/\s+/)[nameColumn])
          .sort(),
      ).toEqual([...new Set(objects.map((o) => o.metadata.name))].sort());
    }
  });

  it('a spec change bumps the generation', async () => {
    const generation = Number(await kubectl('get', 'vrf', 'red', '-o', 'jsonpath={.metadata.generation}'));
    const target = client === '1.20' ? '65000:4243' : '65000:4242';
    await kubectl(
      'patch',
      'vrf',
      'red',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { routeTarget: target } }),
    );
    expect(
      await kubectl('get', 'vrf', 'red', '-o', 'jsonpath={.spec.routeTarget} {.metadata.generation}'),
    ).toBe(`${target} ${generation + 1}`);
  });

  it.each(invalid)(
    'answers examples/invalid/$file as annotated ($expect, $field)',
    async ({ file, field, expect: expected }) => {
      const path = join(EXAMPLES, 'invalid', file);
      if (expected === 'refuses-create') {
        const stderr = await kubectlError('apply', '-f', path);
        // Older kubectl validates unknown fields itself and names only the leaf.
        expect(stderr).toContain(stderr.includes('ValidationError') ? field.split('.').pop()! : field);
        return;
      }
      await kubectl('apply', '-f', path);
      // Gone again after the test: the next client's listing expects the examples only.
      onTestFinished(async () => void (await kubectl('delete', '-f', path)));
      if (expected === 'accepts') return;
      expect(expected).toBe('refuses-status-update');
      const obj = parse(readFileSync(path, 'utf8')) as {
        kind: string;
        metadata: { name: string };
        status: unknown;
      };
      const crd = crds.find((c) => c.spec.names.kind === obj.kind)!;
      const resource = `${crd.spec.names.plural}.${crd.spec.group}`;
      const current = JSON.parse(await kubectl('get', resource, obj.metadata.name, '-o', 'json')) as object;
      const body = JSON.stringify({ ...current, status: obj.status });
      const refused = await runCommand(
        api.binaries.kubectl,
        ['--kubeconfig', api.kubeconfigPath, 'replace', '--subresource=status', '-f', '-'],
        {
          input: body,
          timeoutMs: 60_000,
        },
      ).then(
        () => undefined,
        (e: unknown) => (isCommandError(e) ? e.stderr : String(e)),
      );
      expect(refused).toMatch(/is invalid/);
      expect(refused).toContain(field);
    },
  );
});

it('deletes each fabrik kind', async () => {
  for (const crd of crds) {
    const resource = `${crd.spec.names.plural}.${crd.spec.group}`;
    const jsonpath = 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}';
    const [first] = (await api.kubectl('get', resource, '-A', '-o', jsonpath))
      .trim()
      .split('\n')
      .filter((l) => l !== '');
    if (first === undefined) continue;
    const [namespace, name] = first.split('/') as [string, string];
    const scope = namespace === '' ? [] : ['-n', namespace];
    expect(await api.kubectl('delete', resource, name, ...scope)).toContain(`"${name}" deleted`);
    const gone = await api.kubectl('get', resource, name, ...scope).then(
      () => 'still there',
      (e: unknown) => (isCommandError(e) ? e.stderr : String(e)),
    );
    expect(gone).toContain('not found');
  }
});
