import { addressFreeChanges, trunkVlanNamesOf } from './address-free.js';
import { physicalInterfaceName, type AgentHostConfig, type ObjectError } from '@fabrik/api';
import { scheduleIntent, type IntentSnapshot, type Logger } from '@fabrik/agent-runtime';
import {
  batchOpArgs,
  formatPlan,
  plan as planNetlink,
  type Netlink,
  type NetlinkBatchOp,
  type ObservedState,
} from '@fabrik/netcore/netlink';
import {
  OVS_OWNER_KEY,
  formatOvsPlan,
  ovsOwnershipConflicts,
  planOvs,
  reconcileOvs,
  waitForOfport,
  waitForOfportInCache,
  waitForVswitchd,
  type OvsChange,
  type OvsDesiredState,
  type OvsdbClient,
} from '@fabrik/netcore/ovsdb';
import { OWNER, desiredHost, type BridgeMigration, type HostDesired } from './desired.js';
import type { JournalStore } from './journal.js';
import {
  adoptFromNic,
  beginMigration,
  decideMigrations,
  directionOf,
  planMove,
  type MigrationDecision,
  type MigrationJournal,
  type MigrationStep,
} from './migration.js';
import type { OvsConnection } from './ovs-connection.js';
import type { HostOutcome } from './status.js';

// One pass of agent-host, in the order that keeps the node reachable: decide the single-NIC
// migrations and journal them, one OVS transaction (bridges, uplinks, tr.<vid> ports), wait for
// ovs-vswitchd, then netlink (tr.<vid> VLAN links, internal ports up, addresses and routes moved in
// one `ip -batch`). Everything is re-read at the start of each pass (level-triggered).

export interface HostAgentContext {
  readonly config: AgentHostConfig;
  readonly netlink: Netlink;
  readonly ovs: OvsConnection;
  readonly journals: JournalStore;
  readonly logger: Logger;
  readonly clock: () => Date;
  /** How long ovs-vswitchd may take to set up (or release) a migrated NIC. */
  readonly vswitchdTimeoutMs: number;
  /**
   * Called after each journal step is durably saved; the CLI wires a test failpoint to it
   * (`FABRIK_AGENT_HOST_CRASH_AFTER`). `restored`: the journal of a migration moved back is about
   * to be removed.
   */
  readonly afterJournalStep?: (step: MigrationStep | 'restored', journal: MigrationJournal) => void;
}

/** Names whose kernel or OVS changes concern agent-host (its drift triggers read them). */
export interface WatchedNames {
  /** Links: bridges' local ports, NICs, tr.<vid>, the trunk. */
  readonly links: ReadonlySet<string>;
  /** Links whose addresses and routes are agent-host's to keep (migrated NICs and their bridges). */
  readonly addressed: ReadonlySet<string>;
  /** Of these links, the ones that existed when the pass ended (an event of another: it appeared). */
  readonly present: ReadonlySet<string>;
  /** Of these links, the ones agent-host keeps up (tr.<vid>). */
  readonly up: ReadonlySet<string>;
}

export interface HostPass {
  readonly outcome: HostOutcome;
  readonly counts: Record<string, number>;
  /** Single-NIC moves that finished in this pass, for logs and Events. */
  readonly moves: readonly {
    readonly kind: 'migrated' | 'restored';
    readonly bridge: string;
    readonly nic: string;
    readonly gapMs: number;
  }[];
  readonly watched: WatchedNames;
  /** This pass needed Open vSwitch (bridges configured or a migration under way). */
  readonly neededOvs: boolean;
  /**
   * When the node was last seen as the pass left it (ms since the epoch): when it started if it
   * changed nothing, else when its final check found nothing left to do; when it started too if
   * that check found something (the next event is then followed).
   */
  readonly verifiedAt: number;
}

const bridgesOf = (config: AgentHostConfig) =>
  config.secondaryNetwork.ovsBridges.map((b) => ({
    name: b.bridgeName,
    nics: b.physicalInterfaces.map(physicalInterfaceName),
  }));

/**
 * The OVSDB client, or undefined when OVS is not needed (no bridge configured, no migration under
 * way) and not reachable: a node that only uses `attach: kernel` runs without Open vSwitch. Owned
 * rows left from an older configuration are removed once OVSDB answers again.
 */
function ovsClient(ovs: OvsConnection, needed: boolean): OvsdbClient | undefined {
  const client = ovs.client();
  if (client && ovs.ready()) return client;
  if (needed) throw new Error(ovs.problem() ?? 'ovsdb is not ready');
  return undefined;
}

