import type { NodeNetworkStatusSection } from '@fabrik/api';
import { setCondition } from '@fabrik/kube/labels';

// agent-netns rewrites its status file at least every statusHeartbeatSeconds (a fresh lastUpdate,
// also when nothing changed). A status older than the relay's netnsMaxAgeSeconds means agent-netns
// stopped (or hangs): its last word must not keep saying the node is ready.

/** The Node condition agent-netns's section carries (agent-netns status.ts READY_CONDITION). */
export const NETNS_CONDITION = 'FabrikNetnsReady';

/** True when `section` was written more than `maxAgeMs` before `now`. */
export const isStale = (section: NodeNetworkStatusSection, now: Date, maxAgeMs: number): boolean =>
  now.getTime() - Date.parse(section.lastUpdate) > maxAgeMs;

/**
 * The section to publish (pure): as agent-netns wrote it, or, when it is stale, with
 * FabrikNetnsReady False (reason NotReporting) naming how old it is.
 */
export function withNetnsLiveness(
  section: NodeNetworkStatusSection,
  now: Date,
  maxAgeMs: number,
): NodeNetworkStatusSection {
  if (!isStale(section, now, maxAgeMs)) return section;
  const seconds = Math.round((now.getTime() - Date.parse(section.lastUpdate)) / 1000);
  return {
    ...section,
    conditions: setCondition(
      section.conditions,
      {
        type: NETNS_CONDITION,
        status: 'False',
        reason: 'NotReporting',
        message: `agent-netns has not reported for ${seconds} s (its status was last written at ${section.lastUpdate}; the limit is ${Math.round(maxAgeMs / 1000)} s): it has stopped or hangs`,
      },
      now,
    ).conditions,
  };
}
