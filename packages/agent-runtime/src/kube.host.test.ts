import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
  API_VERSION,
} from '@fabrik/api';
import { NODES, customObjects, loadKubeConfig, type KubeObject } from '@fabrik/kube';
import { startKubeApiServer, until, type KubeApiServer } from '@fabrik/testkit';
import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { createKubernetesSource } from './kube-source.js';
import { createNodeStatusSink } from './node-status.js';
import type { IntentSource } from './intent.js';

// The Kubernetes halves of the runtime against the test API server (real list/watch semantics,
// checked against client-node and kubectl in @fabrik/testkit).

const Any = z.looseObject({ metadata: z.looseObject({ name: z.string() }) });
const vrf = (name: string, vni: number): KubeObject =>
  ({
    apiVersion: API_VERSION,
    kind: 'VRF',
    metadata: { name },
    spec: { vni },
  }) as KubeObject;
const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});

describe('agent-runtime on Kubernetes (kube-apiserver)', () => {
  let server: KubeApiServer;
  let kc: KubeConfig;
  beforeAll(async () => {
    server = await startKubeApiServer();
    kc = loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc;
    await customObjects(kc, NODES, Any).create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { rack: 'r1' } },
      spec: { taints: [{ key: 'fabrik.dev/netns-not-ready', effect: 'NoSchedule' }] },
    } as KubeObject);
    await customObjects(kc, NODES, Any).patchStatus(
      'node-1',
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'KubeletReady',
              message: 'kubelet is posting ready status',
            },
          ],
        },
      },
      { type: 'merge' },
    );
  });
  afterAll(() => server.destroy());

  describe('createKubernetesSource', () => {
    let source: IntentSource;
    const reasons: string[] = [];
    beforeAll(async () => {
      await customObjects(kc, gvr(VRF_RESOURCE), Any).create(vrf('red', 1001));
      source = createKubernetesSource({
        kc,
        nodeName: 'node-1',
        kinds: [
          { kind: 'VRF', resource: gvr(VRF_RESOURCE) },
          { kind: 'Layer2Network', resource: gvr(LAYER2_NETWORK_RESOURCE) },
        ],
      });
      await source.start((r) => reasons.push(r));
    });
    afterAll(() => source.stop());

    it('syncs after the first lists, with objects in their CRD shape and the Node labels', async () => {
      await until('the source synced', async () => source.hasSynced());
      const s = source.snapshot();
      expect(s.objects).toHaveLength(1);
      expect(s.objects[0]).toMatchObject({
        apiVersion: API_VERSION,
        kind: 'VRF',
        metadata: { name: 'red' },
        spec: { vni: 1001 },
      });
      expect(s.node).toEqual({ name: 'node-1', labels: { rack: 'r1' } });
      expect(s.problems).toEqual([]);
    });

    it('follows creates, updates and deletes', async () => {
      await customObjects(kc, gvr(LAYER2_NETWORK_RESOURCE), Any).create({
        apiVersion: API_VERSION,
        kind: 'Layer2Network',
        metadata: { name: 'web' },
        spec: { vni: 2100, vlan: 100 },
      } as KubeObject);
      await until('web listed', async () => source.snapshot().objects.some((o) => o.metadata.name === 'web'));
      expect(reasons).toContain('Layer2Network web changed');
      await customObjects(kc, gvr(VRF_RESOURCE), Any).delete('red');
      await until('red gone', async () => !source.snapshot().objects.some((o) => o.metadata.name === 'red'));
    });

    it('reports a label change of its Node, and not its status updates', async () => {
      const nodes = customObjects(kc, NODES, Any);
      const before = reasons.filter((r) => r.startsWith('Node')).length; // its first list counts once
      await nodes.patchStatus(
        'node-1',
        {
          status: {
            conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'heartbeat' }],
          },
        },
        { type: 'merge' },
      );
      await nodes.patch('node-1', { metadata: { labels: { rack: 'r2' } } }, { type: 'merge' });
      await until('the new label', async () => source.snapshot().node?.labels.rack === 'r2');
      await until('the label change reported', async () => reasons.includes('Node node-1 labels changed'));
      // the status patch came first and changed nothing; the label patch counts once
      expect(reasons.filter((r) => r.startsWith('Node'))).toHaveLength(before + 1);
    });
  });

  describe('createKubernetesSource with a secretNamespace', () => {
    const SECRETS = { group: '', version: 'v1', plural: 'secrets' };
    const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' };
    const secret = (namespace: string, name: string, data: Record<string, string>): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace },
        data: Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
        ),
      }) as KubeObject;
    let source: IntentSource;
    const reasons: string[] = [];
    beforeAll(async () => {
      for (const name of ['fabrik-system', 'tenant'])
        await customObjects(kc, NAMESPACES, Any).create({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name },
        } as KubeObject);
      await customObjects(kc, SECRETS, Any).create(
        secret('fabrik-system', 'red-bgp', { password: 's3cret' }),
      );
      await customObjects(kc, SECRETS, Any).create(secret('tenant', 'other', { password: 'x' }));
      source = createKubernetesSource({
        kc,
        nodeName: 'node-1',
        kinds: [],
        secretNamespace: 'fabrik-system',
      });
      await source.start((r) => reasons.push(r));
    });
    afterAll(() => source.stop());

    let firstRevision: string | undefined;
    it("offers the namespace's Secrets, decoded, and no other namespace's", async () => {
      await until('the source synced', async () => source.hasSynced());
      const secrets = source.snapshot().secrets;
      expect(secrets?.where).toBe('namespace fabrik-system');
      expect(secrets?.get('red-bgp')).toEqual({ password: 's3cret' });
      expect(secrets?.get('other')).toBeUndefined();
      firstRevision = secrets?.revision('red-bgp');
      expect(firstRevision).toMatch(/^\d+$/);
    });

    it('follows a rotated password', async () => {
      await customObjects(kc, SECRETS, Any).patch(
        'red-bgp',
        { data: { password: Buffer.from('n3w').toString('base64') } },
        { type: 'merge', namespace: 'fabrik-system' },
      );
      await until(
        'the rotated password',
        async () => source.snapshot().secrets?.get('red-bgp')?.password === 'n3w',
      );
      expect(source.snapshot().secrets?.revision('red-bgp')).not.toBe(firstRevision);
      expect(reasons).toContain('Secret fabrik-system/red-bgp changed');
    });

    it('offers no Secrets without a secretNamespace', () => {
      expect(
        createKubernetesSource({ kc, nodeName: 'node-1', kinds: [] }).snapshot().secrets,
      ).toBeUndefined();
    });
  });

  describe('createNodeStatusSink', () => {
    const section = (status: 'True' | 'False', configStatus: string) => ({
      configStatus,
      lastUpdate: '2026-01-01T00:00:00Z',
      conditions: [
        {
          type: 'FabrikNetnsReady',
          status,
          reason: status === 'True' ? 'Provisioned' : 'ApplyFailed',
          message: 'test',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
    const sink = () =>
      createNodeStatusSink({
        kc,
        nodeName: 'node-1',
        resource: gvr(NODE_NETWORK_STATUS_RESOURCE),
        kind: 'NodeNetworkStatus',
        section: 'netns',
        nodeConditionType: 'FabrikNetnsReady',
        startupTaint: { key: 'fabrik.dev/netns-not-ready', effect: 'NoSchedule' },
      });
    const nns = () => customObjects(kc, gvr(NODE_NETWORK_STATUS_RESOURCE), Any).get('node-1');
    const node = () => customObjects(kc, NODES, Any).get('node-1');

    it('creates the NodeNetworkStatus (owned by the Node), sets the Node condition and keeps the taint while not ready', async () => {
      const s = sink();
      await s.write(section('False', 'invalid'));
      const o = (await nns()) as {
        metadata: { ownerReferences?: { kind: string; name: string }[] };
        status?: { netns?: { configStatus?: string } };
      };
      expect(o.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Node', name: 'node-1' })]);
      expect(o.status?.netns?.configStatus).toBe('invalid');
      const n = (await node()) as {
        spec?: { taints?: { key: string }[] };
        status?: { conditions?: { type: string; status: string }[] };
      };
      expect(n.status?.conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Ready', status: 'True' }),
          expect.objectContaining({ type: 'FabrikNetnsReady', status: 'False', reason: 'ApplyFailed' }),
        ]),
      );
      expect(n.spec?.taints?.map((t) => t.key)).toContain('fabrik.dev/netns-not-ready');
    });

    it('once ready: condition True, startup taint gone, the other section and kubelet conditions untouched', async () => {
      await customObjects(kc, gvr(NODE_NETWORK_STATUS_RESOURCE), Any).patchStatus(
        'node-1',
        { status: { host: { configStatus: 'provisioned', lastUpdate: '2026-01-01T00:00:00Z' } } },
        { type: 'merge' },
      );
      await sink().write(section('True', 'provisioned'));
      const o = (await nns()) as {
        status?: { netns?: { configStatus?: string }; host?: { configStatus?: string } };
      };
      expect(o.status?.netns?.configStatus).toBe('provisioned');
      expect(o.status?.host?.configStatus).toBe('provisioned');
      const n = (await node()) as {
        spec?: { taints?: { key: string }[] };
        status?: { conditions?: { type: string; status: string }[] };
      };
      // Only the admission's not-ready taint of a new Node is left (no node lifecycle controller runs).
      expect(n.spec?.taints ?? []).toEqual([{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
      expect(n.status?.conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Ready', status: 'True' }),
          expect.objectContaining({ type: 'FabrikNetnsReady', status: 'True' }),
        ]),
      );
    });
  });
});