/** Stands for the database when OVS is not there: nothing observed, nothing owned. */
const NO_OVS = {
  Open_vSwitch: new Map(),
  Bridge: new Map(),
  Port: new Map(),
  Interface: new Map(),
} as const;
const needsOvs = (desired: OvsDesiredState, decisions: readonly MigrationDecision[]) =>
  desired.bridges.length > 0 || decisions.length > 0;

/** The migrations as desiredHost sees them, from this pass's decisions and journals. */
function migrationStates(decisions: readonly MigrationDecision[]): Map<string, BridgeMigration> {
  const out = new Map<string, BridgeMigration>();
  for (const d of decisions) {
    if (d.kind === 'start')
      out.set(d.bridge, {
        bridge: d.bridge,
        nic: d.nic.spec.name,
        mac: d.nic.spec.mac ?? '',
        state: 'attached',
      });
    else
      out.set(d.journal.bridge, {
        bridge: d.journal.bridge,
        nic: d.journal.nic,
        mac: d.journal.mac,
        state: d.kind === 'forward' ? 'attached' : 'detached',
      });
  }
  return out;
}

/** The desired OVS state without the bridges and ports foreign rows hold (each one reported). */
function withoutConflicts(
  desired: OvsDesiredState,
  client: OvsdbClient | undefined,
): { ovs: OvsDesiredState; problems: string[] } {
  const conflicts = ovsOwnershipConflicts(desired, client?.cache ?? NO_OVS);
  const problems = conflicts.map(
    (c) =>
      `${c.table === 'Bridge' ? 'bridge' : 'port'} ${c.name} exists and is not agent-host's (${
        c.foundOwner === undefined ? 'no owner mark' : `fabrik-owner=${c.foundOwner}`
      }): left alone`,
  );
  const badBridges = new Set(conflicts.filter((c) => c.table === 'Bridge').map((c) => c.name));
  const badPorts = new Set(conflicts.filter((c) => c.table === 'Port').map((c) => c.name));
  return {
    ovs: {
      ...desired,
      bridges: desired.bridges
        .filter((b) => !badBridges.has(b.name))
        .map((b) => ({ ...b, ports: b.ports.filter((p) => !badPorts.has(p.name)) })),
    },
    problems,
  };
}

/** Migrations cannot start on a bridge agent-host may not touch. */
function withoutForeignBridges(
  decisions: readonly MigrationDecision[],
  ovs: OvsDesiredState,
): MigrationDecision[] {
  const mine = new Set(ovs.bridges.map((b) => b.name));
  return decisions.filter((d) => d.kind !== 'start' || mine.has(d.bridge));
}

/** Interface errors ovs-vswitchd reports for agent-host's ports (a NIC that does not exist, ...). */
function interfaceProblems(client: OvsdbClient | undefined, desired: OvsDesiredState): string[] {
  if (!client) return [];
  const wanted = new Set(desired.bridges.flatMap((b) => [b.name, ...b.ports.map((p) => p.name)]));
  const out: string[] = [];
  for (const iface of client.cache.Interface.values())
    if (wanted.has(iface.name) && iface.error !== undefined)
      out.push(`interface ${iface.name}: ${iface.error}`);
  return out.sort();
}

function ownedCounts(client: OvsdbClient | undefined, kernelVlans: number): HostOutcome['owned'] {
  if (!client) return { ovsBridge: 0, ovsPort: 0, vlan: kernelVlans };
  const mine = (ids: Readonly<Record<string, string>>) => ids[OVS_OWNER_KEY] === OWNER;
  const bridges = [...client.cache.Bridge.values()].filter((b) => mine(b.external_ids));
  const localPorts = new Set(bridges.map((b) => b.name));
  const ports = [...client.cache.Port.values()].filter(
    (p) => mine(p.external_ids) && !localPorts.has(p.name),
  );
  return { ovsBridge: bridges.length, ovsPort: ports.length, vlan: kernelVlans };
}

/** The node's links, addresses and routes; with `trunkVlans`, their IPv6 address generation too. */
const observe = (netlink: Netlink, trunkVlans: readonly string[] = []): Promise<ObservedState> =>
  netlink.observe({
    routes: true,
    ...(trunkVlans.length > 0 ? { sysctlsOf: trunkVlans, sysctlKeys: ['addrGenMode' as const] } : {}),
  });

