// The repository's own CRDs (deploy/crds, the server's default) and examples/ through every
// kubectl found (PATH's and Debian's 1.20; the test names carry the version): apply of the examples, `get` of every fabrik kind with its printer columns,
// patch and delete, and each examples/invalid object answered as its annotations say
// (test.fabrik.dev/api-server: accepts | refuses-create | refuses-status-update, naming
// test.fabrik.dev/error-field).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlsUnderTest } from './kubectl-path.js';
import { startApiServer, type ApiServer } from './server.js';

const REPO = resolve(import.meta.dirname, '../../../..');
const EXAMPLES = join(REPO, 'examples');
const CRDS = join(REPO, 'deploy', 'crds');

interface Crd {
  spec: {
    names: { plural: string; kind: string };
    group: string;
    versions: { additionalPrinterColumns?: { name: string; priority?: number }[] }[];
  };
}

// deploy/crds also holds its kustomize Kustomization file: only the CRD manifests.
const crds = readdirSync(CRDS)
  .filter((f) => f.endsWith('.yaml'))
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

const KUBECTLS = await kubectlsUnderTest();

describe.each(KUBECTLS.map((k) => [k.version, k.path]))('kubectl %s (%s)', (_version, kubectlPath) => {
  let server: ApiServer;
  let dir: string;
  let home: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-repo-'));
    home = mkdtempSync(join(tmpdir(), 'fabrik-kubectl-home-'));
    server = await startApiServer({ dir });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  const kubectl = async (...args: string[]): Promise<string> =>
    (
      await runCommand(kubectlPath, args, {
        env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home },
      })
    ).stdout;

  const kubectlError = async (...args: string[]): Promise<string> => {
    try {
      await kubectl(...args);
    } catch (err) {
      if (isCommandError(err)) return err.stderr;
      throw err;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  };

  it('serves every CRD of deploy/crds', async () => {
    const names = (await kubectl('get', 'crd', '-o', 'name')).trim().split('\n').sort();
    expect(names).toEqual(
      crds
        .map((c) => `customresourcedefinition.apiextensions.k8s.io/${c.spec.names.plural}.${c.spec.group}`)
        .sort(),
    );
  });

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
      expect(
        lines
          .slice(1)
          .map((l) => l.split(/\s+/)[header[0] === 'NAMESPACE' ? 1 : 0])
          .sort(),
      ).toEqual([...new Set(objects.map((o) => o.metadata.name))].sort());
    }
  });

  it('patches and deletes each fabrik kind', async () => {
    const generation = Number(await kubectl('get', 'vrf', 'red', '-o', 'jsonpath={.metadata.generation}'));
    await kubectl('patch', 'vrf', 'red', '--type=merge', '-p', '{"spec":{"routeTarget":"65000:4242"}}');
    expect(
      await kubectl('get', 'vrf', 'red', '-o', 'jsonpath={.spec.routeTarget} {.metadata.generation}'),
    ).toBe(`65000:4242 ${generation + 1}`);
    for (const crd of crds) {
      const resource = `${crd.spec.names.plural}.${crd.spec.group}`;
      const [first] = (
        await kubectl(
          'get',
          resource,
          '-A',
          '-o',
          'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}',
        )
      )
        .trim()
        .split('\n')
        .filter((l) => l !== '');
      if (first === undefined) continue;
      const [namespace, name] = first.split('/') as [string, string];
      const scope = namespace === '' ? [] : ['-n', namespace];
      expect(await kubectl('delete', resource, name!, ...scope)).toContain(`"${name}" deleted`);
      expect(await kubectlError('get', resource, name!, ...scope)).toContain('not found');
    }
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
      if (expected === 'refuses-status-update') {
        const obj = parse(readFileSync(path, 'utf8')) as {
          kind: string;
          metadata: { name: string };
          status: unknown;
        };
        const crd = crds.find((c) => c.spec.names.kind === obj.kind)!;
        const current = JSON.parse(
          await kubectl('get', `${crd.spec.names.plural}.${crd.spec.group}`, obj.metadata.name, '-o', 'json'),
        ) as object;
        const kc = new KubeConfig();
        kc.loadFromFile(server.kubeconfigPath);
        const refused = await kc
          .makeApiClient(CustomObjectsApi)
          .replaceClusterCustomObjectStatus({
            group: crd.spec.group,
            version: 'v1alpha1',
            plural: crd.spec.names.plural,
            name: obj.metadata.name,
            body: { ...current, status: obj.status },
          })
          .catch((err: unknown) => err);
        expect(refused).toBeInstanceOf(ApiException);
        const status = JSON.parse((refused as ApiException<string>).body) as {
          code: number;
          message: string;
        };
        expect(status.code).toBe(422);
        expect(status.message).toContain(field);
      } else {
        expect(expected).toBe('accepts');
      }
    },
  );
});
