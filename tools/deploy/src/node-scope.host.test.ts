// deploy/base's policy fabrik-agent-node-scope against the real kube-apiserver, with real tokens:
// agent-host's ServiceAccount token bound (TokenRequest, boundObjectRef) to a Pod on node-a carries
// the claim authentication.kubernetes.io/node-name=node-a. With it, what agent-host writes of its
// own node is accepted (through @fabrik/kube, the agents' own calls); every write to node-b, and
// every write to node-a that fabrik does not own, is refused with the policy's message and leaves
// the object as it was. A token of the same ServiceAccount bound to no Pod is refused outright.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { NODE_NETWORK_STATUS_RESOURCE } from '@fabrik/api';
import {
  NODES,
  NodeObject,
  addNodeTaint,
  customObjects,
  isForbiddenError,
  patchNodeCondition,
  removeNodeTaint,
} from '@fabrik/kube';
import type { KubeApiServer } from '@fabrik/testkit';
import {
  FABRIK_NAMESPACE,
  failureOf,
  serviceAccountClient,
  startInstalledApiServer,
  untilPolicyEnforced,
} from './installed.js';

const POLICY = 'fabrik-agent-node-scope';
const OWN = 'node-a';
const OTHER = 'node-b';
const FABRIK_TAINT = { key: 'fabrik.dev/host-not-ready', effect: 'NoSchedule' } as const;
const anyObject = { parse: (raw: unknown) => raw as { metadata: { name: string } } };
const NNS = {
  group: NODE_NETWORK_STATUS_RESOURCE.group,
  version: NODE_NETWORK_STATUS_RESOURCE.version,
  plural: NODE_NETWORK_STATUS_RESOURCE.plural,
};

let api: KubeApiServer;
let admin: KubeConfig;
/** agent-host's token bound to its Pod on node-a. */
let agent: KubeConfig;

const nodes = (kc: KubeConfig) => customObjects(kc, NODES, NodeObject);
const statuses = (kc: KubeConfig) => customObjects(kc, NNS, anyObject);
const nodeStatus = (kc: KubeConfig, name: string) =>
  statuses(kc).create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'NodeNetworkStatus',
    metadata: { name },
  });
/** A valid host section of a NodeNetworkStatus (the CRD's schema). */
const hostSection = (configStatus: 'provisioned' | 'degraded') => ({
  status: { host: { configStatus, lastUpdate: '2026-12-02T15:00:00Z' } },
});
const kubeletReady = (status: 'True' | 'False') => ({
  status: {
    conditions: [
      { type: 'Ready', status, reason: 'KubeletReady', message: 'kubelet is posting ready status' },
    ],
  },
});

/** Expects `call` refused by the policy (403) with a message containing `message`. */
async function expectRefused(call: Promise<unknown>, message: string): Promise<void> {
  const failure = await failureOf(call);
  expect(isForbiddenError(failure), `expected 403, got ${String(failure)}`).toBe(true);
  expect(String(failure)).toContain(`ValidatingAdmissionPolicy '${POLICY}'`);
  expect(String(failure)).toContain(message);
}

beforeAll(async () => {
  api = await startInstalledApiServer();
  admin = new KubeConfig();
  admin.loadFromFile(api.kubeconfigPath);
  for (const name of [OWN, OTHER]) {
    await nodes(admin).create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    });
    // What the kubelet reports: the Ready condition an agent must not touch.
    await nodes(admin).patchStatus(name, kubeletReady('True'), { type: 'strategic' });
  }
  // Bound to agent-host's Pod on node-a, as the DaemonSet's projected token is.
  agent = await serviceAccountClient(api, 'fabrik-agent-host', { node: OWN });
  await untilPolicyEnforced(api, POLICY, [
    'label',
    'node',
    OWN,
    'probe=1',
    `--as=system:serviceaccount:${FABRIK_NAMESPACE}:fabrik-agent-host`,
  ]);
}, 120_000);

afterAll(() => api?.destroy());