/** The netlink plan of the `tr.<vid>` links (and the links a killed apply was creating). */
const planVlans = async (ctx: HostAgentContext, desired: HostDesired, observed: ObservedState) =>
  planNetlink({ owner: OWNER, links: [...desired.kernelVlans] }, observed, {
    adopt: await ctx.netlink.adoptable(),
  });

interface Desired {
  readonly desired: HostDesired;
  readonly decisions: readonly MigrationDecision[];
  readonly objectErrors: ObjectError[];
  readonly problems: string[];
}

/** The pure part of a pass: scheduling, migrations, desired state (no journal written). */
function computeDesired(
  ctx: HostAgentContext,
  snapshot: IntentSnapshot | undefined,
  observed: ObservedState,
  journals: ReadonlyMap<string, MigrationJournal>,
  cleanup: boolean,
): Desired {
  const { config } = ctx;
  const scheduled = snapshot ? scheduleIntent(snapshot) : undefined;
  const migration = decideMigrations(bridgesOf(config), journals, observed, { cleanup });
  const trunkLink = config.trunk && observed.links.find((l) => l.spec.name === config.trunk?.hostInterface);
  const desired = desiredHost({
    config: cleanup ? { ...config, secondaryNetwork: { ovsBridges: [] }, trunk: undefined } : config,
    layer2Networks: scheduled?.layer2Networks ?? [],
    migrations: migrationStates(migration.decisions),
    heldBack: migration.heldBack,
    trunkMtu: trunkLink?.spec.mtu,
  });
  const problems = [...migration.problems];
  if (config.trunk && !cleanup && !trunkLink)
    problems.push(`trunk ${config.trunk.hostInterface} does not exist`);
  return {
    desired,
    decisions: migration.decisions,
    objectErrors: [
      ...(scheduled?.objectErrors.filter((e) => e.kind === 'Layer2Network') ?? []),
      ...desired.objectErrors,
    ],
    problems,
  };
}

type SaveStep = (journal: MigrationJournal, step: MigrationStep) => Promise<MigrationJournal>;
type Move = HostPass['moves'][number];

/** Saves a journal at `step` (durably), then tells the failpoint. */
const journalStep =
  (ctx: HostAgentContext): SaveStep =>
  async (journal, step) => {
    const next = { ...journal, step };
    await ctx.journals.save(next);
    ctx.afterJournalStep?.(step, next);
    return next;
  };

/**
 * Step 1 of a pass: what each migration is about to do goes to its journal before anything moves
 * (`begin` with what the NIC holds, `restoring`, or what was adopted from the NIC). Returns the
 * journals of this pass and when each move started (for the gap it reports).
 */
async function journalDecisions(
  ctx: HostAgentContext,
  decisions: readonly MigrationDecision[],
  observed: ObservedState,
  problems: string[],
  save: SaveStep,
): Promise<{ active: MigrationJournal[]; started: Map<string, number> }> {
  const { logger, journals } = ctx;
  const active: MigrationJournal[] = [];
  const started = new Map<string, number>();
  for (const d of decisions) {
    let journal: MigrationJournal;
    if (d.kind === 'start') {
      const begun = beginMigration(d.bridge, d.nic, observed.routes ?? [], ctx.clock());
      problems.push(...begun.unsupported.map((u) => `${d.nic.spec.name}: ${u} (not moved)`));
      journal = await save(begun.journal, 'begin');
      logger.info(
        {
          bridge: d.bridge,
          nic: journal.nic,
          addresses: journal.addresses.map((a) => a.address),
          routes: journal.routes.length,
        },
        'single NIC: moving its addresses and routes to the bridge',
      );
    } else if (d.kind === 'forward') {
      const adoption = adoptFromNic(d.journal, observed);
      journal = adoption.journal;
      if (adoption.adopted.length > 0) {
        await journals.save(journal);
        logger.info(
          { bridge: journal.bridge, nic: journal.nic, adopted: adoption.adopted },
          'single NIC: configuration put on the NIC moves to the bridge',
        );
      }
    } else {
      journal = directionOf(d.journal.step) === 'to-bridge' ? await save(d.journal, 'restoring') : d.journal;
    }
    if (journal.step === 'begin' || journal.step === 'restoring')
      started.set(journal.bridge, performance.now());
    active.push(journal);
  }
  return { active, started };
}

