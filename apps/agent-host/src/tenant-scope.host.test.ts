// Tenant scoping on agent-host's CNI socket path (admission.ts): fabrik-ovs's verbs as the agent
// runs them, with real OVS, a real Pod netns and the real kube-apiserver (the CRDs of deploy/crds,
// Namespaces with labels). A Pod of a namespace the Layer2Network or IPPool does not select gets the
// error and nothing exists afterwards: no OVS port, no veth, no address in the pool's status.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLogger } from '@fabrik/agent-runtime';
import type { IntentObject } from '@fabrik/agent-runtime';
import { SPEC_VERSIONS, runPlugin } from '@fabrik/cni-skel';
import { ipPoolClient } from '@fabrik/ippool';
import { loadKubeConfig, type Informer, type Labels } from '@fabrik/kube';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { hostVethName } from '@fabrik/ovs-attachment';
import {
  createTempNetns,
  startKubeApiServer,
  startOvs,
  uniqueName,
  type KubeApiServer,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import type { KubeConfig } from '@kubernetes/client-node';
import { tenantAdmission, watchNamespaceLabels } from './admission.js';
import { heldIpPoolClients, inProcessIpam } from './cni-ipam.js';
import { fabrikOvsVerbs } from './cni-socket.js';
import { openOvsConnection, type OvsConnection } from './ovs-connection.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const TEAM_A = { matchLabels: { team: 'a' } };

let api: KubeApiServer;
let kc: KubeConfig;
let ovs: OvsInstance;
let connection: OvsConnection;
let namespaces: Informer<Labels>;
let pod: TempNetns;
let dir: string;
let settingsPath: string;
let cniPath: string;
let bridge: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-tenant-'));
  api = await startKubeApiServer({ dir: join(dir, 'apiserver') });
  kc = loadKubeConfig({ kubeconfig: api.kubeconfigPath }).kc;
  await api.kubectl('create', 'namespace', 'team-a');
  await api.kubectl('label', 'namespace', 'team-a', 'team=a');
  await api.kubectl('create', 'namespace', 'team-b');
  const manifest = join(dir, 'objects.yaml');
  await writeFile(
    manifest,
    [
      {
        apiVersion: 'network.fabrik.dev/v1alpha1',
        kind: 'Layer2Network',
        metadata: { name: 'blue' },
        spec: { vni: 2100, vlan: 100, namespaceSelector: TEAM_A },
      },
      {
        apiVersion: 'network.fabrik.dev/v1alpha1',
        kind: 'IPPool',
        metadata: { name: 'pool-a' },
        spec: {
          ipRanges: [{ cidr: '10.86.0.0/24' }],
          subnetInfo: { gateway: '10.86.0.1', prefixLength: 24 },
          namespaceSelector: TEAM_A,
        },
      },
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  );
  await api.kubectl('apply', '-f', manifest);

  ovs = await startOvs();
  bridge = uniqueName('brt');
  await ovs.addBridge(bridge);
  connection = openOvsConnection({
    endpoint: ovs.endpoint,
    logger,
    onCacheUpdate: () => undefined,
    onConnected: () => undefined,
  });
  namespaces = watchNamespaceLabels(kc, logger);
  await namespaces.waitForSync();
  pod = await createTempNetns('ften-');

  settingsPath = join(dir, 'settings.yaml');
  await writeFile(
    settingsPath,
    stringify({
      ovsdbSocket: ovs.endpoint,
      cacheDir: join(dir, 'cache'),
      ipam: { kubeconfig: api.kubeconfigPath, timeoutMs: 60_000 },
      timeouts: { ofportTimeoutMs: 30_000 },
    }),
  );
  // fabrik-ipam runs in-process; ADD still checks that the node has the plugin on CNI_PATH.
  cniPath = join(dir, 'bin');
  await mkdir(cniPath);
  await writeFile(join(cniPath, 'fabrik-ipam'), '#!/bin/sh\nexit 1\n');
  await chmod(join(cniPath, 'fabrik-ipam'), 0o755);
}, 180_000);

afterAll(async () => {
  await namespaces?.stop();
  await connection?.close();
  await pod?.destroy();
  await ovs?.stop();
  await api?.destroy();
  await rm(dir, { recursive: true, force: true });
});

/** The Layer2Networks as agent-host's Kubernetes source holds them. */
async function layer2Networks(): Promise<IntentObject[]> {
  return (JSON.parse(await api.kubectl('get', 'layer2networks', '-o', 'json')) as { items: IntentObject[] })
    .items;
}

/** One ADD through agent-host's verbs with tenant admission: exit code and answer. */
async function add(
  namespace: string,
  containerId: string,
  net: Record<string, unknown>,
): Promise<{ code: number; out: Record<string, unknown> }> {
  const objects = await layer2Networks();
  const verbs = fabrikOvsVerbs(
    connection,
    ovs.endpoint,
    inProcessIpam(heldIpPoolClients(kc, logger)),
    tenantAdmission({
      objects: () => objects,
      namespaceLabels: (name) => namespaces.get(name),
      ipPools: ipPoolClient(kc),
    }),
  );
  const env = {
    CNI_COMMAND: 'ADD',
    CNI_CONTAINERID: containerId,
    CNI_NETNS: pod.path,
    CNI_IFNAME: 'net1',
    CNI_PATH: cniPath,
    CNI_ARGS: `K8S_POD_NAMESPACE=${namespace};K8S_POD_NAME=pod-${containerId}`,
    FABRIK_CNI_CONFIG: settingsPath,
  };
  const stdin = JSON.stringify({ cniVersion: '1.1.0', type: 'fabrik-ovs', bridge, ...net });
  let stdout = '';
  const code = await runPlugin(
    verbs(env, () => undefined),
    { versions: SPEC_VERSIONS },
    { env, stdin, stdout: (t) => (stdout += t) },
  );
  return { code, out: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {} };
}

