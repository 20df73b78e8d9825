// The gated rollout against the real kube-apiserver: 50 Nodes whose agents are test doubles
// (test/simulated-agents.ts) that apply, fail, stall, report stale heartbeats or die. Every
// assertion is on API objects: the NodeNetworkConfigs' spec and annotations, the NetworkRollout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  API_VERSION,
  NETWORK_ROLLOUT_NAME,
  NETWORK_ROLLOUT_RESOURCE,
  NODE_NETWORK_CONFIG_RESOURCE,
  NetworkRollout,
  ROLLOUT_RETRY_ANNOTATION,
  VRF_RESOURCE,
  parseNodeNetworkConfig,
  type NetworkRolloutStatus,
  type NodeNetworkConfig,
} from '@fabrik/api';
import { NODES, NodeObject, ObjectMeta, customObjects } from '@fabrik/kube';
import { createLogger } from '@fabrik/agent-runtime';
import { until, type KubeApiServer } from '@fabrik/testkit';
import { startOperatorServer } from '../test/operator-server.js';
import { startSimulatedAgents, type SimulatedAgents } from '../test/simulated-agents.js';
import { OperatorConfig } from './config.js';
import { startController, type Controller } from './controller.js';
import { ROLLOUT_ANNOTATIONS } from './rollout/node-writes.js';

const NODE_COUNT = 50;
const MAX_UNAVAILABLE = 5;
const CANARIES = ['node-040', 'node-045'];
/** Above what one node's apply takes on a loaded 2-core machine, below what makes the tests slow. */
const NODE_TIMEOUT_SECONDS = 5;
/** A rollout of 50 nodes, 5 at a time, on a loaded machine. */
const ROLLOUT_TEST_MS = 150_000;
const config = OperatorConfig.parse({
  identity: { routerIdPool: '10.255.0.0/24', vtepPool: '10.254.0.0/24', asn: { from: 65000, to: 65999 } },
  debounceMs: 50,
  rollout: {
    maxUnavailable: MAX_UNAVAILABLE,
    heartbeatMaxAgeSeconds: 5,
    nodeTimeoutSeconds: NODE_TIMEOUT_SECONDS,
  },
});
const logger = createLogger({ name: 'fabrik-operator', level: 'silent' });
const nodeName = (i: number) => `node-${String(i).padStart(3, '0')}`;
const loose = z.looseObject({ metadata: ObjectMeta });

let server: KubeApiServer;
let kc: KubeConfig;
let controller: Controller;
let agents: SimulatedAgents;

const configs = () =>
  customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, (raw: unknown) => {
    const parsed = parseNodeNetworkConfig(raw);
    if (!parsed.ok) throw parsed.error;
    return parsed.value;
  });
const rollouts = () => customObjects(kc, NETWORK_ROLLOUT_RESOURCE, NetworkRollout);
const rollout = () => rollouts().get(NETWORK_ROLLOUT_NAME);

async function revisions(): Promise<Map<string, NodeNetworkConfig>> {
  const { items, invalid } = await configs().list();
  expect(invalid).toEqual([]);
  return new Map(items.map((c) => [c.metadata.name, c]));
}

/** Adds a VRF every node gets: every node renders a new revision. */
async function changeIntent(vni: number): Promise<void> {
  await customObjects(kc, VRF_RESOURCE, loose).create({
    apiVersion: API_VERSION,
    kind: 'VRF',
    metadata: { name: `v${vni}` },
    spec: { vni },
  });
}

/** The NetworkRollout once its status satisfies `done`. */
const untilStatus = (what: string, done: (s: NetworkRolloutStatus) => boolean, timeoutMs = ROLLOUT_TEST_MS) =>
  until(
    `the NetworkRollout ${what}`,
    async () => {
      const r = await rollout();
      return r.status !== undefined && done(r.status) ? r : undefined;
    },
    timeoutMs,
  );
const untilPhase = (phase: NetworkRolloutStatus['phase']) => untilStatus(phase, (s) => s.phase === phase);
const untilAllReady = () =>
  untilStatus('Complete, every node ready', (s) => s.phase === 'Complete' && s.ready === NODE_COUNT);
const untilFailedOn = (node: string) =>
  untilStatus(
    `Failed on ${node}`,
    (s) => s.phase === 'Failed' && (s.failures ?? []).some((f) => f.node === node),
  );

beforeAll(async () => {
  let operatorKc: KubeConfig;
  ({ server, kc, operatorKc } = await startOperatorServer());
  const names = Array.from({ length: NODE_COUNT }, (_, i) => nodeName(i));
  for (let i = 0; i < names.length; i += 25)
    await Promise.all(
      names.slice(i, i + 25).map((name) =>
        customObjects(kc, NODES, NodeObject).create({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels: CANARIES.includes(name) ? { 'network.fabrik.dev/canary': '' } : {} },
        }),
      ),
    );
  agents = startSimulatedAgents(kc, { heartbeatEveryMs: 2_000, applyDelayMs: 150 });
  controller = startController({ kc: operatorKc, config, logger, instance: 'test' });
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await agents?.stop();
  await server?.destroy();
});