/** Step 3: ovs-vswitchd has taken each NIC that joins (and made the local port), or let it go. */
async function awaitVswitchd(
  ctx: HostAgentContext,
  client: OvsdbClient | undefined,
  active: readonly MigrationJournal[],
  save: SaveStep,
): Promise<MigrationJournal[]> {
  const out: MigrationJournal[] = [];
  for (const j of active) {
    if (client && j.step === 'begin') {
      await waitForOfport(client, j.bridge, { timeoutMs: ctx.vswitchdTimeoutMs });
      await waitForOfport(client, j.nic, { timeoutMs: ctx.vswitchdTimeoutMs });
      out.push(await save(j, 'bridged'));
    } else if (client && j.step === 'restoring') {
      await waitForVswitchd(client, { timeoutMs: ctx.vswitchdTimeoutMs });
      out.push(await save(j, 'unbridged'));
    } else out.push(j);
  }
  return out;
}

/** Step 5: one `ip -batch` per migration, verified by observing again; the journal records the end. */
async function moveAddresses(
  ctx: HostAgentContext,
  active: readonly MigrationJournal[],
  observedBefore: ObservedState,
  started: ReadonlyMap<string, number>,
  save: SaveStep,
): Promise<Move[]> {
  const { logger, netlink } = ctx;
  let observed = observedBefore;
  const moves: Move[] = [];
  for (const j of active) {
    const ops = planMove(j, observed);
    if (ops.length > 0) {
      await netlink.batch(ops);
      observed = await observe(netlink);
      const left = planMove(j, observed);
      if (left.length > 0)
        throw new Error(
          `single NIC ${j.nic}: ${left.length} change(s) did not take (${left.map((o) => o.op).join(', ')})`,
        );
    }
    const gapMs = Math.round(performance.now() - (started.get(j.bridge) ?? performance.now()));
    if (directionOf(j.step) === 'to-nic') {
      ctx.afterJournalStep?.('restored', j);
      await ctx.journals.clear(j.bridge);
      moves.push({ kind: 'restored', bridge: j.bridge, nic: j.nic, gapMs });
      logger.info(
        { bridge: j.bridge, nic: j.nic, gapMs },
        'single NIC: addresses and routes are back on the NIC',
      );
    } else if (j.step !== 'moved') {
      await save(j, 'moved');
      moves.push({ kind: 'migrated', bridge: j.bridge, nic: j.nic, gapMs });
      logger.info(
        { bridge: j.bridge, nic: j.nic, gapMs },
        'single NIC: addresses and routes are on the bridge',
      );
    }
  }
  return moves;
}

/**
 * One reconcile pass (`cleanup`: move every single NIC back, delete every owned bridge, port and
 * link). Throws when something could not be applied (the daemon retries with backoff).
 */
