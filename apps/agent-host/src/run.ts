import { join } from 'node:path';
import {
  createAgentMetrics,
  createCreationJournal,
  createFileSource,
  createStatusFile,
  runDaemon,
  type Enqueue,
  type IntentSource,
  type Logger,
  type ReconcileOutcome,
  type ReconcileRequest,
  type StatusSink,
  type Trigger,
} from '@fabrik/agent-runtime';
import { createKubernetesSource, createNodeStatusSink } from '@fabrik/agent-runtime/kubernetes';
import {
  BGP_PEERING_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
  type AgentHostConfig,
  type NodeNetworkStatusSection,
  type ObjectError,
} from '@fabrik/api';
import { createEventRecorder, loadKubeConfig, type Condition, type EventRecorder } from '@fabrik/kube';
import { ipPoolClient } from '@fabrik/ippool';
import { createIprouteNetlink } from '@fabrik/netcore/netlink';
import type { KubeConfig } from '@kubernetes/client-node';
import { reconcileHost, type HostAgentContext, type WatchedNames } from './host-agent.js';
import { tenantAdmission, watchNamespaceLabels } from './admission.js';
import { heldIpPoolClients, inProcessIpam } from './cni-ipam.js';
import { fabrikOvsVerbs, serveCniSocket } from './cni-socket.js';
import { createJournalStore } from './journal.js';
import { openOvsConnection } from './ovs-connection.js';
import { createRelay } from './relay.js';
import { HOST_CONDITION, hostSection, type HostOutcome } from './status.js';
import { netlinkDriftTrigger, ovsChangeReason } from './triggers.js';

// `fabrik-agent-host run`: the daemon. Wires the pieces: intent source (Kubernetes or a file), the
// held OVSDB connection, netlink, the journal store, the relay for the HBR container, status
// (NodeNetworkStatus `host` + Node condition, or a file without a cluster), Events, metrics,
// health, the drift triggers, and the CNI fast path (`cniSocket`: fabrik-ovs's verbs run here, on
// the same held OVSDB connection, and fabrik-ipam's with the agent's own API client).

const KINDS = [
  { kind: 'VRF', resource: VRF_RESOURCE },
  { kind: 'Layer2Network', resource: LAYER2_NETWORK_RESOURCE },
];
/** With a relay, BGPPeerings too: agent-host passes them (and their passwords) on to agent-netns. */
const RELAY_KINDS = [...KINDS, { kind: 'BGPPeering', resource: BGP_PEERING_RESOURCE }];

/** The node's section of NodeNetworkStatus (and Node condition), or a file when there is no cluster. */
function statusSinks(
  config: AgentHostConfig & { nodeName: string },
  kc: KubeConfig | undefined,
  logger: Logger,
): { host: StatusSink<NodeNetworkStatusSection>; netns: StatusSink<NodeNetworkStatusSection> | undefined } {
  if (!kc)
    return { host: createStatusFile({ path: join(config.stateDir, 'status.json') }), netns: undefined };
  const common = {
    kc,
    nodeName: config.nodeName,
    resource: NODE_NETWORK_STATUS_RESOURCE,
    kind: 'NodeNetworkStatus',
    log: logger,
  };
  return {
    host: createNodeStatusSink({
      ...common,
      section: 'host',
      nodeConditionType: HOST_CONDITION,
      ...(config.startupTaint ? { startupTaint: config.startupTaint } : {}),
    }),
    netns: createNodeStatusSink({ ...common, section: 'netns', nodeConditionType: 'FabrikNetnsReady' }),
  };
}

