import type { NodeNetworkStatusSection } from '@fabrik/api';
import type { FrrStatus } from '@fabrik/frr';
import { formatKubeTime, setCondition } from '@fabrik/kube/labels';
import type { NodeDesired } from './desired.js';
import { generationsOf } from './node-objects.js';

/** The Node condition agent-netns reports (through its section of NodeNetworkStatus). */
export const READY_CONDITION = 'FabrikNetnsReady';

export interface StatusInput {
  /** What the agent wanted; undefined before its first reconcile. */
  readonly desired: NodeDesired | undefined;
  /** Why the last apply failed as a whole (the last good state was restored, or not); undefined when it converged. */
  readonly failure?: string;
  readonly frr?: FrrStatus;
  /** Links owned by kind. */
  readonly owned?: Readonly<Record<string, number>>;
  /** The section as last written (for lastTransitionTime). */
  readonly previous?: NodeNetworkStatusSection;
  readonly now: Date;
}

/**
 * The `netns` section of NodeNetworkStatus (pure):
 * - `invalid`: the last apply failed; `errorMessage` says why (the last good state was restored);
 * - `degraded`: applied, but objects were skipped, failed on their own or kept at their last applied
 *   version (`objectErrors`, each naming the object and, where one is at fault, its field) or the
 *   source had documents it could not read;
 * - `provisioned`: everything applied and converged;
 * - `provisioning`: nothing reconciled yet.
 * Condition `FabrikNetnsReady`: True once applied (provisioned or degraded), False after a failed
 * apply, Unknown before the first one; lastTransitionTime moves only when its status does.
 */
export function statusSection(input: StatusInput): NodeNetworkStatusSection {
  const { desired, failure } = input;
  const problems = desired?.sourceProblems ?? [];
  const objectErrors = desired?.objectErrors ?? [];
  const configStatus =
    desired === undefined
      ? 'provisioning'
      : failure !== undefined
        ? 'invalid'
        : objectErrors.length > 0 || problems.length > 0
          ? 'degraded'
          : 'provisioned';
  const condition =
    configStatus === 'provisioning'
      ? { status: 'Unknown' as const, reason: 'Provisioning', message: 'no reconcile has finished yet' }
      : configStatus === 'invalid'
        ? { status: 'False' as const, reason: 'ApplyFailed', message: failure ?? '' }
        : configStatus === 'degraded'
          ? {
              status: 'True' as const,
              reason: 'Degraded',
              message: `${objectErrors.length + problems.length} object(s) not applied as they are: ${[
                ...objectErrors.map((e) => `${e.kind} ${e.name}${e.field ? ` (${e.field})` : ''}`),
                ...problems.map((p) => p.where),
              ].join(', ')}`.slice(0, 1024),
            }
          : {
              status: 'True' as const,
              reason: 'Provisioned',
              message: 'every VRF and Layer2Network of this node is applied',
            };
  const errorMessage = [
    ...(failure !== undefined ? [failure] : []),
    ...problems.map((p) => `${p.where}: ${p.message}`),
  ].join('\n');
  return {
    configStatus,
    ...(desired
      ? {
          appliedGenerations: generationsOf(desired.objects),
        }
      : {}),
    ...(errorMessage ? { errorMessage: errorMessage.slice(0, 32_768) } : {}),
    ...(objectErrors.length > 0 ? { objectErrors: objectErrors.slice(0, 1024) } : {}),
    ...(desired && desired.objectWarnings.length > 0
      ? { objectWarnings: desired.objectWarnings.slice(0, 1024) }
      : {}),
    ...(input.frr ? { frr: frrSummary(input.frr) } : {}),
    ...(input.owned ? { ownedObjects: { ...input.owned } } : {}),
    lastUpdate: formatKubeTime(input.now),
    conditions: setCondition(input.previous?.conditions, { type: READY_CONDITION, ...condition }, input.now)
      .conditions,
  };
}

/** BGP sessions (a neighbour in a VRF, whatever its address families) up and in total, and VNIs. */
export function frrSummary(frr: FrrStatus): {
  bgpSessionsUp: number;
  bgpSessionsTotal: number;
  vnis: number;
} {
  const sessions = bgpSessionStates(frr);
  return {
    bgpSessionsUp: [...sessions.values()].filter((s) => s === 'Established').length,
    bgpSessionsTotal: sessions.size,
    vnis: frr.evpnVnis.length,
  };
}

/** One state per BGP session (`vrf neighbor`): Established when any address family is. */
export function bgpSessionStates(frr: FrrStatus): Map<string, string> {
  const states = new Map<string, string>();
  for (const s of frr.bgpSessions) {
    const key = `${s.vrf} ${s.neighbor}`;
    if (states.get(key) !== 'Established') states.set(key, s.state);
  }
  return states;
}
