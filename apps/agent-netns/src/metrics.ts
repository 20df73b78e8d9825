import type { AgentMetrics } from '@fabrik/agent-runtime';
import type { Counter, Gauge, Histogram } from 'prom-client';

/** The kinds of links agent-netns creates (reported even at 0). */
export const OWNED_KINDS = ['vrf', 'bridge', 'vxlan', 'vlan', 'veth'] as const;

/** agent-netns's own metrics, besides the runtime's reconcile metrics. */
export interface NetnsMetrics {
  /** `fabrik_agent_netns_frr_reload_duration_seconds`: frr-reload.py runs (skipped ones are not counted). */
  readonly frrReloadDuration: Histogram;
  /** `fabrik_agent_netns_owned_objects{kind}`: links the agent owns. */
  readonly ownedObjects: Gauge<'kind'>;
  /** `fabrik_agent_netns_bgp_sessions{state}`: BGP sessions (neighbour and VRF) by state. */
  readonly bgpSessions: Gauge<'state'>;
  /** `fabrik_agent_netns_objects_skipped`: VRFs and Layer2Networks refused (invalid or conflicting). */
  readonly objectsSkipped: Gauge;
  /** `fabrik_agent_netns_restores_total`: applies that failed and restored the last good state. */
  readonly restoresTotal: Counter;
}

export function createNetnsMetrics(base: AgentMetrics): NetnsMetrics {
  return {
    frrReloadDuration: base.histogram(
      'frr_reload_duration_seconds',
      'Time of frr-reload.py applying a changed configuration.',
    ),
    ownedObjects: base.gauge('owned_objects', 'Links agent-netns owns, by kind.', ['kind']),
    bgpSessions: base.gauge('bgp_sessions', 'BGP sessions (neighbour in a VRF) by state.', ['state']),
    objectsSkipped: base.gauge(
      'objects_skipped',
      'VRFs and Layer2Networks skipped as invalid or conflicting.',
    ),
    restoresTotal: base.counter(
      'restores_total',
      'Failed applies after which the last good state was restored.',
    ),
  };
}
