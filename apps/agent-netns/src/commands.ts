import {
  EXIT,
  createAgentMetrics,
  createLogger,
  createStateStore,
  runDaemon,
  type AgentCliSpec,
  type AgentCommandContext,
  type IntentSnapshot,
  type IntentSource,
} from '@fabrik/agent-runtime';
import { pendingFrrChanges, reloadFrr, type FrrConfigChange } from '@fabrik/frr';
import { formatPlan, plan as planNetlink } from '@fabrik/netcore/netlink';
import { createNetnsAgent } from './agent.js';
import { nodeDesiredState, nodeFrrConfig, observeNode, type HbrNode } from './apply.js';
import { desiredNode, type NodeDesired } from './desired.js';
import { createDriftTrigger } from './drift.js';
import { appliedObjectsOf, StoredNodeIntent } from './last-good.js';
import { createNetnsMetrics } from './metrics.js';
import { OWNER, frrTarget, hbrNodeOf, loadNetnsConfig, wiringOf, type NetnsConfig } from './setup.js';
import { VERSION } from './version.js';
import { readPasswordFiles } from './password-files.js';

/** How long `plan`, `render` and `cleanup` wait for a Kubernetes source's first lists. */
const SOURCE_SYNC_TIMEOUT_MS = 30_000;

const lastGoodStore = (config: NetnsConfig, onCorrupted?: (path: string, reason: string) => void) =>
  createStateStore({
    dir: config.stateDir,
    name: 'last-good',
    schema: StoredNodeIntent,
    ...(onCorrupted ? { onCorrupted } : {}),
  });

async function run({ configPath }: AgentCommandContext): Promise<number> {
  const config = await loadNetnsConfig(configPath);
  const logger = createLogger({ name: 'agent-netns' });
  const metrics = createAgentMetrics({ prefix: 'fabrik_agent_netns' });
  const node = hbrNodeOf(config);
  const wiring = await wiringOf(config, logger);
  const agent = createNetnsAgent({
    config,
    node,
    logger,
    metrics: createNetnsMetrics(metrics),
    lastGood: lastGoodStore(config, (path, reason) =>
      logger.warn({ path, reason }, 'ignoring the last good state file'),
    ),
    ...(wiring.status ? { status: wiring.status } : {}),
    ...(wiring.events ? { events: wiring.events } : {}),
    ...(config.source.kind === 'file' ? { passwordFiles: readPasswordFiles } : {}),
  });
  logger.info(
    {
      version: VERSION,
      node: config.nodeName,
      mode: config.mode,
      netns: config.netns ?? '(own)',
      source: wiring.source.description,
    },
    'starting',
  );
  const code = await runDaemon({
    logger,
    metrics,
    source: wiring.source,
    reconcile: (request) => agent.reconcile(request),
    beforeSync: async () => {
      if (!(await agent.restoreLastGood())) logger.info('no last good state yet');
    },
    triggers: [
      createDriftTrigger({
        netlink: node.netlink,
        expected: () => agent.expectation(),
        onMonitorExit: (why) => logger.warn({ why }, 'drift monitor stopped; restarting it'),
      }),
    ],
    resyncIntervalMs: config.resyncSeconds * 1000,
    metricsAddress: config.metricsAddress,
    healthAddress: config.healthAddress,
    healthChecks: {
      frr: () => node.frr.ping(),
      netns: async () => {
        await node.netlink.linkGet('lo');
      },
    },
  });
  await wiring.events?.flush();
  return code;
}

