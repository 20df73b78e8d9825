import type { FrrIntent } from '@fabrik/api';
import { renderFrrConfig } from '@fabrik/frr';
import {
  isOwnedBy,
  observeScopeOf,
  plan as planNetlink,
  type DesiredState,
  type Netlink,
  type ObservedState,
} from '@fabrik/netcore/netlink';
import type { FrrApplyResult, FrrInspection, FrrState } from './frr-state.js';
import { hbrDesiredState, type Layer2Kernel } from './hbr-state.js';
import { beforeFrrState, downUnmappedL3Vnis, touchesL3Vni } from './phases.js';

/** What the node should run: the routing intent (FRR and kernel) and the L2 networks' kernel details. */
export interface NodeIntent {
  readonly frr: FrrIntent;
  /** By L2 VNI. */
  readonly layer2: ReadonlyMap<number, Layer2Kernel>;
}

/** The HBR namespace agent-netns manages, and how. */
export interface HbrNode {
  readonly netlink: Netlink;
  readonly frr: FrrState;
  /** Ownership mark of every link (`fabrik:<owner>`). */
  readonly owner: string;
  readonly trunk: string;
  /** FRR's hostname (the rendered configuration must carry the running one). */
  readonly hostname: string;
  readonly vniWaitTimeoutMs: number;
}

export interface ApplyReport {
  /** Netlink operations run (both phases). */
  readonly netlinkOps: number;
  readonly frr: FrrApplyResult;
  /** Links this agent owns once applied, by kind (`vrf`, `bridge`, `vxlan`, `vlan`, `veth`). */
  readonly owned: Readonly<Record<string, number>>;
  /** The FRR configuration now applied. */
  readonly frrConfig: string;
  /**
   * Milliseconds spent on netlink (observe, both steps, verification; FRR's check of its running
   * configuration runs alongside the observe) and on FRR's reload and the VNI mapping wait.
   */
  readonly netlinkMs: number;
  readonly frrMs: number;
  /** The links the node now holds for this agent (owned, and a given hbr VRF), as the drift monitor expects them. */
  readonly links: ReadonlyMap<string, ExpectedLink>;
  /** The routing tables in which the agent now keeps routes (its unreachable defaults), as numbers. */
  readonly routeTables: ReadonlySet<string>;
}

export interface ApplyOptions {
  /** False: delete no link or route (the last good state at start, before the source has answered). Default: true. */
  readonly prune?: boolean;
  /**
   * The daemon is stopping: the apply ends at the next step boundary with the signal's reason
   * (AbortError), as a kill -9 there would end it, so a stop waits for one step, not a whole apply.
   */
  readonly signal?: AbortSignal;
}

/** The kernel's main routing table: a route without a table is in it. */
export const MAIN_TABLE = 254;

/** What a link should look like: its admin state and master, where the desired state says. */
export interface ExpectedLink {
  readonly up?: boolean;
  readonly master?: string | null;
}

const NOTHING_OBSERVED: ObservedState = {
  links: [],
  routes: undefined,
  neighbours: undefined,
  fdb: undefined,
  sysctls: undefined,
};

/** The node's complete netlink state for `intent`, given what the namespace holds (pure). */
export function nodeDesiredState(
  node: Pick<HbrNode, 'owner' | 'trunk'>,
  intent: NodeIntent,
  observed: ObservedState,
  phase: 'full' | 'l3-down' = 'full',
): DesiredState {
  return hbrDesiredState(intent.frr, {
    owner: node.owner,
    trunk: node.trunk,
    layer2: intent.layer2,
    hbrVrfGiven: hbrVrfGiven(node, intent, observed),
    phase,
  });
}

/** The hbr VRF exists and is not this agent's: the HBR container made it (seed 004). */
function hbrVrfGiven(node: Pick<HbrNode, 'owner'>, intent: NodeIntent, observed: ObservedState): boolean {
  const hbr = observed.links.find((l) => l.spec.name === intent.frr.hbrVrf);
  return hbr !== undefined && !isOwnedBy(hbr.alias, node.owner);
}

/** What the namespace holds of the object types `intent`'s state uses (links, addresses, routes, sysctls). */
export function observeNode(
  node: Pick<HbrNode, 'owner' | 'trunk' | 'netlink'>,
  intent: NodeIntent,
): Promise<ObservedState> {
  return node.netlink.observe(observeScopeOf(nodeDesiredState(node, intent, NOTHING_OBSERVED)));
}

/** The FRR configuration of `intent` (pure). */
export const nodeFrrConfig = (node: Pick<HbrNode, 'hostname'>, intent: NodeIntent): string =>
  renderFrrConfig(intent.frr, { hostname: node.hostname });

/**
 * Applies `intent` in the order EVPN needs (learnt upstream): VRFs that FRR drops lose their L3
 * VNI in FRR while their devices exist; links that go away are deleted and
 * new VRFs and L3 VNI devices created down; FRR is reloaded; zebra's VRF-to-VNI mapping is awaited
 * (bounded); then everything comes up and the L2 networks follow. Each step is idempotent and
 * computed from what the kernel and FRR show, so a process killed at any point converges when it
 * runs again.
 *
 * When FRR already runs the rendered configuration and the step before FRR touches no device of
 * an L3 VNI (an L2 network added or removed, drift of an L2 device), there is nothing to order:
 * the full state is applied in one step, without a reload or a wait for zebra.
 */
export function applyNode(
  node: HbrNode,
  intent: NodeIntent,
  options: ApplyOptions = {},
): Promise<ApplyReport> {
  return applyNodeSteps(node, intent, options, true);
}

