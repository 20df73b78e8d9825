// RBAC proven, not assumed: the RBAC objects and admission policies of each kustomization, applied
// with kubectl to the test API server with authorization on, and each ServiceAccount's token (bound
// to a Pod on its node, as a DaemonSet's projected token is) driving the very client code its agent
// runs (@fabrik/agent-runtime's Kubernetes source and node status sink, @fabrik/kube's
// event recorder; @fabrik/ippool's calls for fabrik-ipam): every call it makes is allowed, a call
// outside its role is 403, and what each role grants equals expected-rules.ts.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { KubeConfig } from '@kubernetes/client-node';
import {
  BGP_PEERING_RESOURCE,
  IP_POOL_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
  type NodeNetworkStatusSection,
} from '@fabrik/api';
import { parseIntentDocuments, writeFileAtomic } from '@fabrik/agent-runtime';
import { createKubernetesSource, createNodeStatusSink } from '@fabrik/agent-runtime/kubernetes';
import { NODES, addNodeTaint, createEventRecorder, customObjects, isForbiddenError } from '@fabrik/kube';
import { allocate, collectGarbage, ipPoolClient, release } from '@fabrik/ippool';
import { runCommand } from '@fabrik/netcore';
import {
  createTempNetns,
  sourceCommand,
  startAgentProcess,
  startKubeApiServer,
  startFrr,
  until,
  type KubeApiServer,
  type FrrInstance,
} from '@fabrik/testkit';
import { EXPECTED_GRANTS, flattenRules } from './expected-rules.js';
import { untilPolicyEnforced } from './installed.js';
import { REPO_ROOT, kubectlPath, renderKustomization, type KubeObject } from './render.js';

/** What decides what a token may do: RBAC, and the admission policies that narrow it to its node. */
const RBAC_KINDS = new Set([
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'Namespace',
  'ServiceAccount',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
]);
const NODE = 'node-1';
/** The namespaces where deploy/ binds Roles: Secrets in fabrik-system, Events in default. */
const RULE_NAMESPACES = ['fabrik-system', 'default'];
const anyObject = { parse: (raw: unknown) => raw as { metadata: { name: string } } };
const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});

let api: KubeApiServer;
let admin: KubeConfig;
let home: string;

/**
 * Applies the RBAC objects and admission policies of a kustomization with kubectl 1.32, as
 * `kubectl apply -k` would.
 */
async function applyRbacOf(kustomization: string): Promise<void> {
  const { objects } = await renderKustomization(join(REPO_ROOT, kustomization), '1.32');
  const rbac = objects.filter((o: KubeObject) => RBAC_KINDS.has(o.kind));
  await runCommand(kubectlPath('1.32'), ['apply', '-f', '-'], {
    input: rbac.map((o) => `---\n${stringify(o)}`).join(''),
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, KUBECONFIG: api.kubeconfigPath },
    timeoutMs: 60_000,
  });
}

async function serviceAccountKubeConfig(name: string): Promise<KubeConfig> {
  const kc = new KubeConfig();
  // Bound to a Pod on NODE, as a DaemonSet's projected token is (the node claim the policies check).
  kc.loadFromFile(await api.writeServiceAccountKubeconfig('fabrik-system', name, { node: NODE }));
  return kc;
}

async function expectForbidden(call: Promise<unknown>): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isForbiddenError(error), `expected 403, got ${String(error)}`).toBe(true);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'fabrik-rbac-home-'));
  api = await startKubeApiServer({ crdDirs: [join(REPO_ROOT, 'deploy/crds')] });
  admin = new KubeConfig();
  admin.loadFromFile(api.kubeconfigPath);
  await customObjects(admin, NODES, anyObject).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE, labels: { 'kubernetes.io/hostname': NODE } },
  });
  // The node lifecycle controller (not run here) lifts the admission's not-ready taint once the
  // kubelet reports Ready: the agents' tests see only the taints they own.
  await customObjects(admin, NODES, anyObject).patch(NODE, { spec: { taints: null } });
  await customObjects(admin, gvr(VRF_RESOURCE), anyObject).create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'VRF',
    metadata: { name: 'red' },
    spec: { vni: 1001 },
  });
  await customObjects(admin, gvr(IP_POOL_RESOURCE), anyObject).create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name: 'pool-a' },
    spec: { subnetInfo: { gateway: '10.9.0.1', prefixLength: 24 }, ipRanges: [{ cidr: '10.9.0.0/25' }] },
  });
  await applyRbacOf('deploy/base');
  // The agents' calls below are proven under fabrik-agent-node-scope, not before it is loaded.
  await untilPolicyEnforced(api, 'fabrik-agent-node-scope', [
    'label',
    'node',
    NODE,
    'probe=1',
    '--as=system:serviceaccount:fabrik-system:fabrik-agent-host',
  ]);
  await customObjects(admin, { group: '', version: 'v1', plural: 'secrets' }, anyObject).create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bgp-password', namespace: 'fabrik-system' },
    data: { password: Buffer.from('s3cret').toString('base64') },
  });
}, 120_000);

