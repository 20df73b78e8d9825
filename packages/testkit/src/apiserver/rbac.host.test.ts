// RBAC enforced by the test API server for ServiceAccount tokens, seen through client-node: a
// request outside the granted rules gets kube's 403, one inside passes, and rulesFor() lists grants.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './server.js';

let server: ApiServer;
let dir: string;
let admin: KubeConfig;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-rbac-'));
  server = await startApiServer({
    dir,
    rbac: true,
    crdDirs: [join(import.meta.dirname, '__fixtures__', 'crds')],
  });
  admin = new KubeConfig();
  admin.loadFromFile(server.kubeconfigPath);
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function asServiceAccount(namespace: string, name: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(server.writeServiceAccountKubeconfig(namespace, name));
  return kc;
}

async function failure(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException)
      return { code: err.code, message: (JSON.parse(err.body as string) as { message: string }).message };
    throw err;
  }
  throw new Error('the request was allowed');
}

describe('RBAC', () => {
  it('allows what the ServiceAccount is granted and refuses the rest in kube wording', async () => {
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: 'fabrik-system' } } });
    await core.createNode({
      body: { metadata: { name: 'node-a' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    });
    await rbac.createClusterRole({
      body: {
        metadata: { name: 'fabrik-agent' },
        rules: [
          {
            apiGroups: ['network.fabrik.dev'],
            resources: ['layer2networks', 'vrfs'],
            verbs: ['get', 'list', 'watch'],
          },
          { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: 'fabrik-agent' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fabrik-agent' },
        subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: 'fabrik-system' }],
      },
    });

    const agent = asServiceAccount('fabrik-system', 'agent');
    const agentCore = agent.makeApiClient(CoreV1Api);
    const agentCustom = agent.makeApiClient(CustomObjectsApi);
    await agentCustom.listClusterCustomObject({
      group: 'network.fabrik.dev',
      version: 'v1alpha1',
      plural: 'layer2networks',
    });
    const patched = await agentCore.patchNodeStatus(
      { name: 'node-a', body: { status: { conditions: [{ type: 'FabrikReady', status: 'True' }] } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(patched.status?.conditions?.map((c) => c.type)).toEqual(['Ready', 'FabrikReady']);

    expect(
      await failure(
        agentCore.patchNode(
          { name: 'node-a', body: { metadata: { labels: { x: 'y' } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      ),
    ).toEqual({
      code: 403,
      message:
        'nodes "node-a" is forbidden: User "system:serviceaccount:fabrik-system:agent" cannot patch resource "nodes" in API group "" at the cluster scope',
    });
    expect(
      await failure(
        agentCustom.createClusterCustomObject({
          group: 'network.fabrik.dev',
          version: 'v1alpha1',
          plural: 'vrfs',
          body: { metadata: { name: 'x' }, spec: { vni: 1 } },
        }),
      ),
    ).toEqual({
      code: 403,
      message:
        'vrfs.network.fabrik.dev is forbidden: User "system:serviceaccount:fabrik-system:agent" cannot create resource "vrfs" in API group "network.fabrik.dev" at the cluster scope',
    });
    const stranger = asServiceAccount('default', 'stranger').makeApiClient(CoreV1Api);
    expect((await failure(stranger.listNode())).code).toBe(403);
  });

  it('lists what a ServiceAccount may do', () => {
    expect(
      server
        .rulesFor('fabrik-system', 'agent')
        .map((r) => `${r.verbs.join(',')} ${r.apiGroups.join(',') || 'core'}/${r.resources.join(',')}`),
    ).toEqual([
      'get,list,watch network.fabrik.dev/layer2networks,vrfs',
      'get,list,watch core/nodes',
      'patch core/nodes/status',
    ]);
    expect(server.rulesFor('default', 'stranger')).toEqual([]);
  });
});
