// `fabrik-operator` as its container runs it: a process with its ServiceAccount's kubeconfig, its
// endpoints probed, stopped with SIGTERM; `render --node` and `--version` as a user runs them.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import type { KubeConfig } from '@kubernetes/client-node';
import { NODE_NETWORK_CONFIG_RESOURCE, NodeNetworkConfig } from '@fabrik/api';
import { flattenRules } from '@fabrik/deploy';
import { NODES, NodeObject, ObjectMeta, customObjects } from '@fabrik/kube';
import {
  sourceCommand,
  startAgentProcess,
  until,
  type AgentProcess,
  type KubeApiServer,
} from '@fabrik/testkit';
import { startOperatorServer } from '../test/operator-server.js';

const ROOT = join(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'apps/operator/src/cli.ts');

let server: KubeApiServer;
let kc: KubeConfig;
let dir: string;
let configPath: string;
let operatorKubeconfig: string;
let healthAddress: string;
let operator: AgentProcess | undefined;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  const { port } = s.address() as AddressInfo;
  await new Promise((done) => s.close(done));
  return port;
}

const runCli = async (...args: string[]) => {
  const [file, ...rest] = sourceCommand(CLI, ...args);
  return promisify(execFile)(file, rest, { cwd: ROOT });
};

beforeAll(async () => {
  ({ server, kc, operatorKubeconfig } = await startOperatorServer());
  for (const name of ['worker-1', 'worker-2', 'worker-3'])
    await customObjects(kc, NODES, NodeObject).create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
  dir = await mkdtemp(join(tmpdir(), 'fabrik-operator-'));
  healthAddress = `127.0.0.1:${await freePort()}`;
  configPath = join(dir, 'operator.yaml');
  await writeFile(
    configPath,
    [
      'identity: { routerIdPool: 10.255.0.0/24, vtepPool: 10.254.0.0/24, asn: 65000 }',
      `metricsAddress: ${healthAddress}`,
      `healthAddress: ${healthAddress}`,
      'lease: { durationSeconds: 4 }',
    ].join('\n'),
  );
}, 120_000);

afterAll(async () => {
  await operator?.kill();
  await server?.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('fabrik-operator', () => {
  it('--version names the program and its version', async () => {
    expect((await runCli('--version')).stdout).toMatch(/^fabrik-operator \d+\.\d+\.\d+\n$/);
  });

  it('deploy/operator/rbac.yaml grants exactly what run and render call (they run with this token below)', async () => {
    const granted = flattenRules(
      await server.rulesFor('fabrik-system', 'fabrik-operator', ['fabrik-system', 'default']),
    );
    // create: a server-side apply that creates the object needs it too (without it, 403).
    expect(granted).toEqual([
      '* core nodes list',
      '* core nodes watch',
      ...['bgppeerings', 'ippools', 'layer2networks'].flatMap((r) => [
        `* network.fabrik.dev ${r} list`,
        `* network.fabrik.dev ${r} watch`,
      ]),
      ...['create', 'list', 'watch'].map((v) => `* network.fabrik.dev networkrollouts ${v}`),
      '* network.fabrik.dev networkrollouts/status patch',
      ...['create', 'delete', 'list', 'patch', 'watch'].map(
        (v) => `* network.fabrik.dev nodenetworkconfigs ${v}`,
      ),
      '* network.fabrik.dev nodenetworkconfigs/status patch',
      '* network.fabrik.dev vrfs list',
      '* network.fabrik.dev vrfs watch',
      'default core events create',
      'default core events patch',
      'fabrik-system coordination.k8s.io leases create',
      'fabrik-system coordination.k8s.io leases[fabrik-operator] get',
      'fabrik-system coordination.k8s.io leases[fabrik-operator] update',
    ]);
  });

  it('run: takes the Lease, writes every node config, serves /readyz and /metrics, and hands the Lease back on SIGTERM', async () => {
    operator = startAgentProcess({
      command: sourceCommand(CLI, 'run', '--config', configPath, '--kubeconfig', operatorKubeconfig),
      healthAddress,
      metricsAddress: healthAddress,
      env: { POD_NAME: 'fabrik-operator-0' },
      cwd: ROOT,
    });
    await operator.waitUntilReady(60_000);
    const configs = customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, NodeNetworkConfig);
    const items = await until('3 NodeNetworkConfigs', async () => {
      const { items } = await configs.list();
      return items.filter((c) => c.spec.identity).length === 3 && items;
    });
    expect(items.map((c) => c.spec.identity?.routerId).sort()).toEqual([
      '10.255.0.1',
      '10.255.0.2',
      '10.255.0.3',
    ]);
    const metrics = await until('a pass counted', async () => {
      const { body } = await operator!.probe('/metrics');
      return /fabrik_operator_passes_total\{result="success"\} [1-9]/.test(body) && body;
    });
    expect(metrics).toMatch(/^fabrik_operator_leader 1$/m);
    expect(metrics).toMatch(/^fabrik_operator_nodes 3$/m);
    const leases = customObjects(
      kc,
      { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' },
      z.looseObject({ metadata: ObjectMeta, spec: z.looseObject({ holderIdentity: z.string().nullish() }) }),
    );
    expect((await leases.get('fabrik-operator', 'fabrik-system')).spec.holderIdentity).toBe(
      'fabrik-operator-0',
    );
    expect(operator.stderr()).toBe('');
    expect(await operator.stop()).toBe(0);
    expect((await leases.get('fabrik-operator', 'fabrik-system')).spec.holderIdentity ?? '').toBe('');
  }, 120_000);

  it('render --node prints the NodeNetworkConfig the node has', async () => {
    const { stdout } = await runCli(
      'render',
      '--node',
      'worker-2',
      '--config',
      configPath,
      '--kubeconfig',
      operatorKubeconfig,
    );
    const printed = NodeNetworkConfig.parse(parse(stdout));
    const written = await customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, NodeNetworkConfig).get('worker-2');
    expect(printed.spec).toEqual(written.spec);
  }, 60_000);
});