export async function reconcileHost(
  ctx: HostAgentContext,
  snapshot: IntentSnapshot | undefined,
  options: { readonly cleanup?: boolean; readonly signal?: AbortSignal } = {},
): Promise<HostPass> {
  const { logger, netlink } = ctx;
  const startedAt = Date.now();
  const trunkVlanNames = trunkVlanNamesOf(snapshot);
  const observed = await observe(netlink, trunkVlanNames);
  const computed = computeDesired(
    ctx,
    snapshot,
    observed,
    await ctx.journals.loadAll(),
    options.cleanup ?? false,
  );
  const { desired, objectErrors, problems } = computed;
  const neededOvs = needsOvs(desired.ovs, computed.decisions);
  const client = ovsClient(ctx.ovs, neededOvs);
  const { ovs, problems: ownership } = withoutConflicts(desired.ovs, client);
  problems.push(...ownership);
  if (options.signal?.aborted) throw new Error('stopping');
  const save = journalStep(ctx);

  // 1. Journal first: what a NIC holds is on disk before anything moves.
  const decisions = withoutForeignBridges(computed.decisions, ovs);
  const journaled = await journalDecisions(ctx, decisions, observed, problems, save);

  // 2. OVS: one transaction. 3. ovs-vswitchd has caught up where a NIC joins or leaves.
  const ovsPlan = client ? await reconcileOvs(client, ovs) : undefined;
  if (ovsPlan && ovsPlan.changes.length > 0) logger.info({ changes: formatOvsPlan(ovsPlan) }, 'ovs: applied');
  const active = await awaitVswitchd(ctx, client, journaled.active, save);

  // 4. netlink: tr.<vid> VLAN links (owned; the others of agent-host are deleted), internal ports up
  // (those this transaction added once ovs-vswitchd has made their links: up in this pass).
  if (client && ovsPlan) await internalPortsMade(ctx, client, ovsPlan.changes, desired.internalPortsUp);
  // Planned against this pass's first observation: a dump is a process start (a large share of a
  // reconcile in the lab kernel), and nothing since has touched links of agent-host's mark (OVS
  // adds only its internal ports, which carry none).
  const vlanPlan = planNetlink({ owner: OWNER, links: [...desired.kernelVlans] }, observed, {
    adopt: await netlink.adoptable(),
  });
  await netlink.apply(vlanPlan);
  if (vlanPlan.ops.length > 0) logger.info({ ops: formatPlan(vlanPlan) }, 'netlink: applied');
  // Neither OVS nor netlink changed anything: the first observation is still the node's state.
  const changedKernel = (ovsPlan?.changes.length ?? 0) + vlanPlan.ops.length > 0;
  const afterOvs = changedKernel ? await observe(netlink, trunkVlanNames) : observed;
  // No address on tr.<vid>: IPv6 address generation off before an internal port comes up.
  const quiet = addressFreeChanges(
    desired.trunkVlans.map((v) => v.name),
    afterOvs,
  );
  for (const name of quiet.generationOff) await netlink.sysctlSet(name, { addrGenMode: 'none' });
  await netlink.batch(quiet.deletes);
  const ups: NetlinkBatchOp[] = desired.internalPortsUp
    .filter((n) => afterOvs.links.some((l) => l.spec.name === n && !l.spec.up))
    .map((name) => ({ op: 'linkSetUp', name }));
  await netlink.batch(ups);

  // 5. Addresses and routes.
  const moves = await moveAddresses(ctx, active, afterOvs, journaled.started, save);

  problems.push(...interfaceProblems(client, ovs));
  const migrated = active.filter((j) => directionOf(j.step) === 'to-bridge');
  const changes =
    (ovsPlan?.changes.length ?? 0) +
    vlanPlan.ops.length +
    ups.length +
    quiet.generationOff.length +
    quiet.deletes.length;
  const end =
    changes === 0 && decisions.length === 0
      ? { verifiedAt: startedAt, observed: afterOvs }
      : await verify(ctx, {
          client,
          ovs,
          desired,
          trunkVlanNames,
          startedAt,
          migrating: decisions.length > 0,
        });
  const watchedLinks = new Set([
    ...ovs.bridges.flatMap((b) => [b.name, ...b.ports.map((p) => p.name)]),
    ...(ctx.config.trunk ? [ctx.config.trunk.hostInterface] : []),
    ...desired.trunkVlans.map((v) => v.name),
    ...bridgesOf(ctx.config).flatMap((b) => b.nics),
  ]);
  const addressed = new Set(migrated.flatMap((j) => [j.bridge, j.nic]));
  return {
    outcome: {
      objectErrors,
      problems,
      layer2Networks: Object.fromEntries(desired.trunkVlans.map((v) => [v.network, v.generation])),
      owned: ownedCounts(client, desired.kernelVlans.length),
    },
    counts: {
      ovsChanges: ovsPlan?.changes.length ?? 0,
      netlinkOps: vlanPlan.ops.length + ups.length,
      trunkVlans: desired.trunkVlans.length,
      migrations: migrated.length,
    },
    moves,
    neededOvs,
    watched: {
      links: watchedLinks,
      addressed,
      present: new Set(
        end.observed.links.map((l) => l.spec.name).filter((n) => watchedLinks.has(n) || addressed.has(n)),
      ),
      up: new Set([...desired.kernelVlans.map((l) => l.name), ...desired.internalPortsUp]),
    },
    verifiedAt: end.verifiedAt,
  };
}

/**
 * Waits until ovs-vswitchd has made the links of the internal ports `changes` added (so that they
 * are set up in this pass, not in one their appearance causes). A port it cannot make is left to
 * the status (its Interface error) and to the drift trigger (its link appearing later).
 */
async function internalPortsMade(
  ctx: HostAgentContext,
  client: OvsdbClient,
  changes: readonly OvsChange[],
  internalPorts: readonly string[],
): Promise<void> {
  const added = new Set(changes.flatMap((c) => (c.action === 'add-port' ? [c.port] : [])));
  for (const name of internalPorts.filter((n) => added.has(n)))
    await waitForOfportInCache(client, name, { timeoutMs: ctx.vswitchdTimeoutMs }).catch((e: unknown) =>
      ctx.logger.warn({ err: e, port: name }, 'ovs: internal port not made by ovs-vswitchd'),
    );
}

