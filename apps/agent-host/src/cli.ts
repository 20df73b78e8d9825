import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import {
  EXIT,
  InvalidInputError,
  createCreationJournal,
  createFileSource,
  createLogger,
  formatIntentDocuments,
  intentDocumentsOf,
  runAgentCli,
  type IntentSnapshot,
  type IntentSource,
  type Logger,
} from '@fabrik/agent-runtime';
import { LAYER2_NETWORK_RESOURCE, VRF_RESOURCE } from '@fabrik/api';
import { createIprouteNetlink } from '@fabrik/netcore/netlink';
import { loadHostConfig, type HostConfig } from './config.js';
import { planHost, reconcileHost, type HostAgentContext } from './host-agent.js';
import { createJournalStore } from './journal.js';
import { MIGRATION_STEPS } from './migration.js';
import { connectOvsOnce } from './ovs-connection.js';
import { relayPasswordDir, relayedIntent } from './relay.js';

// The daemon (./run.js) and the Kubernetes modules are imported by the verbs that need them:
// @kubernetes/client-node takes seconds to load on a slow node, and `cleanup` or a file-source
// `plan` never use it.

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * A failpoint for crash tests: `FABRIK_AGENT_HOST_CRASH_AFTER=<journal step>` makes `run` and
 * `cleanup` kill their own process with SIGKILL right after saving that step of a single-NIC
 * migration (begin, bridged, moved, restoring, unbridged; restored: just before the journal is
 * removed). Never set it on a real node.
 */
function crashFailpoint(env: NodeJS.ProcessEnv, logger: Logger): HostAgentContext['afterJournalStep'] {
  const step = env.FABRIK_AGENT_HOST_CRASH_AFTER;
  if (step === undefined || step === '') return undefined;
  if (step !== 'restored' && !(MIGRATION_STEPS as readonly string[]).includes(step))
    throw new InvalidInputError(`FABRIK_AGENT_HOST_CRASH_AFTER=${step}`, [
      {
        path: 'FABRIK_AGENT_HOST_CRASH_AFTER',
        message: `not a journal step (${MIGRATION_STEPS.join(', ')}, restored)`,
      },
    ]);
  return (done) => {
    if (done !== step) return;
    logger.warn({ step }, 'failpoint: killing this process after the journal step');
    process.kill(process.pid, 'SIGKILL');
  };
}

async function sourceOf(config: HostConfig): Promise<IntentSource> {
  if (config.source.kind === 'file')
    return createFileSource({
      path: config.source.path,
      kinds: ['VRF', 'Layer2Network'],
      nodeName: config.nodeName,
    });
  const [{ loadKubeConfig }, { createKubernetesSource }] = await Promise.all([
    import('@fabrik/kube'),
    import('@fabrik/agent-runtime/kubernetes'),
  ]);
  const { kc } = loadKubeConfig({ kubeconfig: config.source.kubeconfig });
  return createKubernetesSource({
    kc,
    nodeName: config.nodeName,
    kinds: [
      { kind: 'VRF', resource: VRF_RESOURCE },
      { kind: 'Layer2Network', resource: LAYER2_NETWORK_RESOURCE },
    ],
  });
}

/** One snapshot of the source, for `plan` (waits for its first answer). */
async function readSource(config: HostConfig, timeoutMs = 30_000): Promise<IntentSnapshot> {
  const source = await sourceOf(config);
  await source.start(() => {});
  try {
    for (const end = Date.now() + timeoutMs; !source.hasSynced(); await new Promise((r) => setTimeout(r, 50)))
      if (Date.now() > end) throw new Error(`${source.description} did not answer within ${timeoutMs} ms`);
    return source.snapshot();
  } finally {
    await source.stop();
  }
}

async function oneShotContext(config: HostConfig, logger: Logger): Promise<HostAgentContext> {
  const afterJournalStep = crashFailpoint(process.env, logger);
  return {
    ...(afterJournalStep ? { afterJournalStep } : {}),
    config,
    netlink: createIprouteNetlink({ journal: createCreationJournal(config.stateDir) }),
    ovs: await connectOvsOnce(config.ovsdbSocket, logger),
    journals: createJournalStore(config.stateDir, (path, reason) =>
      logger.error({ path, reason }, 'unreadable journal ignored'),
    ),
    logger,
    clock: () => new Date(),
    vswitchdTimeoutMs: 30_000,
  };
}

// No top-level await: the bundle (scripts/bundle.ts) is CommonJS.
void runAgentCli(
  {
    name: 'fabrik-agent-host',
    version: VERSION,
    description:
      'the host agent: OVS bridges for secondary networks with their NIC uplinks, the host side of the trunk (tr.<vid>), single-NIC migration, and the relay of intent and status for the HBR container',
    defaultConfigPath: '/etc/fabrik/agent-host.yaml',
    commands: {
      run: {
        summary: 'the daemon (SIGTERM stops it and leaves the network as it is)',
        async run({ configPath }) {
          const config = await loadHostConfig(configPath);
          const logger = createLogger({ name: 'agent-host' });
          const afterJournalStep = crashFailpoint(process.env, logger);
          const { runAgent } = await import('./run.js');
          return runAgent(config, logger, afterJournalStep ? { afterJournalStep } : {});
        },
      },
      plan: {
        summary: 'what run would change now; exit 0 in sync, 1 would change, 2 invalid input',
        async run({ configPath, out }) {
          const config = await loadHostConfig(configPath);
          const logger = createLogger({ name: 'agent-host', level: 'warn', destination: process.stderr });
          const snapshot = await readSource(config);
          const ctx = await oneShotContext(config, logger);
          try {
            const { changes, notes } = await planHost(ctx, snapshot);
            if (config.relay) {
              const relayed = relayedIntent(snapshot, relayPasswordDir(config.relay.intentFile));
              const text = formatIntentDocuments(relayed.objects);
              const current = await readFile(config.relay.intentFile, 'utf8').catch(() => undefined);
              if (text !== intentDocumentsOf(current))
                changes.push(`# relay: write ${config.relay.intentFile}`);
            }
            for (const line of [...changes, ...notes.map((n) => `# note: ${n}`)]) out(`${line}\n`);
            return changes.length > 0 ? EXIT.changes : EXIT.ok;
          } finally {
            await ctx.ovs.close();
          }
        },
      },
      cleanup: {
        summary:
          'move single NICs back, delete the bridges, ports and links agent-host owns (bridges with ports of others stay)',
        async run({ configPath, out }) {
          const config = await loadHostConfig(configPath);
          // Standard output is the command's: logs go to standard error.
          const logger = createLogger({ name: 'agent-host', destination: process.stderr });
          const ctx = await oneShotContext(config, logger);
          try {
            const pass = await reconcileHost(ctx, undefined, { cleanup: true });
            for (const m of pass.moves)
              out(`${m.bridge}: addresses and routes back on ${m.nic} (${m.gapMs} ms)\n`);
            for (const p of pass.outcome.problems) out(`note: ${p}\n`);
            return EXIT.ok;
          } finally {
            await ctx.ovs.close();
          }
        },
      },
    },
  },
  process.argv.slice(2),
).then((code) => {
  process.exitCode = code;
});
