// The test API server driven by kubectl, every kubectl found (the one on PATH and Debian's
// kubernetes-client 1.20 that tools/ci/ensure-deps.sh unpacks; each test name carries the
// version): apply of a directory, printer columns, get -w, patch, delete, explain,
// and an invalid object refused by apply with the field named.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_KUBECTL, kubectlsUnderTest } from './kubectl-path.js';
import { startApiServer, type ApiServer } from './server.js';

const FIXTURES = join(import.meta.dirname, '__fixtures__');

const KUBECTLS = await kubectlsUnderTest();

it("finds a kubectl on PATH and Debian's 1.20 (tools/ci/ensure-deps.sh provides both)", () => {
  expect(KUBECTLS.some((k) => k.path !== DEBIAN_KUBECTL)).toBe(true);
  expect(KUBECTLS.map((k) => k.version)).toContainEqual(expect.stringMatching(/^v1\.20\./));
});

describe.each(KUBECTLS.map((k) => [k.version, k.path]))('kubectl %s (%s)', (_version, kubectlPath) => {
  let server: ApiServer;
  let dir: string;
  let home: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-kubectl-'));
    home = mkdtempSync(join(tmpdir(), 'fabrik-kubectl-home-'));
    server = await startApiServer({ dir, crdDirs: [join(FIXTURES, 'crds')] });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  // A private HOME keeps kubectl's discovery cache per test run.
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: home });

  async function kubectl(...args: string[]): Promise<string> {
    return (await runCommand(kubectlPath, args, { env: env(), timeoutMs: 30_000 })).stdout;
  }

  async function kubectlFails(...args: string[]): Promise<string> {
    try {
      await kubectl(...args);
    } catch (err) {
      if (isCommandError(err)) return err.stderr;
      throw err;
    }
    throw new Error(`kubectl ${args.join(' ')} succeeded`);
  }

  it('applies a directory of custom resources and shows them with their printer columns', async () => {
    const out = await kubectl('apply', '-f', join(FIXTURES, 'examples'));
    expect(out).toContain('layer2network.network.fabrik.dev/l2-100 created');
    expect(out).toContain('vrf.network.fabrik.dev/red created');
    const table = (await kubectl('get', 'layer2networks')).trim().split('\n');
    expect(table[0]!.split(/\s{2,}/)).toEqual(['NAME', 'VNI', 'VLAN', 'VRF', 'AGE']);
    expect(table[1]!.split(/\s+/).slice(0, 4)).toEqual(['l2-100', '10100', '100', 'red']);
    expect(table[2]!.split(/\s+/).slice(0, 3)).toEqual(['l2-200', '10200', '200']);
    expect(table[1]).toMatch(/\s\d+s$/);
    const vrfs = (await kubectl('get', 'vrf')).trim().split('\n');
    expect(vrfs[0]!.split(/\s{2,}/)).toEqual(['NAME', 'VNI', 'ROUTE TARGET']);
    expect(vrfs[1]!.split(/\s+/)).toEqual(['red', '1000', '65000:1000']);
    // Applying the same files again changes nothing.
    expect(await kubectl('apply', '-f', join(FIXTURES, 'examples'))).toContain(
      'layer2network.network.fabrik.dev/l2-100 unchanged',
    );
  });

  it('shows defaults applied by the schema', async () => {
    expect(
      await kubectl(
        'get',
        'l2',
        'l2-100',
        '-o',
        'jsonpath={.spec.mtu} {.spec.neighSuppression} {.spec.mode}',
      ),
    ).toBe('1500 true bridged');
  });

  it('get -w prints an update made while it watches', async () => {
    const child = spawn(kubectlPath, ['get', 'l2', 'l2-200', '-w', '--no-headers'], { env: env() });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    try {
      const deadline = Date.now() + 15_000;
      while (!output.includes('l2-200')) {
        if (Date.now() > deadline) throw new Error(`kubectl get -w printed nothing: ${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await kubectl('patch', 'l2', 'l2-200', '--type=merge', '-p', '{"spec":{"vlan":201}}');
      while (!/l2-200\s+10200\s+201/.test(output)) {
        if (Date.now() > deadline) throw new Error(`kubectl get -w did not show the update: ${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      child.kill();
    }
    expect(output.trim().split('\n')[0]).toMatch(/^l2-200\s+10200\s+200\s/);
  });

  it('patch --type=merge changes a field and bumps the generation', async () => {
    await kubectl('patch', 'layer2network', 'l2-100', '--type=merge', '-p', '{"spec":{"mtu":9000}}');
    expect(await kubectl('get', 'l2', 'l2-100', '-o', 'jsonpath={.spec.mtu} {.metadata.generation}')).toBe(
      '9000 2',
    );
  });

  it('refuses an invalid object on apply, naming the field in kube-apiserver wording', async () => {
    const bad = join(FIXTURES, 'invalid', 'vlan-out-of-range.yaml');
    const stderr = await kubectlFails('apply', '-f', bad);
    expect(stderr).toContain(
      'The Layer2Network "bad-vlan" is invalid: spec.vlan: Invalid value: 5000: spec.vlan in body should be less than or equal to 4094',
    );
    // kubectl >= 1.27 validates on the server (fieldValidation=Strict); older ones with /openapi/v2.
    const unknown = await kubectlFails('apply', '-f', join(FIXTURES, 'invalid', 'unknown-field.yaml'));
    expect(unknown).toMatch(
      /unknown field "spec\.vlanId"|unknown field "vlanId" in dev\.fabrik\.network\.v1alpha1\.Layer2Network\.spec/,
    );
    const immutable = await kubectlFails('patch', 'l2', 'l2-100', '--type=merge', '-p', '{"spec":{"vni":1}}');
    expect(immutable).toContain('spec: Invalid value: "object": vni is immutable');
    expect(await kubectlFails('get', 'l2', 'bad-vlan')).toContain(
      'layer2networks.network.fabrik.dev "bad-vlan" not found',
    );
  });

  it('explains a fabrik kind from the served OpenAPI', async () => {
    const out = await kubectl('explain', 'layer2network.spec.vlan');
    expect(out).toMatch(/KIND:\s+Layer2Network/);
    expect(out).toContain('The VLAN ID on the node.');
  });

  it('applies server-side', async () => {
    expect(await kubectl('apply', '--server-side', '-f', join(FIXTURES, 'examples', 'red.yaml'))).toContain(
      'vrf.network.fabrik.dev/red serverside-applied',
    );
  });

  it('shows Nodes as kubectl does and cordons and taints them', async () => {
    await kubectl('apply', '-f', join(FIXTURES, 'nodes'));
    const [header, row] = (await kubectl('get', 'nodes')).trim().split('\n');
    expect(header!.split(/\s+/)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(row!.split(/\s+/)).toEqual([
      'node-a',
      'Ready',
      'worker',
      expect.stringMatching(/^\d+s$/),
      'v1.32.0',
    ]);
    await kubectl('cordon', 'node-a');
    await kubectl('taint', 'node', 'node-a', 'fabrik.dev/network=down:NoSchedule');
    expect((await kubectl('get', 'node', 'node-a', '--no-headers')).split(/\s+/)[1]).toBe(
      'Ready,SchedulingDisabled',
    );
    expect(JSON.parse(await kubectl('get', 'node', 'node-a', '-o', 'jsonpath={.spec}'))).toEqual({
      unschedulable: true,
      taints: [{ key: 'fabrik.dev/network', value: 'down', effect: 'NoSchedule' }],
    });
  });

  it('applies an agent manifest (namespace, RBAC, ConfigMap, DaemonSet) and merges a container change by name', async () => {
    const out = await kubectl('apply', '-f', join(FIXTURES, 'workloads'));
    expect(out.trim().split('\n')).toHaveLength(6);
    await kubectl(
      'set',
      'image',
      '-n',
      'fabrik-system',
      'daemonset/agent-host',
      'agent=fabrik-agent-host:0.2.0',
    );
    const images = await kubectl(
      'get',
      'ds',
      '-n',
      'fabrik-system',
      'agent-host',
      '-o',
      'jsonpath={.spec.template.spec.containers[*].image} {.metadata.generation}',
    );
    expect(images).toBe('fabrik-agent-host:0.2.0 busybox:1 2');
    expect((await kubectl('get', 'ds', '-n', 'fabrik-system')).split('\n')[0]!.split(/\s+/)).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'AGE',
    ]);
  });

  it('lists Events as kubectl does (name only with -o wide)', async () => {
    await kubectl('apply', '-f', join(FIXTURES, 'events'));
    const [header, row] = (await kubectl('get', 'events')).trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(row!.split(/\s{2,}/).slice(1)).toEqual(['Normal', 'Provisioned', 'node/node-a', 'network ready']);
    expect((await kubectl('get', 'events', '-o', 'wide')).trim().split('\n')[1]).toMatch(
      /\snode-a\.provisioned$/,
    );
  });

  it('deletes', async () => {
    expect(await kubectl('delete', 'l2', 'l2-200')).toContain(
      'layer2network.network.fabrik.dev "l2-200" deleted',
    );
    expect(await kubectlFails('get', 'l2', 'l2-200')).toContain('not found');
    expect((await kubectl('get', 'l2', '-o', 'name')).trim()).toBe('layer2network.network.fabrik.dev/l2-100');
  });
});
