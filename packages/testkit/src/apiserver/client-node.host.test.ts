// The test API server driven by @kubernetes/client-node 1.4, a client no one here wrote: CRUD,
// list/watch, informers across a forced 410 relist and a server restart, conflicting status
// writers, and the three patch formats on Node conditions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1Node,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './server.js';

const FIXTURE_CRDS = join(import.meta.dirname, '__fixtures__', 'crds');
const GROUP = 'network.fabrik.dev';
const VERSION = 'v1alpha1';

let server: ApiServer;
let dir: string;
let kc: KubeConfig;
let core: CoreV1Api;
let custom: CustomObjectsApi;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-test-'));
  server = await startApiServer({ dir, crdDirs: [FIXTURE_CRDS], historyLimit: 200, bookmarkIntervalMs: 200 });
  kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function l2(name: string, vni: number, vlan: number): object {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Layer2Network',
    metadata: { name },
    spec: { vni, vlan },
  };
}

function statusCode(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

describe('custom resources through client-node', () => {
  it('creates with defaults, reads, lists with a label selector and pages, and refuses invalid objects with 422', async () => {
    const created = (await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      body: { ...l2('cn-a', 20001, 101), metadata: { name: 'cn-a', labels: { tier: 'a' } } },
    })) as { spec: { mtu: number; options: { learning: boolean } }; metadata: { generation: number } };
    expect(created.spec.mtu).toBe(1500);
    expect(created.spec.options).toEqual({ learning: false });
    expect(created.metadata.generation).toBe(1);
    for (const [i, tier] of ['b', 'b', 'c'].entries()) {
      await custom.createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        body: { ...l2(`cn-${i}`, 20010 + i, 110 + i), metadata: { name: `cn-${i}`, labels: { tier } } },
      });
    }
    const selected = (await custom.listClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      labelSelector: 'tier in (b,c),tier!=c',
    })) as { items: KubernetesObject[] };
    expect(selected.items.map((o) => o.metadata?.name)).toEqual(['cn-0', 'cn-1']);

    const names: string[] = [];
    let cont: string | undefined;
    do {
      const page = (await custom.listClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        limit: 2,
        ...(cont ? { _continue: cont } : {}),
      })) as { items: KubernetesObject[]; metadata: { continue?: string } };
      expect(page.items.length).toBeLessThanOrEqual(2);
      names.push(...page.items.map((o) => o.metadata!.name!));
      cont = page.metadata.continue;
    } while (cont);
    expect(names.filter((n) => n.startsWith('cn-'))).toEqual(['cn-0', 'cn-1', 'cn-2', 'cn-a']);

    const refused = await custom
      .createClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        body: l2('cn-bad', 20099, 5000),
      })
      .catch((err: unknown) => err);
    expect(statusCode(refused)).toBe(422);
    expect(JSON.parse((refused as ApiException<string>).body).message).toBe(
      'Layer2Network.network.fabrik.dev "cn-bad" is invalid: spec.vlan: Invalid value: 5000: spec.vlan in body should be less than or equal to 4094',
    );
  });

  it('keeps generation for status writes and bumps it for spec changes; a stale resourceVersion gets 409', async () => {
    const obj = (await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      body: l2('gen', 20100, 120),
    })) as { metadata: { resourceVersion: string }; status?: unknown };
    const withStatus = (await custom.patchClusterCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        name: 'gen',
        body: { status: { observedGeneration: 1 }, spec: { vlan: 999 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as {
      metadata: { generation: number; resourceVersion: string };
      spec: { vlan: number };
      status: unknown;
    };
    expect(withStatus.metadata.generation).toBe(1);
    expect(withStatus.spec.vlan).toBe(120);
    expect(withStatus.status).toEqual({ observedGeneration: 1 });

    const changed = (await custom.replaceClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      name: 'gen',
      body: { ...l2('gen', 20100, 121), status: { observedGeneration: 7 } },
    })) as { metadata: { generation: number }; status: unknown };
    expect(changed.metadata.generation).toBe(2);
    expect(changed.status).toEqual({ observedGeneration: 1 });

    const stale = await custom
      .replaceClusterCustomObject({
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        name: 'gen',
        body: {
          ...l2('gen', 20100, 122),
          metadata: { name: 'gen', resourceVersion: obj.metadata.resourceVersion },
        },
      })
      .catch((err: unknown) => err);
    expect(statusCode(stale)).toBe(409);
  });

  it('deletes an object with a finalizer only when the finalizer is removed', async () => {
    await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      body: {
        ...l2('fin', 20200, 130),
        metadata: { name: 'fin', finalizers: ['network.fabrik.dev/cleanup'] },
      },
    });
    await custom.deleteClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      name: 'fin',
    });
    const terminating = (await custom.getClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'layer2networks',
      name: 'fin',
    })) as KubernetesObject;
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    await custom.patchClusterCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'layer2networks',
        name: 'fin',
        body: [{ op: 'remove', path: '/metadata/finalizers' }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    const gone = await custom
      .getClusterCustomObject({ group: GROUP, version: VERSION, plural: 'layer2networks', name: 'fin' })
      .catch((err: unknown) => err);
    expect(statusCode(gone)).toBe(404);
  });
});

