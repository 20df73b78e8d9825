import type { FrrIntent } from '@fabrik/api';
import { renderFrrConfig } from '@fabrik/frr';
import {
  isOwnedBy,
  plan as planNetlink,
  type DesiredState,
  type Netlink,
  type ObservedState,
} from '@fabrik/netcore/netlink';
import type { FrrApplyResult, FrrState } from './frr-state.js';
import { hbrDesiredState, type Layer2Kernel } from './hbr-state.js';
import { beforeFrrState } from './phases.js';

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
  /** Names of the links the node now holds for this agent (owned, and a given hbr VRF). */
  readonly links: readonly string[];
}

/** The node's complete netlink state for `intent`, given what the namespace holds (pure). */
export function nodeDesiredState(
  node: Pick<HbrNode, 'owner' | 'trunk'>,
  intent: NodeIntent,
  observed: ObservedState,
  phase: 'full' | 'l3-down' = 'full',
): DesiredState {
  const hbr = observed.links.find((l) => l.spec.name === intent.frr.hbrVrf);
  return hbrDesiredState(intent.frr, {
    owner: node.owner,
    trunk: node.trunk,
    layer2: intent.layer2,
    hbrVrfGiven: hbr !== undefined && !isOwnedBy(hbr.alias, node.owner),
    phase,
  });
}

/** The FRR configuration of `intent` (pure). */
export const nodeFrrConfig = (node: Pick<HbrNode, 'hostname'>, intent: NodeIntent): string =>
  renderFrrConfig(intent.frr, { hostname: node.hostname });

/**
 * Applies `intent` in the order EVPN needs (learnt upstream): links that go away are deleted and
 * new VRFs and L3 VNI devices created down; FRR is reloaded; zebra's VRF-to-VNI mapping is awaited
 * (bounded); then everything comes up and the L2 networks follow. Each step is idempotent and
 * computed from what the kernel and FRR show, so a process killed at any point converges when it
 * runs again. `prune: false` deletes no link or route (the last good state at start, before the
 * source has answered).
 */
export async function applyNode(
  node: HbrNode,
  intent: NodeIntent,
  options: { readonly prune?: boolean } = {},
): Promise<ApplyReport> {
  const prune = options.prune ?? true;
  // Links and addresses, and the sysctls the L3 devices carry; routes wait for the full state.
  const probe = nodeDesiredState(node, intent, {
    links: [],
    routes: undefined,
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  });
  const observed = await node.netlink.observe({
    sysctlsOf: probe.links.filter((l) => l.sysctls !== undefined).map((l) => l.name),
  });
  const full = nodeDesiredState(node, intent, observed);
  const l3 = nodeDesiredState(node, intent, observed, 'l3-down');
  const first = planNetlink(beforeFrrState(full, l3, observed), observed, { prune });
  if (first.ops.length > 0) await node.netlink.apply(first);

  const frrConfig = nodeFrrConfig(node, intent);
  const frr = await node.frr.apply(frrConfig);
  await node.frr.waitForVniMapping(
    intent.frr.vrfs.map((v) => ({ vrf: v.name, vni: v.vni })),
    node.vniWaitTimeoutMs,
  );

  const last = await node.netlink.reconcile(full, { prune });
  return {
    netlinkOps: first.ops.length + last.plan.ops.length,
    frr,
    owned: countByKind(full),
    frrConfig,
    links: [...full.links.map((l) => l.name), intent.frr.hbrVrf],
  };
}

/** Links of a desired state by kind: what the agent owns once it is applied. */
export function countByKind(state: DesiredState): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const l of state.links) counts[l.kind] = (counts[l.kind] ?? 0) + 1;
  return counts;
}