afterAll(async () => {
  await api?.destroy();
  await rm(home, { recursive: true, force: true });
});

/**
 * Everything fabrik-ipam does with the API: @fabrik/ippool's client is all it has of it (its
 * IpPoolClient: get, and PUT of the status), the allocator's own calls. The fabrik-ipam binary
 * runs them with the kubeconfig the installer writes from fabrik-cni's token; agent-host runs them
 * in-process on its CNI socket (the fast path) with its own credentials.
 */
async function exerciseIpam(kc: KubeConfig): Promise<void> {
  const client = ipPoolClient(kc);
  const owner = (containerID: string) => ({
    name: `pod-${containerID}`,
    namespace: 'default',
    containerID,
    ifName: 'net1',
    network: 'web',
  });
  const [a] = await allocate(client, { pools: ['pool-a'], owner: owner('c1') });
  await allocate(client, { pools: ['pool-a'], owner: owner('c2') });
  const addresses = async () =>
    (
      (await customObjects(admin, gvr(IP_POOL_RESOURCE), anyObject).get('pool-a')) as unknown as {
        status?: { ipAddresses?: { ipAddress: string; owner: { pod?: { containerID: string } } }[] };
      }
    ).status?.ipAddresses?.map((e) => e.owner.pod?.containerID) ?? [];
  expect((await addresses()).sort()).toEqual(['c1', 'c2']);
  expect(a?.address).toMatch(/^10\.9\.0\.\d+$/);
  await release(client, { pools: ['pool-a'], attachment: { containerID: 'c1', ifName: 'net1' } });
  expect(await addresses()).toEqual(['c2']);
  await collectGarbage(client, { pools: ['pool-a'], network: 'web', valid: [] });
  expect(await addresses()).toEqual([]);
}

/**
 * Everything a node agent (agent-host, or agent-netns with a Kubernetes source) does with the API,
 * through the very wiring both agents use: @fabrik/agent-runtime's Kubernetes intent source and
 * node status sink, and @fabrik/kube's event recorder.
 */