export async function runAgent(
  config: AgentHostConfig & { nodeName: string },
  logger: Logger,
  options: { readonly afterJournalStep?: HostAgentContext['afterJournalStep'] } = {},
): Promise<number> {
  const metrics = createAgentMetrics({ prefix: 'fabrik_agent_host' });
  const ownedGauge = metrics.gauge('owned_objects', 'Objects agent-host owns, by kind', ['kind']);
  const movesTotal = metrics.counter('single_nic_moves_total', 'Single-NIC moves finished, by direction', [
    'direction',
  ]);
  const gapSeconds = metrics.histogram(
    'single_nic_move_gap_seconds',
    'From the journal step before the OVS transaction to the addresses and routes in place',
    ['direction'],
  );

  const kc =
    config.source.kind === 'kubernetes'
      ? loadKubeConfig({ kubeconfig: config.source.kubeconfig }).kc
      : undefined;
  const kinds = config.relay ? RELAY_KINDS : KINDS;
  // The relay resolves BGPPeerings' passwords: the Secrets of one namespace (loadHostConfig's).
  const secretNamespace =
    config.relay && config.source.kind === 'kubernetes' ? config.source.secretNamespace : undefined;
  const source: IntentSource = kc
    ? createKubernetesSource({
        kc,
        nodeName: config.nodeName,
        kinds,
        ...(secretNamespace !== undefined ? { secretNamespace } : {}),
        log: logger,
      })
    : createFileSource({
        path: (config.source as { path: string }).path,
        kinds: kinds.map((k) => k.kind),
        nodeName: config.nodeName,
        onError: (e) => logger.warn({ err: e }, 'intent file: read failed'),
      });
  const sinks = statusSinks(config, kc, logger);
  const events: EventRecorder | undefined = kc
    ? createEventRecorder({ kc, component: 'fabrik-agent-host', host: config.nodeName, log: logger })
    : undefined;
  const nodeRef = { apiVersion: 'v1', kind: 'Node', name: config.nodeName };

  let enqueue: Enqueue = () => {};
  let watched: WatchedNames = { links: new Set(), addressed: new Set(), present: new Set(), up: new Set() };
  const ovs = openOvsConnection({
    endpoint: config.ovsdbSocket,
    logger,
    onCacheUpdate: (changes) => {
      // Stamped when received: the daemon drops the agent's own transactions (received before the
      // reconcile that made them ended).
      const reason = ovsChangeReason(changes, watched);
      if (reason) enqueue(reason, Date.now());
    },
    onConnected: () => enqueue('ovsdb connected'),
  });
  const ovsTrigger: Trigger = {
    start: (e) => {
      enqueue = e;
    },
    stop: () => {
      enqueue = () => {};
    },
  };
  // iproute2 for the reconcile, as agent-netns (setup.ts says why); the CNI socket's path is native.
  const netlink = createIprouteNetlink({ journal: createCreationJournal(config.stateDir) });
  const ctx: HostAgentContext = {
    config,
    netlink,
    ovs,
    journals: createJournalStore(config.stateDir, (path, reason) =>
      logger.error({ path, reason }, 'single NIC: unreadable journal ignored'),
    ),
    logger,
    clock: () => new Date(),
    vswitchdTimeoutMs: 30_000,
    ...(options.afterJournalStep ? { afterJournalStep: options.afterJournalStep } : {}),
  };
  const relay = config.relay
    ? createRelay({
        intentFile: config.relay.intentFile,
        statusFile: config.relay.statusFile,
        netnsStatus: sinks.netns,
        netnsMaxAgeMs: config.relay.netnsMaxAgeSeconds * 1000,
        logger,
      })
    : undefined;
  const cniRequests = metrics.counter('cni_requests_total', 'CNI invocations answered on the CNI socket', [
    'command',
    'result',
  ]);
  const cniSeconds = metrics.histogram('cni_request_duration_seconds', 'CNI invocations on the CNI socket', [
    'command',
  ]);
  // Tenant scoping needs the cluster's view (Namespaces, IPPools): a file source admits every Pod.
  const namespaces = kc && config.cniSocket ? watchNamespaceLabels(kc, logger) : undefined;
  const admit =
    kc && namespaces
      ? tenantAdmission({
          objects: () => source.snapshot().objects,
          namespaceLabels: (name) => namespaces.get(name),
          ipPools: ipPoolClient(kc),
        })
      : undefined;
  const cni = config.cniSocket
    ? await serveCniSocket({
        path: config.cniSocket,
        logger,
        plugin: fabrikOvsVerbs(ovs, config.ovsdbSocket, inProcessIpam(heldIpPoolClients(kc, logger)), admit),
        onAnswered: (command, exitCode, seconds) => {
          cniRequests.inc({ command, result: exitCode === 0 ? 'success' : 'error' });
          cniSeconds.observe({ command }, seconds);
        },
      })
    : undefined;
  await relay?.start();

  // /healthz fails on an unreachable OVSDB only while OVS is needed: a node that only uses
  // `attach: kernel` runs without Open vSwitch.
  let ovsNeeded = config.secondaryNetwork.ovsBridges.length > 0;
  let conditions: readonly Condition[] | undefined;
  const report = async (outcome: HostOutcome) => {
    const { section, transitioned, condition } = hostSection(outcome, conditions, new Date());
    conditions = section.conditions;
    for (const [kind, n] of Object.entries(outcome.owned)) ownedGauge.set({ kind }, n);
    if (transitioned)
      events?.event(
        nodeRef,
        condition.status === 'True' ? 'Normal' : 'Warning',
        condition.status === 'True' ? 'HostReady' : 'HostNotReady',
        condition.message,
      );
    await sinks.host
      .write(section)
      .catch((e: unknown) => logger.warn({ err: e }, 'writing the host status failed'));
  };
  let lastOutcome: HostOutcome = {
    objectErrors: [],
    problems: [],
    layer2Networks: {},
    owned: { ovsBridge: 0, ovsPort: 0, vlan: 0 },
  };

  const reconcile = async ({ snapshot, signal }: ReconcileRequest): Promise<ReconcileOutcome> => {
    const relayProblems: string[] = [];
    // Objects the relay refuses (a tenant's BGPPeering naming a file of the node) are that object's
    // problem only: reported beside the Layer2Networks agent-host skips, the node stays ready.
    const relayRefused: ObjectError[] = [];
    if (relay)
      await relay.writeIntent(snapshot).then(
        ({ objectErrors }) => relayRefused.push(...objectErrors),
        (e: unknown) => {
          relayProblems.push(
            `relay: writing ${config.relay?.intentFile}: ${e instanceof Error ? e.message : String(e)}`,
          );
        },
      );
    try {
      const pass = await reconcileHost(ctx, snapshot, { signal });
      watched = pass.watched;
      ovsNeeded = pass.neededOvs;
      for (const m of pass.moves) {
        const direction = m.kind === 'migrated' ? 'to_bridge' : 'to_nic';
        movesTotal.inc({ direction });
        gapSeconds.observe({ direction }, m.gapMs / 1000);
        events?.event(
          nodeRef,
          'Normal',
          m.kind === 'migrated' ? 'SingleNicMigrated' : 'SingleNicRestored',
          m.kind === 'migrated'
            ? `the addresses and routes of ${m.nic} moved to ${m.bridge} (${m.gapMs} ms)`
            : `the addresses and routes of ${m.bridge} moved back to ${m.nic} (${m.gapMs} ms)`,
        );
      }
      lastOutcome = {
        ...pass.outcome,
        objectErrors: [...pass.outcome.objectErrors, ...relayRefused],
        problems: [...pass.outcome.problems, ...relayProblems],
      };
      await report(lastOutcome);
      const refused = lastOutcome.objectErrors.length + lastOutcome.problems.length;
      return {
        result: refused > 0 ? 'invalid' : 'success',
        verifiedAt: pass.verifiedAt,
        counts: {
          ...pass.counts,
          objectErrors: lastOutcome.objectErrors.length,
          problems: lastOutcome.problems.length,
        },
        ...(refused > 0
          ? {
              message: [
                ...lastOutcome.problems,
                ...lastOutcome.objectErrors.map((e) => `${e.kind} ${e.name}: ${e.message}`),
              ].join('; '),
            }
          : {}),
      };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      await report({ ...lastOutcome, error: message, problems: relayProblems });
      return { result: 'error', message };
    }
  };

  try {
    return await runDaemon({
      logger,
      metrics,
      source,
      reconcile,
      triggers: [
        ovsTrigger,
        netlinkDriftTrigger(
          netlink,
          () => watched,
          (why) => logger.warn({ why }, 'drift monitor'),
        ),
      ],
      resyncIntervalMs: config.resyncSeconds * 1000,
      metricsAddress: config.metricsAddress,
      healthAddress: config.healthAddress,
      healthChecks: {
        ovsdb: async () => {
          const problem = ovs.problem();
          if (problem && ovsNeeded) throw new Error(problem);
        },
      },
    });
  } finally {
    relay?.stop();
    await cni?.close();
    await namespaces?.stop();
    await ovs.close();
    await events?.flush();
  }
}
