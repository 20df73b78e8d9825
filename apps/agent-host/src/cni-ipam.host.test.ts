// fabrik-ipam as agent-host runs it in-process (cni-ipam.ts), against the test API server: which
// credentials its verbs use, and that the client it holds follows the kubeconfig file.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLogger } from '@fabrik/agent-runtime';
import { IpPool } from '@fabrik/api';
import { SPEC_VERSIONS, runPlugin } from '@fabrik/cni-skel';
import { IPPOOLS } from '@fabrik/ippool';
import { customObjects, loadKubeConfig } from '@fabrik/kube';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';
import { heldIpPoolClients, inProcessIpam } from './cni-ipam.js';

let api: KubeApiServer;
let dir: string;
const logger = createLogger({ name: 'test', level: 'silent' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-cni-ipam-'));
  api = await startKubeApiServer({ dir: join(dir, 'apiserver') });
  await customObjects(loadKubeConfig({ kubeconfig: api.kubeconfigPath }).kc, IPPOOLS, IpPool).create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name: 'pool-v4' },
    spec: { ipRanges: [{ cidr: '10.85.0.0/24' }], subnetInfo: { gateway: '10.85.0.1', prefixLength: 24 } },
  });
}, 120_000);

afterAll(async () => {
  await api?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** Node settings whose fabrik-ipam kubeconfig is `kubeconfig`; returns the file's path. */
async function settings(name: string, kubeconfig: string): Promise<string> {
  const path = join(dir, `${name}.yaml`);
  await writeFile(path, stringify({ ipam: { kubeconfig, timeoutMs: 60_000 } }));
  return path;
}

/** One fabrik-ipam verb run in-process, as agent-host's fast path runs it: exit code and output. */
async function verb(
  connect: ReturnType<typeof heldIpPoolClients>,
  command: 'ADD' | 'DEL',
  settingsPath: string,
  containerId: string,
): Promise<{ code: number; out: Record<string, unknown> }> {
  const env = {
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: '/proc/self/ns/net',
    CNI_IFNAME: 'net1',
    CNI_PATH: '/opt/cni/bin',
    CNI_ARGS: `K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-${containerId}`,
    FABRIK_CNI_CONFIG: settingsPath,
  };
  const stdin = JSON.stringify({
    cniVersion: '1.1.0',
    name: 'net',
    type: 'fabrik-ovs',
    ipam: { type: 'fabrik-ipam', ippools: ['pool-v4'] },
  });
  let stdout = '';
  const code = await runPlugin(
    inProcessIpam(connect)['fabrik-ipam']!(env),
    { versions: SPEC_VERSIONS },
    { env, stdin, stdout: (t) => (stdout += t) },
  );
  return { code, out: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {} };
}

describe('fabrik-ipam in agent-host', () => {
  it("with a cluster, agent-host's own credentials: the settings' kubeconfig is not read", async () => {
    const connect = heldIpPoolClients(loadKubeConfig({ kubeconfig: api.kubeconfigPath }).kc, logger);
    const path = await settings('no-kubeconfig', join(dir, 'absent.kubeconfig'));
    const added = await verb(connect, 'ADD', path, 'c1');
    expect(added).toMatchObject({ code: 0, out: { ips: [{ address: '10.85.0.2/24' }] } });
    expect(await verb(connect, 'DEL', path, 'c1')).toMatchObject({ code: 0 });
  });

  it("without one, the settings' kubeconfig, read again when the file changes", async () => {
    const connect = heldIpPoolClients(undefined, logger);
    const kubeconfig = join(dir, 'fabrik-ipam.kubeconfig');
    const path = await settings('with-kubeconfig', kubeconfig);
    // Missing: the plugin's own error (code 7 naming ipam.kubeconfig).
    const missing = await verb(connect, 'ADD', path, 'c2');
    expect(missing.code).toBe(1);
    expect(missing.out).toMatchObject({ code: 7, msg: expect.stringContaining('ipam.kubeconfig') });

    await writeFile(kubeconfig, await readText(api.kubeconfigPath));
    expect(await verb(connect, 'ADD', path, 'c2')).toMatchObject({ code: 0 });
    const first = await connect({ kubeconfig, timeoutMs: 60_000 });
    expect(await connect({ kubeconfig, timeoutMs: 60_000 })).toBe(first);

    // A rotated token, as the installer writes it: a new client with the new credentials.
    await writeFile(kubeconfig, (await readText(api.kubeconfigPath)).replace(/token: .*/, 'token: revoked'));
    expect(await connect({ kubeconfig, timeoutMs: 60_000 })).not.toBe(first);
    const refused = await verb(connect, 'DEL', path, 'c2');
    expect(refused.code).toBe(1);
    await writeFile(kubeconfig, await readText(api.kubeconfigPath));
    expect(await verb(connect, 'DEL', path, 'c2')).toMatchObject({ code: 0 });
  });
});

const readText = (path: string): Promise<string> => readFile(path, 'utf8');