describe('the gated rollout on a real API server', { timeout: ROLLOUT_TEST_MS + 30_000 }, () => {
  it('gives new nodes their first configuration at once, and the NetworkRollout completes', async () => {
    const done = await untilAllReady();
    expect(done.status).toMatchObject({ updating: 0, failed: 0, total: NODE_COUNT });
  });

  it('moves canaries first, then by name, never more than maxUnavailable not updated at once', async () => {
    const before = await revisions();
    await changeIntent(3001);
    let mostNotUpdated = 0;
    const after = await until(
      'every node on its new revision, all ready',
      async () => {
        const now = await revisions();
        const notUpdated = [...now.values()].filter(
          (c) =>
            c.spec.revision !== before.get(c.metadata.name)?.spec.revision &&
            c.status?.host?.appliedRevision !== c.spec.revision,
        );
        mostNotUpdated = Math.max(mostNotUpdated, notUpdated.length);
        const r = await rollout();
        return r.status?.phase === 'Complete' &&
          r.status.ready === NODE_COUNT &&
          [...now.values()].every((c) => c.spec.revision !== before.get(c.metadata.name)?.spec.revision)
          ? now
          : undefined;
      },
      ROLLOUT_TEST_MS,
    );
    expect(mostNotUpdated).toBeGreaterThan(0);
    expect(mostNotUpdated).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    const movedAt = (name: string) =>
      Date.parse(after.get(name)!.metadata.annotations![ROLLOUT_ANNOTATIONS.writtenAt]!);
    const others = [...after.keys()].filter((n) => !CANARIES.includes(n)).sort();
    for (const canary of CANARIES) expect(movedAt(canary)).toBeLessThan(Math.min(...others.map(movedAt)));
    for (let i = 1; i < others.length; i++)
      expect(movedAt(others[i]!)).toBeGreaterThanOrEqual(movedAt(others[i - 1]!));
    // settled (the pass after Complete): no node keeps a spec to roll back to
    await until('the rollback records dropped', async () =>
      [...(await revisions()).values()].every(
        (c) => c.metadata.annotations?.[ROLLOUT_ANNOTATIONS.previousSpec] === undefined,
      ),
    );
  });

  it('a node that stalls times out: every node moved goes back, the failure names the node', async () => {
    const before = await revisions();
    agents.set('node-007', 'stalls');
    await changeIntent(3002);
    const failed = await untilFailedOn('node-007');
    expect(failed.status?.failures).toEqual([
      expect.objectContaining({
        node: 'node-007',
        why: `not updated within ${NODE_TIMEOUT_SECONDS * 1000} ms of the move`,
      }),
    ]);
    const after = await until('every node back on its revision', async () => {
      const now = await revisions();
      return [...now.values()].every((c) => c.spec.revision === before.get(c.metadata.name)?.spec.revision)
        ? now
        : undefined;
    });
    for (const c of after.values())
      expect(c.metadata.annotations?.[ROLLOUT_ANNOTATIONS.previousSpec]).toBeUndefined();
  });

  it('does not move to the failed revision again, until a retry is asked', async () => {
    const before = await revisions();
    agents.set('node-007', 'applies');
    await new Promise((done) => setTimeout(done, NODE_TIMEOUT_SECONDS * 1000 + 1_000)); // longer than a node timeout
    expect((await rollout()).status?.phase).toBe('Failed');
    const now = await revisions();
    for (const [name, c] of now) expect(c.spec.revision, name).toBe(before.get(name)?.spec.revision);
    await rollouts().patch(NETWORK_ROLLOUT_NAME, {
      metadata: { annotations: { [ROLLOUT_RETRY_ANNOTATION]: '1' } },
    });
    const done = await untilAllReady();
    expect(done.status).toMatchObject({ failed: 0, failures: [], retried: '1' });
  });

  it('never counts a stale heartbeat: the node times out and the rollout rolls back', async () => {
    agents.set('node-012', 'stale');
    await changeIntent(3003);
    const failed = await untilFailedOn('node-012');
    expect(failed.status?.failures?.map((f) => f.node)).toEqual(['node-012']);
  });

  it('a failing node stops the rollout at once, naming the objects; a change of the intent retries', async () => {
    agents.set('node-012', 'applies');
    agents.set('node-003', 'fails');
    await changeIntent(3004); // a new revision for every node: the failure recorded for node-012 no longer holds
    const failed = await untilFailedOn('node-003');
    expect(failed.status?.failures).toEqual([
      expect.objectContaining({
        node: 'node-003',
        why: 'agent host reports invalid',
        objects: [expect.objectContaining({ kind: 'Layer2Network', field: 'spec.mtu' })],
      }),
    ]);
    agents.set('node-003', 'applies');
    await changeIntent(3005);
    const done = await untilAllReady();
    expect(done.status).toMatchObject({ failed: 0, failures: [] });
  });

  it('moves nothing while paused, and resumes', async () => {
    await rollouts().patch(NETWORK_ROLLOUT_NAME, { spec: { paused: true } });
    const before = await revisions();
    await changeIntent(3006);
    await untilPhase('Paused');
    await new Promise((done) => setTimeout(done, 500));
    for (const [name, c] of await revisions())
      expect(c.spec.revision, name).toBe(before.get(name)?.spec.revision);
    await rollouts().patch(NETWORK_ROLLOUT_NAME, { spec: { paused: false } });
    await untilAllReady();
  });
});
