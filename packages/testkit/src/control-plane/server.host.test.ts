// The real control plane as tests use it: what a cluster administrator relies on (RBAC with
// impersonation, `kubectl auth`, TokenRequest with node claims, server-side apply conflicts,
// compaction's 410), and restarts that keep the data.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCommandError } from '@fabrik/netcore';
import { apiRequest } from './request.js';
import { startKubeApiServer, type KubeApiServer } from './server.js';

let api: KubeApiServer;
beforeAll(async () => {
  api = await startKubeApiServer({ crdDirs: [] });
}, 120_000);
afterAll(async () => {
  await api?.destroy();
});

const kubectlFails = async (...args: string[]): Promise<string> => {
  try {
    await api.kubectl(...args);
  } catch (e) {
    if (isCommandError(e)) return e.stderr;
    throw e;
  }
  throw new Error(`kubectl ${args.join(' ')} succeeded`);
};

/** A ConfigMap as the given field manager applies it server-side. */
const applyConfigMap = (manager: string, data: Record<string, string>, force = false) =>
  apiRequest({
    url: `${api.url}/api/v1/namespaces/default/configmaps/ssa?fieldManager=${manager}${force ? '&force=true' : ''}`,
    method: 'PATCH',
    token: api.token,
    caPem: api.caPem,
    headers: { 'content-type': 'application/apply-patch+yaml' },
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data },
  });