/**
 * The end of a pass that changed something: the node observed again and planned against. When
 * nothing is left to do, the node was as the pass left it at the time of that observation, and the
 * events stamped before it are the pass's own; otherwise (or while a single NIC moves: not planned
 * here) only what the pass read at its start is covered.
 */
async function verify(
  ctx: HostAgentContext,
  pass: {
    readonly client: OvsdbClient | undefined;
    readonly ovs: OvsDesiredState;
    readonly desired: HostDesired;
    readonly trunkVlanNames: readonly string[];
    readonly startedAt: number;
    readonly migrating: boolean;
  },
): Promise<{ verifiedAt: number; observed: ObservedState }> {
  const { client, ovs, desired } = pass;
  const at = Date.now();
  const observed = await observe(ctx.netlink, pass.trunkVlanNames);
  const quiet = addressFreeChanges(
    desired.trunkVlans.map((v) => v.name),
    observed,
  );
  const left =
    (client ? planOvs(ovs, client.cache).changes.length : 0) +
    (await planVlans(ctx, desired, observed)).ops.length +
    quiet.generationOff.length +
    quiet.deletes.length +
    desired.internalPortsUp.filter((n) => !observed.links.some((l) => l.spec.name === n && l.spec.up)).length;
  return { verifiedAt: left === 0 && !pass.migrating ? at : pass.startedAt, observed };
}

/** What `run` would change now (`changes`, empty when in sync) and what it would skip (`notes`). Reads only. */
export async function planHost(
  ctx: HostAgentContext,
  snapshot: IntentSnapshot,
): Promise<{ changes: string[]; notes: string[] }> {
  const observed = await observe(ctx.netlink, trunkVlanNamesOf(snapshot));
  const stored = await ctx.journals.loadAll();
  const computed = computeDesired(ctx, snapshot, observed, stored, false);
  const client = ovsClient(ctx.ovs, needsOvs(computed.desired.ovs, computed.decisions));
  const { ovs, problems: ownership } = withoutConflicts(computed.desired.ovs, client);
  const { desired } = computed;
  const decisions = withoutForeignBridges(computed.decisions, ovs);
  const changes: string[] = [];
  for (const d of decisions) {
    if (d.kind === 'start') {
      const { journal } = beginMigration(d.bridge, d.nic, observed.routes ?? [], ctx.clock());
      changes.push(
        `# single NIC: move ${journal.addresses.length} address(es) and ${journal.routes.length} route(s) of ${d.nic.spec.name} to ${d.bridge}`,
      );
    } else if (d.kind === 'back') {
      changes.push(
        `# single NIC: move the addresses and routes of ${d.journal.bridge} back to ${d.journal.nic}`,
      );
    } else {
      const adopted = adoptFromNic(d.journal, observed).adopted;
      if (adopted.length > 0)
        changes.push(
          `# single NIC: ${adopted.join(', ')} appeared on ${d.journal.nic}: move to ${d.journal.bridge}`,
        );
      if (d.journal.step !== 'begin' && observed.links.some((l) => l.spec.name === d.journal.bridge))
        changes.push(...planMove(d.journal, observed).map((op) => `ip ${batchOpArgs(op).join(' ')}`));
    }
  }
  if (client) changes.push(...formatOvsPlan(planOvs(ovs, client.cache)).map((l) => `ovs-vsctl ${l}`));
  changes.push(...formatPlan(await planVlans(ctx, desired, observed)).map((l) => `ip ${l}`));
  const quiet = addressFreeChanges(
    desired.trunkVlans.map((v) => v.name),
    observed,
  );
  changes.push(
    ...quiet.generationOff.map((n) => `ip link set dev ${n} addrgenmode none`),
    ...quiet.deletes.map((op) => `ip ${batchOpArgs(op).join(' ')}`),
    ...desired.internalPortsUp
      .filter((n) => observed.links.some((l) => l.spec.name === n && !l.spec.up))
      .map((n) => `ip link set dev ${n} up`),
  );
  const notes = [
    ...computed.objectErrors.map(
      (e) => `skipped ${e.kind} ${e.name}: ${e.field ? `${e.field}: ` : ''}${e.message}`,
    ),
    ...computed.problems,
    ...ownership,
  ];
  return { changes, notes };
}