const ports = async (): Promise<string[]> =>
  (await ovs.vsctl('list-ports', bridge)).split('\n').filter(Boolean);
const hostLinkExists = async (name: string): Promise<boolean> =>
  (await runCommand('ip', ['link', 'show', name]).then(
    () => true,
    () => false,
  )) as boolean;
const allocated = async (): Promise<string[]> => {
  const pool = await ipPoolClient(kc).get('pool-a');
  return (pool.status?.ipAddresses ?? []).map((a) => `${a.ipAddress} ${a.owner.pod?.namespace ?? ''}`);
};

describe('tenant scoping on the CNI socket path', () => {
  it('a Pod of a namespace the Layer2Network does not select: the error, and no port, no veth', async () => {
    const refused = await add('team-b', 'c-net-b', { name: 'blue-nad', vlan: 100 });
    expect(refused.code).toBe(1);
    expect(refused.out).toMatchObject({
      code: 103,
      msg: 'network config blue-nad: Layer2Network blue (VLAN 100) does not allow Pods of namespace team-b (spec.namespaceSelector)',
    });
    expect(await ports()).toEqual([]);
    expect(await hostLinkExists(hostVethName('c-net-b', 'net1'))).toBe(false);
    expect(await pod.ip('link', 'show')).not.toContain('net1');
  });

  it('a Pod of a namespace the IPPool does not select: the error, and no address allocated', async () => {
    const refused = await add('team-b', 'c-pool-b', {
      name: 'pool-nad',
      ipam: { type: 'fabrik-ipam', ippools: ['pool-a'] },
    });
    expect(refused.out).toMatchObject({
      code: 103,
      msg: 'network config pool-nad: IPPool pool-a does not allow Pods of namespace team-b (spec.namespaceSelector)',
    });
    expect(await allocated()).toEqual([]);
    expect(await ports()).toEqual([]);
  });

  it('a Pod of a selected namespace attaches: its port on VLAN 100 and an address from the pool', async () => {
    const added = await add('team-a', 'c-a', {
      name: 'blue-pool-nad',
      vlan: 100,
      ipam: { type: 'fabrik-ipam', ippools: ['pool-a'] },
    });
    expect(added).toMatchObject({ code: 0, out: { ips: [{ address: '10.86.0.2/24' }] } });
    const host = hostVethName('c-a', 'net1');
    expect(await ports()).toEqual([host]);
    expect((await ovs.vsctl('get', 'port', host, 'tag')).trim()).toBe('100');
    expect(await allocated()).toEqual(['10.86.0.2 team-a']);
  });

  it('a trunk over a network that does not allow trunks is refused', async () => {
    const refused = await add('team-a', 'c-trunk', { name: 'trunk-nad', trunk: [{ id: 100 }] });
    expect(refused.out).toMatchObject({
      code: 103,
      msg: 'network config trunk-nad: Layer2Network blue (VLAN 100) does not allow trunks (spec.allowTrunks)',
    });
    expect(await hostLinkExists(hostVethName('c-trunk', 'net1'))).toBe(false);
  });
});

describe('the API server (the CRDs of deploy/crds)', () => {
  /** `kubectl apply` of `object`: its error output, or undefined when accepted. */
  const applyError = async (object: Record<string, unknown>): Promise<string | undefined> => {
    const file = join(dir, `${uniqueName('obj')}.yaml`);
    await writeFile(file, stringify(object));
    return api.kubectl('apply', '-f', file).then(
      () => undefined,
      (e: unknown) => (isCommandError(e) ? e.stderr : String(e)),
    );
  };

  it('refuses a BGPPeering naming a file of the node, with the field and the way out', async () => {
    const refused = await applyError({
      apiVersion: 'network.fabrik.dev/v1alpha1',
      kind: 'BGPPeering',
      metadata: { name: 'tenant-file' },
      spec: { vrf: 'red', address: '10.2.0.50', remoteAs: 64512, passwordFile: '/etc/shadow' },
    });
    expect(refused).toContain('spec.passwordFile');
    expect(refused).toContain(
      "removed from BGPPeerings in the cluster: give the password in a Secret of the agents' namespace (passwordSecretRef)",
    );
    expect(
      await applyError({
        apiVersion: 'network.fabrik.dev/v1alpha1',
        kind: 'BGPPeering',
        metadata: { name: 'tenant-secret' },
        spec: { vrf: 'red', address: '10.2.0.50', remoteAs: 64512, passwordSecretRef: { name: 'red-bgp' } },
      }),
    ).toBeUndefined();
  });

  it('accepts a namespaceSelector picking namespaces by name and a trunk allowance', async () => {
    expect(
      await applyError({
        apiVersion: 'network.fabrik.dev/v1alpha1',
        kind: 'Layer2Network',
        metadata: { name: 'green' },
        spec: {
          vni: 2200,
          vlan: 200,
          allowTrunks: true,
          namespaceSelector: {
            matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['team-a'] }],
          },
        },
      }),
    ).toBeUndefined();
    const spec = JSON.parse(await api.kubectl('get', 'layer2network', 'green', '-o', 'jsonpath={.spec}')) as {
      allowTrunks?: boolean;
      namespaceSelector?: unknown;
    };
    expect(spec).toMatchObject({
      allowTrunks: true,
      namespaceSelector: { matchExpressions: [{ values: ['team-a'] }] },
    });
  });
});