describe('startKubeApiServer', () => {
  it('is the upstream release tools/k8s pins', async () => {
    const version = JSON.parse(await api.kubectl('version', '-o', 'json')) as {
      serverVersion: { gitVersion: string };
    };
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.37\./);
  });

  it('enforces RBAC on impersonation: a ServiceAccount without a grant gets 403 Forbidden', async () => {
    await api.kubectl('create', 'namespace', 'rbac-probe');
    await api.kubectl('-n', 'rbac-probe', 'create', 'serviceaccount', 'reader');
    const as = '--as=system:serviceaccount:rbac-probe:reader';
    expect(await kubectlFails(as, 'get', 'configmaps', '-n', 'rbac-probe')).toMatch(/Forbidden/);
    expect(
      (
        await api
          .kubectl(as, 'auth', 'can-i', 'list', 'configmaps', '-n', 'rbac-probe')
          .catch((e: unknown) => (isCommandError(e) ? e.stdout : ''))
      ).trim(),
    ).toBe('no');
    await api.kubectl('-n', 'rbac-probe', 'create', 'role', 'read', '--verb=list', '--resource=configmaps');
    await api.kubectl(
      '-n',
      'rbac-probe',
      'create',
      'rolebinding',
      'read',
      '--role=read',
      '--serviceaccount=rbac-probe:reader',
    );
    expect((await api.kubectl(as, 'auth', 'can-i', 'list', 'configmaps', '-n', 'rbac-probe')).trim()).toBe(
      'yes',
    );
    await api.kubectl('-n', 'rbac-probe', 'create', 'configmap', 'visible');
    expect(await api.kubectl(as, 'get', 'configmaps', '-n', 'rbac-probe', '-o', 'name')).toContain(
      'configmap/visible',
    );
    expect(await kubectlFails(as, 'delete', 'configmap', 'visible', '-n', 'rbac-probe')).toMatch(/Forbidden/);
    const rules = await api.rulesFor('rbac-probe', 'reader', ['rbac-probe']);
    expect(rules.map((r) => `${r.namespace} ${r.resources.join()} ${r.verbs.join()}`)).toEqual([
      'rbac-probe configmaps list',
    ]);
  });

  it('mints tokens (kubectl create token) that authenticate as the ServiceAccount, with the Pod node claims', async () => {
    await api.kubectl('create', 'namespace', 'tokens');
    await api.kubectl('-n', 'tokens', 'create', 'serviceaccount', 'agent');
    const plain = (await api.kubectl('-n', 'tokens', 'create', 'token', 'agent')).trim();
    const whoami = await apiRequest({
      url: `${api.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      method: 'POST',
      token: plain,
      caPem: api.caPem,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(JSON.parse(whoami.body).status.userInfo.username).toBe('system:serviceaccount:tokens:agent');

    await writeFile(
      join(api.dir, 'pod.json'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'agent-0', namespace: 'tokens' },
        spec: { nodeName: 'node-1', serviceAccountName: 'agent', containers: [{ name: 'c', image: 'x' }] },
      }),
    );
    const pod = JSON.parse(await api.kubectl('create', '-o', 'json', '-f', join(api.dir, 'pod.json'))) as {
      metadata: { name: string; uid: string };
    };
    const bound = await api.createServiceAccountToken('tokens', 'agent', { boundPod: pod.metadata });
    const review = await apiRequest({
      url: `${api.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      method: 'POST',
      token: bound,
      caPem: api.caPem,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const extra = JSON.parse(review.body).status.userInfo.extra as Record<string, string[]>;
    expect(extra['authentication.kubernetes.io/node-name']).toEqual(['node-1']);
    expect(extra['authentication.kubernetes.io/pod-name']).toEqual(['agent-0']);
  });

  it("a node agent's token: bound to Pod <serviceaccount>-<node> on that node, made once", async () => {
    const claims = async (token: string) => {
      const review = await apiRequest({
        url: `${api.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
        method: 'POST',
        token,
        caPem: api.caPem,
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      return JSON.parse(review.body).status.userInfo.extra as Record<string, string[]>;
    };
    for (let i = 0; i < 2; i++) {
      const extra = await claims(await api.createServiceAccountToken('tokens', 'agent', { node: 'node-1' }));
      expect(extra['authentication.kubernetes.io/node-name']).toEqual(['node-1']);
      expect(extra['authentication.kubernetes.io/pod-name']).toEqual(['agent-node-1']);
    }
    // Two nodes' agents of one ServiceAccount, their kubeconfigs written side by side: each keeps its node.
    const [one, two] = await Promise.all(
      ['node-1', 'node-2'].map((node) => api.writeServiceAccountKubeconfig('tokens', 'agent', { node })),
    );
    for (const [path, node] of [
      [one!, 'node-1'],
      [two!, 'node-2'],
    ] as const) {
      const token = /token: (\S+)/.exec(await readFile(path, 'utf8'))![1]!;
      expect((await claims(token))['authentication.kubernetes.io/node-name']).toEqual([node]);
    }
  });

  it('server-side apply: a second manager conflicts, force takes the field over', async () => {
    expect((await applyConfigMap('first', { a: '1' })).status).toBe(201);
    const conflict = await applyConfigMap('second', { a: '2' });
    expect(conflict.status).toBe(409);
    expect((JSON.parse(conflict.body) as { message: string }).message).toMatch(/conflict with "first"/);
    expect((await applyConfigMap('second', { a: '2' }, true)).status).toBe(200);
    // The first manager no longer owns `a`; applying without it removes nothing it does not own.
    expect((await applyConfigMap('first', { b: '1' })).status).toBe(200);
    const cm = JSON.parse(await api.kubectl('get', 'configmap', 'ssa', '-o', 'json')) as {
      data: Record<string, string>;
    };
    expect(cm.data).toEqual({ a: '2', b: '1' });
  });

  it('compaction: resuming a watch from before it gets 410 Gone; restarts keep the data', async () => {
    // kubectl prints a list as a v1 List without its resourceVersion: the API's own list has it.
    const list = JSON.parse(
      (
        await apiRequest({
          url: `${api.url}/api/v1/namespaces/default/configmaps`,
          token: api.token,
          caPem: api.caPem,
        })
      ).body,
    ) as { metadata: { resourceVersion: string } };
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    await api.kubectl('create', 'configmap', 'after-list', '-n', 'default');
    await api.compact();
    const watch = await apiRequest({
      url: `${api.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`,
      token: api.token,
      caPem: api.caPem,
    });
    expect(watch.body).toMatch(/"code":410/);
    await api.restart();
    expect(await api.kubectl('get', 'configmap', 'after-list', '-n', 'default', '-o', 'name')).toContain(
      'after-list',
    );
  }, 120_000);
});