async function exerciseNodeAgent(kc: KubeConfig, section: string, conditionType: string): Promise<void> {
  const source = createKubernetesSource({
    kc,
    nodeName: NODE,
    kinds: [
      { kind: 'VRF', resource: gvr(VRF_RESOURCE) },
      { kind: 'Layer2Network', resource: gvr(LAYER2_NETWORK_RESOURCE) },
      { kind: 'BGPPeering', resource: gvr(BGP_PEERING_RESOURCE) },
    ],
    secretNamespace: 'fabrik-system',
  });
  const changes: string[] = [];
  await source.start((reason) => changes.push(reason));
  try {
    await expect.poll(() => source.hasSynced(), { timeout: 10_000 }).toBe(true);
    expect(source.snapshot().objects.map((o) => o.metadata.name)).toContain('red');
    expect(source.snapshot().problems).toEqual([]);
    // BGPPeerings' passwords: the Secrets of fabrik-system.
    expect(source.snapshot().secrets?.get('bgp-password')).toEqual({ password: 's3cret' });
    // The watches are allowed too: an object created now arrives through them.
    const name = `blue-${section}`;
    await customObjects(admin, gvr(VRF_RESOURCE), anyObject).create({
      apiVersion: 'network.fabrik.dev/v1alpha1',
      kind: 'VRF',
      metadata: { name },
      spec: { vni: section === 'host' ? 1002 : 1003 },
    });
    await expect
      .poll(() => source.snapshot().objects.map((o) => o.metadata.name), { timeout: 10_000 })
      .toContain(name);
  } finally {
    await source.stop();
  }

  await addNodeTaint(admin, NODE, { key: 'fabrik.dev/not-ready', effect: 'NoSchedule' });
  const sink = createNodeStatusSink<NodeNetworkStatusSection>({
    kc,
    nodeName: NODE,
    resource: gvr(NODE_NETWORK_STATUS_RESOURCE),
    kind: 'NodeNetworkStatus',
    section,
    nodeConditionType: conditionType,
    startupTaint: { key: 'fabrik.dev/not-ready', effect: 'NoSchedule' },
  });
  await sink.write({
    configStatus: 'provisioned',
    lastUpdate: '2026-01-01T00:00:00Z', // the writer stamps its own
    conditions: [
      {
        type: conditionType,
        status: 'True',
        reason: 'Applied',
        message: 'ok',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  });
  const nns = (await customObjects(admin, gvr(NODE_NETWORK_STATUS_RESOURCE), anyObject).get(
    NODE,
  )) as unknown as {
    status: Record<string, unknown>;
  };
  expect(nns.status[section]).toMatchObject({ configStatus: 'provisioned' });
  const node = (await customObjects(admin, NODES, anyObject).get(NODE)) as unknown as {
    spec?: { taints?: unknown[] };
    status: { conditions: { type: string; status: string }[] };
  };
  expect(node.spec?.taints ?? []).toEqual([]);
  expect(node.status.conditions).toContainEqual(
    expect.objectContaining({ type: conditionType, status: 'True' }),
  );

  const failures: string[] = [];
  const recorder = createEventRecorder({
    kc,
    component: 'rbac-test',
    host: NODE,
    log: {
      warn: (...a: unknown[]) => failures.push(JSON.stringify(a)),
      error: (...a: unknown[]) => failures.push(JSON.stringify(a)),
    } as never,
  });
  const ref = { apiVersion: 'v1', kind: 'Node', name: NODE };
  recorder.event(ref, 'Normal', 'RbacTest', `${section} event`);
  await recorder.flush();
  recorder.event(ref, 'Normal', 'RbacTest', `${section} event`); // the same again: a patch of count
  await recorder.flush();
  expect(failures).toEqual([]);
  const events = await customObjects(admin, { group: '', version: 'v1', plural: 'events' }, anyObject).list({
    namespace: 'default',
  });
  const mine = events.items.filter(
    (e) => (e as unknown as { message: string }).message === `${section} event`,
  );
  expect(mine.map((e) => (e as unknown as { count: number }).count)).toEqual([2]);

  // Outside the role: 403.
  await expectForbidden(customObjects(kc, gvr(VRF_RESOURCE), anyObject).delete('red'));
  // (agent-host may get an IPPool for fabrik-ipam's in-process calls, see exerciseIpam; no agent lists them)
  await expectForbidden(customObjects(kc, gvr(IP_POOL_RESOURCE), anyObject).list());
  // Secrets of any other namespace, and reading one Secret by name, stay refused.
  const secrets = customObjects(kc, { group: '', version: 'v1', plural: 'secrets' }, anyObject);
  await expectForbidden(secrets.list({ namespace: 'default' }));
  await expectForbidden(secrets.list());
  await expectForbidden(secrets.get('bgp-password', 'fabrik-system'));
  await expectForbidden(customObjects(kc, NODES, anyObject).delete(NODE));
  await expectForbidden(
    customObjects(kc, { group: '', version: 'v1', plural: 'events' }, anyObject).list({
      namespace: 'kube-system',
    }),
  );
}

/** An agent that {@link runAgent} runs. */
interface AgentRun {
  /** Its entry point, relative to the repository (`run --config FILE` is appended). */
  readonly cli: string;
  /** The ServiceAccount (in fabrik-system) whose token its Kubernetes source uses. */
  readonly serviceAccount: string;
  /** Its Node, created with `labels` and the startup taint `taint`. */
  readonly node: string;
  readonly labels?: Record<string, string>;
  readonly taint: { readonly key: string; readonly effect: 'NoSchedule' };
  /** Where its config file and state directory go. */
  readonly dir: string;
  /** Its own settings (the source, taint, state directory and endpoints are added). */
  readonly config: Record<string, unknown>;
}

/** What the agent wrote, as the admin reads it. */
interface AgentView {
  nodeNetworkStatus(): Promise<{
    metadata: { ownerReferences?: { kind: string; name: string }[] };
    status?: Record<string, { configStatus?: string } | undefined>;
  }>;
  /** Whether the Node's condition `type` is True. */
  conditionTrue(type: string): Promise<boolean>;
  /**
   * Waits until the agent is ready as its node sees it: its `section` of the NodeNetworkStatus
   * provisioned (the object owned by the Node), the Node's condition `condition` True, and the
   * startup taint gone.
   */
  becomesReady(section: string, condition: string, timeoutMs?: number): Promise<void>;
}

/**
 * Runs an agent from its sources with its ServiceAccount's token, in this machine's namespace
 * (where the test API server is), while `check` runs: the agent must never meet a refusal (a 403
 * is logged, then retried, by every caller), and must exit 0 on SIGTERM.
 */
async function runAgent(run: AgentRun, check: (view: AgentView) => Promise<void>): Promise<void> {
  await customObjects(admin, NODES, anyObject).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: run.node, ...(run.labels ? { labels: run.labels } : {}) },
    spec: { taints: [run.taint] },
  });
  const configPath = join(run.dir, 'agent.yaml');
  await writeFile(
    configPath,
    stringify({
      ...run.config,
      source: {
        kind: 'kubernetes',
        kubeconfig: await api.writeServiceAccountKubeconfig('fabrik-system', run.serviceAccount, {
          node: run.node,
        }),
      },
      startupTaint: run.taint,
      stateDir: join(run.dir, 'state'),
      metricsAddress: '127.0.0.1:0',
      healthAddress: '127.0.0.1:0',
    }),
  );
  const nodeObject = async () =>
    (await customObjects(admin, NODES, anyObject).get(run.node)) as unknown as {
      spec?: { taints?: { key: string }[] };
      status?: { conditions?: { type: string; status: string }[] };
    };
  const nodeNetworkStatus: AgentView['nodeNetworkStatus'] = async () =>
    (await customObjects(admin, gvr(NODE_NETWORK_STATUS_RESOURCE), anyObject).get(
      run.node,
    )) as unknown as Awaited<ReturnType<AgentView['nodeNetworkStatus']>>;
  const conditionTrue: AgentView['conditionTrue'] = async (type) =>
    (await nodeObject()).status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const view: AgentView = {
    nodeNetworkStatus,
    conditionTrue,
    async becomesReady(section, condition, timeoutMs) {
      const status = await until(
        `the ${section} section`,
        async () => (await nodeNetworkStatus()).status?.[section],
        timeoutMs,
      );
      expect(status).toMatchObject({ configStatus: 'provisioned' });
      expect((await nodeNetworkStatus()).metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Node', name: run.node }),
      ]);
      await until(`${condition} on the Node`, () => conditionTrue(condition));
      await until(
        'the startup taint removed',
        async () => !((await nodeObject()).spec?.taints ?? []).some((t) => t.key === run.taint.key),
      );
    },
  };
  const agent = startAgentProcess({
    command: sourceCommand(join(REPO_ROOT, run.cli), 'run', '--config', configPath),
    cwd: REPO_ROOT,
    env: { NODE_NAME: run.node },
  });
  const output = () => `${agent.logs.map((l) => JSON.stringify(l)).join('\n')}\n${agent.stderr()}`;
  try {
    await check(view);
    expect(output()).not.toMatch(/forbidden|\b403\b/i);
  } finally {
    expect(await agent.stop(), output().slice(-3000)).toBe(0);
  }
}