describe('informers', () => {
  it('see every change across a forced 410 relist and a server restart', async () => {
    const path = `/apis/${GROUP}/${VERSION}/vrfs`;
    const list = () =>
      custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'vrfs' }) as never;
    const informer = makeInformer<KubernetesObject>(kc, path, list);
    const seen = new Map<string, number>();
    const record = (obj: KubernetesObject) => {
      const spec = (obj as { spec?: { vni?: number } }).spec;
      seen.set(obj.metadata!.name!, spec?.vni ?? -1);
    };
    informer.on('add', record);
    informer.on('update', record);
    informer.on('delete', (obj) => seen.delete(obj.metadata!.name!));
    // client-node stops an informer on any error but 410; a supervisor restarts it (as @fabrik/kube does).
    informer.on('error', () => setTimeout(() => void informer.start().catch(() => undefined), 100));
    await informer.start();
    const vrf = (name: string, vni: number) => ({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'VRF',
      metadata: { name },
      spec: { vni },
    });
    await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'vrfs',
      body: vrf('inf-a', 1),
    });
    await until('inf-a', () => seen.get('inf-a') === 1);

    server.compact();
    await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'vrfs',
      body: vrf('inf-b', 2),
    });
    await custom.patchClusterCustomObject(
      { group: GROUP, version: VERSION, plural: 'vrfs', name: 'inf-a', body: { spec: { vni: 11 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await until(
      'inf-b and the change to inf-a after compaction',
      () => seen.get('inf-b') === 2 && seen.get('inf-a') === 11,
    );

    await server.restart();
    await custom.deleteClusterCustomObject({ group: GROUP, version: VERSION, plural: 'vrfs', name: 'inf-b' });
    await custom.createClusterCustomObject({
      group: GROUP,
      version: VERSION,
      plural: 'vrfs',
      body: vrf('inf-c', 3),
    });
    await until('the changes after the restart', () => !seen.has('inf-b') && seen.get('inf-c') === 3);
    expect(Object.fromEntries(seen)).toEqual({ 'inf-a': 11, 'inf-c': 3 });
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['inf-a', 'inf-c']);
    await informer.stop();
  });
});

describe('Node status', () => {
  const kubeletReady = {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
  };

  async function createNode(name: string): Promise<void> {
    await core.createNode({
      body: { metadata: { name, labels: { role: 'worker' } }, status: { conditions: [kubeletReady] } },
    });
  }

  function conditionTypes(node: V1Node): string[] {
    return (node.status?.conditions ?? []).map((c) => c.type).sort();
  }

  it('keeps the kubelet Ready condition through strategic merge, merge and JSON patches of an agent condition', async () => {
    await createNode('patch-node');
    const agentCondition = {
      type: 'FabrikNetworkReady',
      status: 'True',
      reason: 'Provisioned',
      message: 'ok',
    };
    const strategic = await core.patchNodeStatus(
      { name: 'patch-node', body: { status: { conditions: [agentCondition] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(conditionTypes(strategic)).toEqual(['FabrikNetworkReady', 'Ready']);

    const updated = await core.patchNodeStatus(
      {
        name: 'patch-node',
        body: { status: { conditions: [{ ...agentCondition, status: 'False', reason: 'Degraded' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(updated.status?.conditions?.find((c) => c.type === 'FabrikNetworkReady')?.status).toBe('False');
    expect(updated.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    // A JSON merge patch replaces the list whole: that is why agents must not use it for conditions.
    const merged = await core.patchNodeStatus(
      { name: 'patch-node', body: { status: { conditions: [agentCondition] } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(conditionTypes(merged)).toEqual(['FabrikNetworkReady']);

    const jsonPatched = await core.patchNodeStatus(
      { name: 'patch-node', body: [{ op: 'add', path: '/status/conditions/-', value: kubeletReady }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(conditionTypes(jsonPatched)).toEqual(['FabrikNetworkReady', 'Ready']);

    const labelsUntouched = await core.patchNode(
      { name: 'patch-node', body: { metadata: { labels: { zone: 'a' } }, status: { conditions: [] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(labelsUntouched.metadata?.labels).toEqual({ role: 'worker', zone: 'a' });
    expect(conditionTypes(labelsUntouched)).toEqual(['FabrikNetworkReady', 'Ready']);
  });

  it('resolves two concurrent status writers by retrying on 409 with a fresh read', async () => {
    await createNode('race-node');
    const withCondition = (node: V1Node, type: string, reason: string): V1Node => ({
      ...node,
      status: {
        ...node.status,
        conditions: [
          ...(node.status?.conditions ?? []).filter((c) => c.type !== type),
          { type, status: 'True', reason, message: '' },
        ],
      },
    });
    // Two writers that read the same version: the second write is refused.
    const [a, b] = await Promise.all([
      core.readNodeStatus({ name: 'race-node' }),
      core.readNodeStatus({ name: 'race-node' }),
    ]);
    await core.replaceNodeStatus({ name: 'race-node', body: withCondition(a, 'AgentA', 'Start') });
    const stale = await core
      .replaceNodeStatus({ name: 'race-node', body: withCondition(b, 'AgentB', 'Start') })
      .catch((err: unknown) => err);
    expect(statusCode(stale)).toBe(409);

    // Writers that retry with a fresh read after a 409 both get every round in, concurrently.
    const writer = async (type: string, rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        for (;;) {
          const node = await core.readNodeStatus({ name: 'race-node' });
          try {
            await core.replaceNodeStatus({
              name: 'race-node',
              body: withCondition(node, type, `Round${round}`),
            });
            break;
          } catch (err) {
            if (statusCode(err) !== 409) throw err;
          }
        }
      }
    };
    await Promise.all([writer('AgentA', 10), writer('AgentB', 10)]);
    const node = await core.readNode({ name: 'race-node' });
    expect(conditionTypes(node)).toEqual(['AgentA', 'AgentB', 'Ready']);
    expect(node.status?.conditions?.map((c) => c.reason).sort()).toEqual([
      'KubeletReady',
      'Round9',
      'Round9',
    ]);
  });
});
