import { formatKubeTime, setCondition, type Condition } from '@fabrik/kube';
import type { ConfigStatus, NodeNetworkStatusSection, ObjectError } from '@fabrik/api';

// What one reconcile found, as the `host` section of NodeNetworkStatus and its condition (pure).

/** The Node condition agent-host owns (also in the section). */
export const HOST_CONDITION = 'FabrikHostReady';

export interface HostOutcome {
  /** Why the reconcile failed (it is retried); undefined when it ran through. */
  readonly error?: string;
  /** Layer2Networks this agent skipped, naming the field. */
  readonly objectErrors: readonly ObjectError[];
  /** Infrastructure it could not set up: a foreign bridge with a wanted name, an interface OVS cannot open, ... */
  readonly problems: readonly string[];
  /** `tr.<vid>` in place, by Layer2Network name -> generation. */
  readonly layer2Networks: Readonly<Record<string, number>>;
  readonly owned: { readonly ovsBridge: number; readonly ovsPort: number; readonly vlan: number };
}

export interface HostSectionResult {
  readonly section: NodeNetworkStatusSection;
  /** The condition's status changed (an Event is due). */
  readonly transitioned: boolean;
  readonly condition: Condition;
}

const MAX_OBJECT_ERRORS = 1024;
const MAX_MESSAGE = 32_000;

export function hostSection(
  outcome: HostOutcome,
  previous: readonly Condition[] | undefined,
  now: Date,
): HostSectionResult {
  const configStatus: ConfigStatus =
    outcome.error !== undefined || outcome.problems.length > 0 || outcome.objectErrors.length > 0
      ? 'degraded'
      : 'provisioned';
  const vlans = Object.keys(outcome.layer2Networks).length;
  const summary = `${outcome.owned.ovsBridge} OVS bridge(s), ${vlans} trunk VLAN(s)`;
  const cond =
    outcome.error !== undefined
      ? { status: 'False' as const, reason: 'ApplyFailed', message: outcome.error }
      : outcome.problems.length > 0
        ? { status: 'False' as const, reason: 'Degraded', message: outcome.problems.join('; ') }
        : outcome.objectErrors.length > 0
          ? {
              status: 'True' as const,
              reason: 'ObjectsSkipped',
              message: `${summary}; ${outcome.objectErrors.length} object(s) skipped (see objectErrors)`,
            }
          : { status: 'True' as const, reason: 'Provisioned', message: summary };
  const set = setCondition(
    previous,
    { type: HOST_CONDITION, ...cond, message: cond.message.slice(0, MAX_MESSAGE) },
    now,
  );
  const errorMessage = [outcome.error, ...outcome.problems].filter((m) => m !== undefined).join('; ');
  const section: NodeNetworkStatusSection = {
    configStatus,
    appliedGenerations: { layer2Networks: { ...outcome.layer2Networks } },
    ...(errorMessage ? { errorMessage: errorMessage.slice(0, MAX_MESSAGE) } : {}),
    ...(outcome.objectErrors.length > 0
      ? { objectErrors: outcome.objectErrors.slice(0, MAX_OBJECT_ERRORS).map((e) => ({ ...e })) }
      : {}),
    ownedObjects: { ...outcome.owned },
    lastUpdate: formatKubeTime(now),
    conditions: set.conditions.map((c) => ({ ...c })),
  };
  return {
    section,
    transitioned: set.transitioned,
    condition: set.conditions.find((c) => c.type === HOST_CONDITION)!,
  };
}
