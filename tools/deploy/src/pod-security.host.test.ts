// Pod Security as kube-apiserver's PodSecurity admission applies it: deploy/base labels
// fabrik-system for the `privileged` level, so a Pod made from each DaemonSet's template (what the
// DaemonSet controller would create) is admitted there without a warning; the same Pods in a
// namespace enforcing `baseline` (a cluster's default, for example) are refused, naming what they use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import type { KubeApiServer } from '@fabrik/testkit';
import { FABRIK_NAMESPACE, failureOf, startInstalledApiServer } from './installed.js';

interface DaemonSet {
  metadata: { name: string };
  spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } };
}

let api: KubeApiServer;
let daemonSets: DaemonSet[];

/** `kubectl create` of the Pod that `ds`'s controller would make on node-a in `namespace`; stderr. */
async function createPodOf(ds: DaemonSet, namespace: string): Promise<string> {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${ds.metadata.name}-node-a`, namespace, labels: ds.spec.template.metadata.labels },
    spec: { ...ds.spec.template.spec, nodeName: 'node-a' },
  };
  const { stderr } = await runCommand(
    api.binaries.kubectl,
    ['--kubeconfig', api.kubeconfigPath, 'create', '-f', '-'],
    { input: JSON.stringify(pod), timeoutMs: 60_000 },
  );
  return stderr;
}

beforeAll(async () => {
  api = await startInstalledApiServer();
  daemonSets = (
    JSON.parse(await api.kubectl('-n', FABRIK_NAMESPACE, 'get', 'daemonsets', '-o', 'json')) as {
      items: DaemonSet[];
    }
  ).items;
  await api.kubectl('create', 'namespace', 'baseline-only');
  await api.kubectl('label', 'namespace', 'baseline-only', 'pod-security.kubernetes.io/enforce=baseline');
}, 120_000);

afterAll(() => api?.destroy());

describe('deploy/base applied with kubectl apply -k', () => {
  it('labels fabrik-system for the privileged level (enforce, audit, warn)', async () => {
    const labels = JSON.parse(
      await api.kubectl('get', 'namespace', FABRIK_NAMESPACE, '-o', 'jsonpath={.metadata.labels}'),
    ) as Record<string, string>;
    for (const mode of ['enforce', 'audit', 'warn'])
      expect(labels[`pod-security.kubernetes.io/${mode}`], mode).toBe('privileged');
  });

  it("admits a Pod of each DaemonSet's template in fabrik-system, without a warning", async () => {
    expect(daemonSets.map((d) => d.metadata.name).sort()).toEqual([
      'fabrik-agent-host',
      'fabrik-cni',
      'fabrik-hbr',
    ]);
    for (const ds of daemonSets) expect(await createPodOf(ds, FABRIK_NAMESPACE), ds.metadata.name).toBe('');
    const pods = JSON.parse(await api.kubectl('-n', FABRIK_NAMESPACE, 'get', 'pods', '-o', 'json')) as {
      items: { metadata: { name: string } }[];
    };
    expect(pods.items.map((p) => p.metadata.name).sort()).toEqual([
      'fabrik-agent-host-node-a',
      'fabrik-cni-node-a',
      'fabrik-hbr-node-a',
    ]);
  });

  it('the same Pods are refused where baseline is enforced: the label is what admits them', async () => {
    const refusals: Record<string, string> = {};
    for (const ds of daemonSets)
      refusals[ds.metadata.name] = String(await failureOf(createPodOf(ds, 'baseline-only')));
    expect(refusals['fabrik-agent-host']).toMatch(
      /violates PodSecurity "baseline:latest": .*host namespaces/,
    );
    expect(refusals['fabrik-hbr']).toMatch(
      /violates PodSecurity "baseline:latest": .*non-default capabilities/,
    );
    expect(refusals['fabrik-cni']).toMatch(/violates PodSecurity "baseline:latest": .*hostPath volumes/);
  });
});