/** What the source holds now: one read of the file, or the Kubernetes source's first lists. */
async function readSource(source: IntentSource): Promise<IntentSnapshot> {
  let synced: () => void = () => {};
  const ready = new Promise<void>((resolve) => (synced = resolve));
  await source.start(() => {
    if (source.hasSynced()) synced();
  });
  try {
    if (!source.hasSynced()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        ready,
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${source.description}: no answer within ${SOURCE_SYNC_TIMEOUT_MS} ms`)),
            SOURCE_SYNC_TIMEOUT_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer));
    }
    return source.snapshot();
  } finally {
    await source.stop();
  }
}

async function desiredOf(config: NetnsConfig): Promise<NodeDesired> {
  const wiring = await wiringOf(config, createLogger({ name: 'agent-netns', level: 'warn' }));
  const snapshot = await readSource(wiring.source);
  // As run would: an object refused now is planned in the version the node applied last.
  return desiredNode(
    config,
    snapshot,
    config.source.kind === 'file' ? await readPasswordFiles(snapshot) : undefined,
    appliedObjectsOf(await lastGoodStore(config).load()),
  );
}

/** Lists the objects refused on standard error; true when there are any. */
function reportRefused(desired: NodeDesired, err: (text: string) => void): boolean {
  const lines = [
    ...desired.objectErrors.map((e) => `${e.kind} ${e.name}: ${e.field ? `${e.field}: ` : ''}${e.message}`),
    ...desired.sourceProblems.map((p) => `${p.where}: ${p.message}`),
  ];
  if (lines.length > 0) err(`skipped (invalid or conflicting):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  return lines.length > 0;
}

const changeLine = (sign: string, c: FrrConfigChange) =>
  `${sign} ${[...c.context, c.line.trim()].join(' / ')}`;

async function plan({ configPath, out, err }: AgentCommandContext): Promise<number> {
  const config = await loadNetnsConfig(configPath);
  const node = hbrNodeOf(config);
  const desired = await desiredOf(config);
  const observed = await observeNode(node, desired.intent);
  const ops = formatPlan(
    planNetlink(nodeDesiredState(node, desired.intent, observed), observed, {
      adopt: await node.netlink.adoptable(),
    }),
  );
  const frr = await pendingFrrChanges(frrTarget(config), nodeFrrConfig(node, desired.intent));
  out(`# netlink: ${ops.length} operation(s)\n${ops.map((l) => `${l}\n`).join('')}`);
  out(`# FRR: ${frr.added.length} line(s) added, ${frr.removed.length} removed\n`);
  out(
    [...frr.removed.map((c) => changeLine('-', c)), ...frr.added.map((c) => changeLine('+', c))]
      .map((l) => `${l}\n`)
      .join(''),
  );
  if (reportRefused(desired, err)) return EXIT.invalid;
  return ops.length + frr.added.length + frr.removed.length === 0 ? EXIT.ok : EXIT.changes;
}

async function render({ configPath, out, err }: AgentCommandContext): Promise<number> {
  const config = await loadNetnsConfig(configPath);
  const desired = await desiredOf(config);
  out(nodeFrrConfig(hbrNodeOf(config), desired.intent));
  return reportRefused(desired, err) ? EXIT.invalid : EXIT.ok;
}

/** Every link and route fabrik owns in the namespace goes first (FRR only deletes inactive VRFs), then FRR's configuration. */
async function cleanup({ configPath, out }: AgentCommandContext): Promise<number> {
  const config = await loadNetnsConfig(configPath);
  const node: HbrNode = hbrNodeOf(config);
  const { plan: removed } = await node.netlink.reconcile({ owner: OWNER, links: [], routes: [] });
  await reloadFrr({
    ...frrTarget(config),
    config: `frr defaults datacenter\nhostname ${node.hostname}\n!\n`,
  });
  await lastGoodStore(config).clear();
  out(`removed ${removed.ops.length} owned link(s) and route(s) and the FRR configuration\n`);
  return EXIT.ok;
}

export const agentNetnsCli: AgentCliSpec = {
  name: 'fabrik-agent-netns',
  version: VERSION,
  description:
    "fabrik's HBR agent: keeps the VRFs and Layer2Networks of this node applied in its network namespace (kernel and FRR)",
  commands: {
    run: { summary: 'the daemon: follow the source, apply, repair drift, report status', run },
    plan: {
      summary:
        'print the netlink operations and FRR changes run would make now (exit 0 in sync, 1 changes, 2 invalid)',
      run: plan,
    },
    render: { summary: 'print the FRR configuration run would apply', run: render },
    cleanup: { summary: 'remove every link, route and FRR line agent-netns owns', run: cleanup },
  },
};
