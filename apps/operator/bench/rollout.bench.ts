// npm run bench:rollout — what gating costs a rollout, against the floor measured in the same run.
// @fabrik/testkit's kube-apiserver, 200 Nodes, their agents simulated (test/simulated-agents.ts).
// floor: with the operator stopped (its rollout paused), the bench itself writes every node a new spec (server-side
//   apply, 16 at a time, as the operator writes) and waits until every agent reports it: the same
//   per-node applies with no gating.
// 100%: the rollout resumes with maxUnavailable 100%: the operator moves every node back to its
//   rendered revision; the time until the NetworkRollout is Complete with every node ready.
// 10%: a new VRF (a new revision for every node) rolled out with maxUnavailable 10%.
// BENCH_NODES changes the node count; BENCH_LOG=info prints the operator's pass lines.
// Last line: RESULT rollout nodes=200 overhead_ratio=<100% / floor> complete_ms_10pct=<ms>
import {
  API_VERSION,
  NETWORK_ROLLOUT_NAME,
  NETWORK_ROLLOUT_RESOURCE,
  NODE_NETWORK_CONFIG_RESOURCE,
  NetworkRollout,
  NodeNetworkConfig,
  VRF_RESOURCE,
} from '@fabrik/api';
import { createLogger } from '@fabrik/agent-runtime';
import { NODES, NodeObject, ObjectMeta, customObjects, loadKubeConfig } from '@fabrik/kube';
import { startKubeApiServer, until } from '@fabrik/testkit';
import { z } from 'zod';
import { OperatorConfig, type OperatorConfigInput } from '../src/config.js';
import { startController, type Controller } from '../src/controller.js';
import { revisionOf } from '../src/revision.js';
import { startSimulatedAgents } from '../test/simulated-agents.js';

const NODE_COUNT = Number(process.env['BENCH_NODES'] ?? 200);
const TIMEOUT_MS = 300_000;
const logger = createLogger({
  name: 'fabrik-operator',
  level: (process.env['BENCH_LOG'] as 'info' | undefined) ?? 'silent',
});
const configOf = (maxUnavailable: OperatorConfigInput['rollout'] extends infer R ? R : never) =>
  OperatorConfig.parse({
    identity: { routerIdPool: '10.255.0.0/24', vtepPool: '10.254.0.0/24', asn: { from: 65000, to: 65999 } },
    debounceMs: 50,
    rollout: { ...maxUnavailable, heartbeatMaxAgeSeconds: 60, nodeTimeoutSeconds: 120 },
  });

const server = await startKubeApiServer();
let controller: Controller | undefined;
const kc = loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc;
const agents = startSimulatedAgents(kc, { heartbeatEveryMs: 20_000, pollMs: 50 });
try {
  const configs = customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, NodeNetworkConfig, {
    fieldManager: 'bench',
  });
  const rollouts = customObjects(kc, NETWORK_ROLLOUT_RESOURCE, NetworkRollout);
  const names = Array.from({ length: NODE_COUNT }, (_, i) => `node-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < names.length; i += 25)
    await Promise.all(
      names
        .slice(i, i + 25)
        .map((name) =>
          customObjects(kc, NODES, NodeObject).create({ apiVersion: 'v1', kind: 'Node', metadata: { name } }),
        ),
    );
  const allReported = () =>
    until(
      'every agent reporting its spec.revision',
      async () => {
        const { items } = await configs.list();
        return (
          items.length === NODE_COUNT &&
          items.every((c) => c.status?.host?.appliedRevision === c.spec.revision)
        );
      },
      TIMEOUT_MS,
    );
  const complete = () =>
    until(
      'the NetworkRollout Complete, every node ready',
      async () => {
        const s = (await rollouts.get(NETWORK_ROLLOUT_NAME)).status;
        return s?.phase === 'Complete' && s.ready === NODE_COUNT;
      },
      TIMEOUT_MS,
    );
  const setPaused = (paused: boolean) => rollouts.patch(NETWORK_ROLLOUT_NAME, { spec: { paused } });

  controller = startController({
    kc,
    config: configOf({ maxUnavailable: '100%' }),
    logger,
    instance: 'bench',
  });
  await complete();
  await setPaused(true);
  await controller.idle();
  await controller.stop(); // the floor runs without the operator's passes competing for the CPU

  // floor: every node a new spec, no gating
  const { items } = await configs.list();
  let started = Date.now();
  for (let i = 0; i < items.length; i += 16)
    await Promise.all(
      items.slice(i, i + 16).map((c) => {
        const { revision: _old, ...body } = c.spec;
        const changed = { ...body, vrfs: [...(body.vrfs ?? []), { name: 'bench', spec: { vni: 9999 } }] };
        const spec = { ...changed, revision: revisionOf(changed) };
        const object = {
          apiVersion: API_VERSION,
          kind: 'NodeNetworkConfig',
          metadata: { name: c.metadata.name },
          spec,
        };
        return configs.patch(c.metadata.name, object, { type: 'apply', force: true });
      }),
    );
  await allReported();
  const floorMs = Date.now() - started;

  // 100%: the operator moves every node back to its rendered revision
  controller = startController({
    kc,
    config: configOf({ maxUnavailable: '100%' }),
    logger,
    instance: 'bench',
  });
  await controller.idle();
  started = Date.now();
  await setPaused(false);
  await complete();
  const fullMs = Date.now() - started;

  // 10%: a new revision for every node
  await controller.stop();
  controller = startController({
    kc,
    config: configOf({ maxUnavailable: '10%' }),
    logger,
    instance: 'bench',
  });
  await controller.idle();
  started = Date.now();
  await customObjects(kc, VRF_RESOURCE, z.looseObject({ metadata: ObjectMeta })).create({
    apiVersion: API_VERSION,
    kind: 'VRF',
    metadata: { name: 'bench-10' },
    spec: { vni: 3010 },
  });
  await until(
    'the rollout started',
    async () => (await rollouts.get(NETWORK_ROLLOUT_NAME)).status?.phase === 'Progressing',
    TIMEOUT_MS,
  );
  await complete();
  const tenPercentMs = Date.now() - started;

  console.log(`floor (no gating) ${floorMs} ms; maxUnavailable 100% ${fullMs} ms; 10% ${tenPercentMs} ms`);
  console.log(
    `RESULT rollout nodes=${NODE_COUNT} overhead_ratio=${(fullMs / floorMs).toFixed(2)} complete_ms_10pct=${tenPercentMs}`,
  );
} finally {
  await controller?.stop();
  await agents.stop();
  await server.destroy();
}