describe('agent-host with a token bound to its Pod on node-a', () => {
  it('sets and removes its startup taint on node-a (a fabrik.dev/ taint)', async () => {
    await addNodeTaint(agent, OWN, FABRIK_TAINT);
    expect((await nodes(admin).get(OWN)).spec?.taints).toContainEqual(expect.objectContaining(FABRIK_TAINT));
    await removeNodeTaint(agent, OWN, FABRIK_TAINT.key);
    expect((await nodes(admin).get(OWN)).spec?.taints ?? []).not.toContainEqual(
      expect.objectContaining({ key: FABRIK_TAINT.key }),
    );
  });

  it("sets node-a's FabrikHostReady condition; the kubelet's Ready stays", async () => {
    await patchNodeCondition(agent, OWN, {
      type: 'FabrikHostReady',
      status: 'True',
      reason: 'Applied',
      message: 'ok',
    });
    const conditions = (await nodes(admin).get(OWN)).status?.conditions ?? [];
    expect(conditions).toContainEqual(expect.objectContaining({ type: 'FabrikHostReady', status: 'True' }));
    expect(conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
  });

  it("creates node-a's NodeNetworkStatus and writes its status", async () => {
    await nodeStatus(agent, OWN);
    await statuses(agent).patchStatus(OWN, hostSection('provisioned'));
    const written = (await statuses(admin).get(OWN)) as unknown as { status?: { host?: unknown } };
    expect(written.status?.host).toEqual(hostSection('provisioned').status.host);
  });

  it('is refused every write to node-b and its NodeNetworkStatus, which stay as they were', async () => {
    const before = await nodes(admin).get(OTHER);
    const notOwn = `fabrik agent of node ${OWN} may not change`;
    await expectRefused(addNodeTaint(agent, OTHER, FABRIK_TAINT), `${notOwn} nodes ${OTHER}`);
    await expectRefused(
      addNodeTaint(agent, OTHER, { key: 'evict', effect: 'NoExecute' }),
      `${notOwn} nodes ${OTHER}`,
    );
    await expectRefused(
      nodes(agent).patch(OTHER, { spec: { unschedulable: true } }),
      `${notOwn} nodes ${OTHER}`,
    );
    await expectRefused(
      nodes(agent).patch(OTHER, { metadata: { labels: { rack: 'x' } } }),
      `${notOwn} nodes ${OTHER}`,
    );
    await expectRefused(
      nodes(agent).patchStatus(OTHER, kubeletReady('False'), { type: 'strategic' }),
      `${notOwn} nodes ${OTHER}`,
    );
    await expectRefused(
      patchNodeCondition(agent, OTHER, {
        type: 'FabrikHostReady',
        status: 'False',
        reason: 'X',
        message: 'x',
      }),
      `${notOwn} nodes ${OTHER}`,
    );
    const after = await nodes(admin).get(OTHER);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);

    await expectRefused(nodeStatus(agent, OTHER), `${notOwn} nodenetworkstatuses ${OTHER}`);
    await nodeStatus(admin, OTHER);
    await expectRefused(
      statuses(agent).patchStatus(OTHER, hostSection('degraded')),
      `${notOwn} nodenetworkstatuses ${OTHER}`,
    );
    expect(((await statuses(admin).get(OTHER)) as { status?: unknown }).status).toBeUndefined();
  });

  it("is refused what fabrik does not own on node-a: other taints, cordon, labels, the kubelet's Ready", async () => {
    const before = await nodes(admin).get(OWN);
    const taintsOnly = 'may change only the taints whose key starts with fabrik.dev/';
    await expectRefused(addNodeTaint(agent, OWN, { key: 'evict', effect: 'NoExecute' }), taintsOnly);
    await expectRefused(nodes(agent).patch(OWN, { spec: { unschedulable: true } }), taintsOnly);
    const noMetadata = "may not change a Node's labels, annotations, finalizers or owners";
    await expectRefused(nodes(agent).patch(OWN, { metadata: { labels: { rack: 'x' } } }), noMetadata);
    // nodes/status keeps metadata changes: labels through the status endpoint are refused too.
    await expectRefused(nodes(agent).patchStatus(OWN, { metadata: { labels: { rack: 'x' } } }), noMetadata);
    await expectRefused(
      nodes(agent).patch(OWN, { metadata: { annotations: { 'fabrik.dev/x': 'y' } } }),
      noMetadata,
    );
    await expectRefused(
      nodes(agent).patchStatus(OWN, kubeletReady('False'), { type: 'strategic' }),
      'may change only the Node conditions whose type starts with Fabrik',
    );
    const after = await nodes(admin).get(OWN);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});

describe("agent-host's token bound to no Pod (no node claim)", () => {
  it('is refused even on the node it would run on: the policy fails closed', async () => {
    const unbound = await serviceAccountClient(api, 'fabrik-agent-host');
    const before = await nodes(admin).get(OWN);
    const claimMissing = 'claim authentication.kubernetes.io/node-name missing';
    await expectRefused(addNodeTaint(unbound, OWN, FABRIK_TAINT), claimMissing);
    await expectRefused(
      patchNodeCondition(unbound, OWN, {
        type: 'FabrikHostReady',
        status: 'False',
        reason: 'X',
        message: 'x',
      }),
      claimMissing,
    );
    await expectRefused(statuses(unbound).patchStatus(OWN, hostSection('degraded')), claimMissing);
    expect((await nodes(admin).get(OWN)).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});