/** How FRR stands when this process applied the rendered configuration last: taken on trust, checked after. */
const ASSUMED_CURRENT: FrrInspection = { current: true, droppedL3Vnis: [] };

/**
 * {@link applyNode}. With `trustLastApply`, when FRR was last given the rendered configuration by
 * this process, FRR's running configuration is read after a one-step apply instead of before:
 * `show running-config` is the slowest read of a reconcile, and drift repair (a link deleted or set
 * down by hand) waits for it otherwise. When the apply needs FRR's order after all, or FRR was
 * changed meanwhile (by hand), the steps run again with FRR read first.
 */
async function applyNodeSteps(
  node: HbrNode,
  intent: NodeIntent,
  options: ApplyOptions,
  trustLastApply: boolean,
): Promise<ApplyReport> {
  const prune = options.prune ?? true;
  // Between steps only: the node is then where a kill -9 at that point would leave it.
  const betweenSteps = () => options.signal?.throwIfAborted();
  const t0 = performance.now();
  const frrConfig = nodeFrrConfig(node, intent);
  const trusted = trustLastApply && node.frr.lastAppliedConfig() === frrConfig;
  const [observed, frrNow, adopt] = await Promise.all([
    observeNode(node, intent),
    trusted ? ASSUMED_CURRENT : node.frr.inspect(frrConfig),
    node.netlink.adoptable(),
  ]);
  // VRFs FRR is about to drop lose their L3 VNI while their devices still exist (the first step
  // deletes them): zebra tells bgpd only then, and bgpd refuses to remove the VRF otherwise.
  if (frrNow.droppedL3Vnis.length > 0) {
    betweenSteps();
    await node.frr.releaseL3Vnis(frrNow.droppedL3Vnis);
  }
  const full = nodeDesiredState(node, intent, observed);
  const l3 = nodeDesiredState(node, intent, observed, 'l3-down');
  const fullScope = observeScopeOf(full);
  // The first step is verified in the full state's scope: that observation serves the last step
  // (FRR does not change the links, addresses, routes and sysctls the plan manages).
  let first = {
    ...planNetlink(beforeFrrState(full, l3, observed), observed, { prune, adopt }),
    scope: fullScope,
  };
  const inOneStep =
    frrNow.current &&
    !touchesL3Vni(
      first,
      l3,
      intent.frr.vrfs.map((v) => v.name),
    );

  // Nothing has changed yet: read FRR first and plan again.
  if (trusted && !inOneStep) return applyNodeSteps(node, intent, options, false);

  let afterFirst = observed;
  let firstOps = 0;
  let frr: FrrApplyResult = { changed: false, added: 0, removed: 0, reloadMs: 0 };
  let frrMs = 0;
  if (!inOneStep) {
    // L3 VNI devices that are up while zebra does not map their VRF go down until it does.
    // The mappings read with the running configuration, unless L3 VNIs were released since.
    const mapped =
      frrNow.mappedVnis !== undefined && frrNow.droppedL3Vnis.length === 0
        ? frrNow.mappedVnis
        : await node.frr.mappedVnis();
    const unmappedDown = downUnmappedL3Vnis(l3, intent.frr.vrfs, mapped);
    if (unmappedDown !== l3)
      first = {
        ...planNetlink(beforeFrrState(full, unmappedDown, observed), observed, { prune, adopt }),
        scope: fullScope,
      };
    betweenSteps();
    if (first.ops.length > 0) afterFirst = (await node.netlink.apply(first)).observed ?? observed;
    firstOps = first.ops.length;
    betweenSteps();
    const t1 = performance.now();
    frr = await node.frr.apply(frrConfig, frrNow);
    // New L3 VNI devices: zebra must map every L3 VNI to its VRF before the devices come up. A
    // reload that changed FRR has checked that mapping itself; otherwise it stands as it did.
    if (!frr.changed && first.ops.length > 0)
      await node.frr.waitForVniMapping(
        intent.frr.vrfs.map((v) => ({ vrf: v.name, vni: v.vni })),
        node.vniWaitTimeoutMs,
        options.signal,
      );
    frrMs = Math.round(performance.now() - t1);
  }

  const last = planNetlink(full, afterFirst, { prune, adopt });
  betweenSteps();
  // Also when empty: the apply clears a creation journal a killed predecessor left behind.
  await node.netlink.apply(last);
  if (trusted && !(await node.frr.inspect(frrConfig)).current) {
    betweenSteps();
    const again = await applyNodeSteps(node, intent, options, false);
    return { ...again, netlinkOps: again.netlinkOps + last.ops.length };
  }
  return {
    netlinkOps: firstOps + last.ops.length,
    frr,
    owned: countByKind(full),
    frrConfig,
    netlinkMs: Math.round(performance.now() - t0 - frrMs),
    frrMs,
    // A given hbr VRF is expected to stay; one the agent made only while the desired state has it.
    links: new Map<string, ExpectedLink>([
      ...(hbrVrfGiven(node, intent, observed) ? [[intent.frr.hbrVrf, {}] as const] : []),
      ...full.links.map((l) => [l.name, { up: l.up, master: l.master }] as const),
    ]),
    routeTables: new Set((full.routes ?? []).map((r) => String(r.table ?? MAIN_TABLE))),
  };
}

/** Links of a desired state by kind: what the agent owns once it is applied. */
export function countByKind(state: DesiredState): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const l of state.links) counts[l.kind] = (counts[l.kind] ?? 0) + 1;
  return counts;
}