describe('deploy/base', () => {
  it("agent-host itself, run with fabrik-agent-host's token and deploy/base's config: every call it makes is allowed", async () => {
    // The process, not a model of it: whatever agent-host calls today is what the role must allow.
    // Each call shows in state only the API could have written: the relay file (list and watch of
    // VRFs, Layer2Networks and its Node), NodeNetworkStatus created with the Node as owner (get,
    // create, get node), its host and netns sections (patch status), the Node conditions (patch
    // nodes/status), the startup taint gone (patch nodes), the HostReady Event (create events).
    const node = 'node-agent-host';
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-rbac-agent-host-'));
    // deploy/base's agent-host config with this test's paths, and no bridge or trunk: nothing to
    // create in this machine's network namespace (where the test API server is reachable).
    const base = parse(
      await readFile(join(REPO_ROOT, 'deploy/base/config/agent-host.yaml'), 'utf8'),
    ) as Record<string, unknown>;
    const relay = {
      intentFile: join(dir, 'relay/intent.yaml'),
      statusFile: join(dir, 'relay/netns-status.json'),
    };
    const agentHost: AgentRun = {
      cli: 'apps/agent-host/src/cli.ts',
      serviceAccount: 'fabrik-agent-host',
      node,
      labels: { rack: 'r1' },
      taint: { key: 'fabrik.dev/host-not-ready', effect: 'NoSchedule' },
      dir,
      config: {
        ...base,
        secondaryNetwork: { ovsBridges: [] },
        trunk: undefined,
        ovsdbSocket: `unix:${join(dir, 'no-ovs.sock')}`,
        relay,
      },
    };
    try {
      await runAgent(agentHost, async ({ nodeNetworkStatus: nns, conditionTrue, becomesReady }) => {
        const relayed = async () =>
          parseIntentDocuments(await readFile(relay.intentFile, 'utf8'), { where: 'relay', nodeName: node });
        const first = await until('the relay file', relayed);
        expect(first.node).toEqual({ name: node, labels: { rack: 'r1' } });
        expect(first.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toContain('VRF/red');
        await customObjects(admin, gvr(LAYER2_NETWORK_RESOURCE), anyObject).create({
          apiVersion: 'network.fabrik.dev/v1alpha1',
          kind: 'Layer2Network',
          metadata: { name: 'web' },
          spec: { vni: 2100, vlan: 100 },
        });
        await until('the Layer2Network created after the start, through the watch', async () =>
          (await relayed()).objects.some((o) => o.metadata.name === 'web'),
        );

        await becomesReady('host', 'FabrikHostReady');
        await until('the HostReady Event', async () =>
          (
            await customObjects(admin, { group: '', version: 'v1', plural: 'events' }, anyObject).list({
              namespace: 'default',
            })
          ).items.some((e) => {
            const event = e as unknown as { reason: string; involvedObject: { name: string } };
            return event.reason === 'HostReady' && event.involvedObject.name === node;
          }),
        );

        await writeFileAtomic(
          relay.statusFile,
          JSON.stringify({
            configStatus: 'provisioned',
            // Fresh, as agent-netns writes it: an older status means agent-netns stopped reporting.
            lastUpdate: new Date().toISOString(),
            conditions: [
              {
                type: 'FabrikNetnsReady',
                status: 'True',
                reason: 'Provisioned',
                message: 'all applied',
                lastTransitionTime: '2026-11-30T10:00:00Z',
              },
            ],
          }),
        );
        await until('the netns section relayed', async () => (await nns()).status?.netns?.configStatus);
        await until('FabrikNetnsReady on the Node', () => conditionTrue('FabrikNetnsReady'));
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('agent-host: its informers, status, Node condition and taint, and events are allowed; nothing else', async () => {
    await exerciseNodeAgent(await serviceAccountKubeConfig('fabrik-agent-host'), 'host', 'FabrikHostReady');
  });

  it("agent-host's token: fabrik-ipam's calls, which it makes in-process on its CNI socket, are allowed", async () => {
    await exerciseIpam(await serviceAccountKubeConfig('fabrik-agent-host'));
  });

  it("fabrik-cni's token (fabrik-ipam): allocate, release and collect garbage with @fabrik/ippool; nothing else", async () => {
    const kc = await serviceAccountKubeConfig('fabrik-cni');
    await exerciseIpam(kc);
    const pools = customObjects(kc, gvr(IP_POOL_RESOURCE), anyObject);
    const pool = (await pools.get('pool-a')) as unknown as Record<string, unknown>;
    await expectForbidden(pools.list());
    await expectForbidden(pools.patch('pool-a', { metadata: { labels: { a: 'b' } } }));
    await expectForbidden(pools.replace(pool as never));
    await expectForbidden(pools.delete('pool-a'));
    await expectForbidden(customObjects(kc, gvr(VRF_RESOURCE), anyObject).list());
    await expectForbidden(customObjects(kc, NODES, anyObject).get(NODE));
  });

  it('fabrik-hbr: no permission at all (its intent comes through the relay)', async () => {
    const kc = await serviceAccountKubeConfig('fabrik-hbr');
    await expectForbidden(customObjects(kc, gvr(VRF_RESOURCE), anyObject).list());
    await expectForbidden(customObjects(kc, NODES, anyObject).get(NODE));
  });

  it('each ServiceAccount is granted exactly the expected rules', async () => {
    for (const [sa, expected] of Object.entries(EXPECTED_GRANTS['deploy/base']!)) {
      const granted = flattenRules(await api.rulesFor('fabrik-system', sa, RULE_NAMESPACES));
      console.log(`deploy/base ${sa}:\n  ${granted.join('\n  ') || '(nothing)'}`);
      expect(granted, sa).toEqual([...expected].sort());
    }
  });
});

describe('deploy/overlays/netns-kubernetes-source', () => {
  beforeAll(() => applyRbacOf('deploy/overlays/netns-kubernetes-source'), 60_000);

  it('fabrik-hbr (agent-netns watching the API itself): the node agent calls are allowed; nothing else', async () => {
    await exerciseNodeAgent(await serviceAccountKubeConfig('fabrik-hbr'), 'netns', 'FabrikNetnsReady');
  });

  it("agent-netns itself, run with fabrik-hbr's token and a Kubernetes source: every call it makes is allowed", async () => {
    // The daemon (in this machine's namespace, where the test API server is, managing a throwaway
    // netns with its own FRR). This kernel has no vrf or 8021q module, so the intent starts empty:
    // the agent applies its base state and reports provisioned; an object created afterwards
    // reaches it through the watch and shows in its status.
    for (const resource of [VRF_RESOURCE, LAYER2_NETWORK_RESOURCE]) {
      const objects = customObjects(admin, gvr(resource), anyObject);
      for (const o of (await objects.list()).items) await objects.delete(o.metadata.name);
    }
    const node = 'node-agent-netns';
    const dir = await mkdtemp(join(tmpdir(), 'fabrik-rbac-agent-netns-'));
    const hbr = await createTempNetns('rbacnn');
    let frr: FrrInstance | undefined;
    try {
      await hbr.ip('link', 'add', 'tr', 'type', 'veth', 'peer', 'name', 'tr-peer');
      frr = await startFrr({ netns: hbr.name });
      const agentNetns: AgentRun = {
        cli: 'apps/agent-netns/src/main.ts',
        serviceAccount: 'fabrik-hbr',
        node,
        taint: { key: 'fabrik.dev/netns-not-ready', effect: 'NoSchedule' },
        dir,
        config: { asn: 65001, routerId: '192.0.2.9', vtepIp: '192.0.2.9', netns: hbr.name },
      };
      await runAgent(agentNetns, async ({ nodeNetworkStatus: nns, becomesReady }) => {
        await becomesReady('netns', 'FabrikNetnsReady', 60_000);
        // Through the watch: a Layer2Network created now is this node's (no nodeSelector); the
        // kernel cannot apply it, and the status says so, naming it, as does an Event.
        await customObjects(admin, gvr(LAYER2_NETWORK_RESOURCE), anyObject).create({
          apiVersion: 'network.fabrik.dev/v1alpha1',
          kind: 'Layer2Network',
          metadata: { name: 'late' },
          spec: { vni: 2999, vlan: 999 },
        });
        await until('the late Layer2Network in the status', async () =>
          JSON.stringify((await nns()).status?.netns).includes('late'),
        );
        await until('its Event about it', async () =>
          (
            await customObjects(admin, { group: '', version: 'v1', plural: 'events' }, anyObject).list({
              namespace: 'default',
            })
          ).items.some(
            (e) =>
              (e as unknown as { source?: { component?: string } }).source?.component ===
              'fabrik-agent-netns',
          ),
        );
      });
    } finally {
      await frr?.stop();
      await hbr.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('fabrik-hbr is granted exactly the expected rules', async () => {
    const granted = flattenRules(await api.rulesFor('fabrik-system', 'fabrik-hbr', RULE_NAMESPACES));
    console.log(`netns-kubernetes-source fabrik-hbr:\n  ${granted.join('\n  ')}`);
    expect(granted).toEqual(
      [...EXPECTED_GRANTS['deploy/overlays/netns-kubernetes-source']!['fabrik-hbr']!].sort(),
    );
  });
});
