// Node conditions and taints against the test API server: the kubelet's Ready always survives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInvalidArgumentError } from './errors.js';
import { addNodeTaint, patchNodeCondition, removeNodeTaint } from './node.js';
import { createNode, KUBELET_READY, startTestCluster, type TestCluster } from './testing/cluster.js';

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.server.destroy());

const ready = (status: 'True' | 'False', reason = 'Converged', message = '') => ({
  type: 'FabrikNetnsReady',
  status,
  reason,
  message,
});

describe('patchNodeCondition', () => {
  it("sets its own condition and leaves the kubelet's Ready exactly as it was", async () => {
    const node = await createNode(cluster, 'cond-1');
    const kubeletReady = node.status?.conditions?.find((c) => c.type === 'Ready');
    expect(kubeletReady).toMatchObject({ status: 'True', reason: KUBELET_READY.reason });

    const t0 = new Date('2026-11-30T10:00:00Z');
    expect(await patchNodeCondition(cluster.kc, 'cond-1', ready('False', 'Provisioning'), t0)).toEqual({
      written: true,
      transitioned: true,
    });
    let conditions = (await cluster.nodes.get('cond-1')).status?.conditions;
    expect(conditions?.find((c) => c.type === 'Ready')).toEqual(kubeletReady);
    expect(conditions?.find((c) => c.type === 'FabrikNetnsReady')).toEqual({
      type: 'FabrikNetnsReady',
      status: 'False',
      reason: 'Provisioning',
      // An empty message is not stored (omitempty): absent on the way back.
      lastHeartbeatTime: '2026-11-30T10:00:00Z',
      lastTransitionTime: '2026-11-30T10:00:00Z',
    });

    // Same condition later: nothing written. Other reason, same status: written, transition time kept.
    expect(
      await patchNodeCondition(
        cluster.kc,
        'cond-1',
        ready('False', 'Provisioning'),
        new Date('2026-11-30T10:01:00Z'),
      ),
    ).toEqual({
      written: false,
      transitioned: false,
    });
    await patchNodeCondition(
      cluster.kc,
      'cond-1',
      ready('False', 'FrrReloadFailed', 'bgpd said no'),
      new Date('2026-11-30T10:02:00Z'),
    );
    await patchNodeCondition(cluster.kc, 'cond-1', ready('True'), new Date('2026-11-30T10:03:00Z'));
    conditions = (await cluster.nodes.get('cond-1')).status?.conditions;
    expect(conditions?.find((c) => c.type === 'FabrikNetnsReady')).toMatchObject({
      status: 'True',
      reason: 'Converged',
      lastTransitionTime: '2026-11-30T10:03:00Z',
    });
    expect(conditions?.find((c) => c.type === 'Ready')).toEqual(kubeletReady);
  });

  it('two agents writing their conditions concurrently: both there, Ready intact', async () => {
    await createNode(cluster, 'cond-2');
    await Promise.all([
      patchNodeCondition(cluster.kc, 'cond-2', ready('True')),
      patchNodeCondition(cluster.kc, 'cond-2', { ...ready('True'), type: 'FabrikHostReady' }),
    ]);
    const types = (await cluster.nodes.get('cond-2')).status?.conditions?.map((c) => c.type).sort();
    expect(types).toEqual(['FabrikHostReady', 'FabrikNetnsReady', 'Ready']);
  });

  it("refuses to write the kubelet's own condition types", async () => {
    await expect(
      patchNodeCondition(cluster.kc, 'cond-1', { ...ready('False'), type: 'Ready' }),
    ).rejects.toSatisfy(isInvalidArgumentError);
    expect(
      (await cluster.nodes.get('cond-1')).status?.conditions?.find((c) => c.type === 'Ready')?.status,
    ).toBe('True');
  });
});

describe('node taints', () => {
  it('removes a startup taint and keeps the others', async () => {
    await createNode(cluster, 'taint-1');
    await cluster.nodes.patch('taint-1', {
      spec: {
        taints: [
          { key: 'fabrik.dev/not-ready', effect: 'NoSchedule' },
          { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        ],
      },
    });
    expect(await removeNodeTaint(cluster.kc, 'taint-1', 'fabrik.dev/not-ready')).toBe(true);
    expect(await removeNodeTaint(cluster.kc, 'taint-1', 'fabrik.dev/not-ready')).toBe(false);
    expect((await cluster.nodes.get('taint-1')).spec?.taints).toEqual([
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    ]);
  });

  it('five concurrent taint writers: none lost (409 re-read and retry)', async () => {
    await createNode(cluster, 'taint-2');
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) => addNodeTaint(cluster.kc, 'taint-2', { key: `t${i}`, effect: 'NoSchedule' })),
    );
    const keys = (await cluster.nodes.get('taint-2')).spec?.taints?.map((t) => t.key).sort();
    expect(keys).toEqual(['t0', 't1', 't2', 't3', 't4']);
    await Promise.all([0, 1, 2, 3, 4].map((i) => removeNodeTaint(cluster.kc, 'taint-2', `t${i}`)));
    expect((await cluster.nodes.get('taint-2')).spec?.taints ?? []).toEqual([]);
  });
});
