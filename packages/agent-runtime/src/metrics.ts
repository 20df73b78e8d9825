import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * An agent's Prometheus metrics, in a registry of its own (nothing global: a library must not
 * register metrics on import). Names follow Prometheus' rules: `<prefix>_...`, base units in the
 * name, `_total` on counters.
 */
export interface AgentMetrics {
  readonly registry: Registry;
  /** `fabrik_agent_netns` */
  readonly prefix: string;
  /** `<prefix>_reconcile_duration_seconds{result}` */
  readonly reconcileDuration: Histogram<'result'>;
  /** `<prefix>_reconciles_total{result}` */
  readonly reconcilesTotal: Counter<'result'>;
  /** `<prefix>_workqueue_depth`: reconciles waiting. */
  readonly queueDepth: Gauge;
  /** `<prefix>_reconcile_active`: 1 while a reconcile runs (an agent has one worker). */
  readonly reconcileActive: Gauge;
  /** A gauge `<prefix>_<name>` in this registry (for the agent's own metrics). */
  gauge<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
  /** A counter `<prefix>_<name>` (the name should end in `_total`). */
  counter<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  /** A histogram `<prefix>_<name>` (the name should end in the unit, `_seconds`). */
  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    buckets?: readonly number[],
  ): Histogram<L>;
}

/** Seconds: from a reconcile that finds nothing to do (milliseconds) to a full FRR reload (seconds). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/**
 * How often the event loop lag is sampled. prom-client's default (10 ms) wakes an idle agent 100
 * times a second, which in the lab's User-Mode Linux kernel (every syscall costly) was most of an
 * idle agent's CPU; a loop blocked for longer than this still shows in the lag metrics.
 */
const EVENT_LOOP_SAMPLE_MS = 1000;

export interface AgentMetricsOptions {
  /** Metric name prefix: `fabrik_agent_netns`. */
  readonly prefix: string;
  /** Process metrics (CPU, memory, file descriptors, event loop lag) as `<prefix>_process_...`. Default: true. */
  readonly processMetrics?: boolean;
}

export function createAgentMetrics(options: AgentMetricsOptions): AgentMetrics {
  const { prefix } = options;
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(prefix)) throw new TypeError(`invalid metric prefix ${prefix}`);
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics ?? true)
    collectDefaultMetrics({
      register: registry,
      prefix: `${prefix}_`,
      eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
    });
  const metrics: AgentMetrics = {
    registry,
    prefix,
    reconcileDuration: new Histogram({
      name: `${prefix}_reconcile_duration_seconds`,
      help: 'Time of one reconcile: read intent, plan, apply, observe, report.',
      labelNames: ['result'],
      buckets: [...DURATION_BUCKETS],
      registers,
    }),
    reconcilesTotal: new Counter({
      name: `${prefix}_reconciles_total`,
      help: 'Reconciles by result: success, invalid (some objects refused, the rest applied), error (retried).',
      labelNames: ['result'],
      registers,
    }),
    queueDepth: new Gauge({
      name: `${prefix}_workqueue_depth`,
      help: 'Reconcile requests waiting for the worker.',
      registers,
    }),
    reconcileActive: new Gauge({
      name: `${prefix}_reconcile_active`,
      help: 'Reconciles running now (0 or 1: one worker per agent). With workqueue_depth 0 as well, the agent is idle.',
      registers,
    }),
    gauge: (name, help, labelNames = []) =>
      new Gauge({ name: `${prefix}_${name}`, help, labelNames: [...labelNames], registers }),
    counter: (name, help, labelNames = []) =>
      new Counter({ name: `${prefix}_${name}`, help, labelNames: [...labelNames], registers }),
    histogram: (name, help, labelNames = [], buckets = DURATION_BUCKETS) =>
      new Histogram({
        name: `${prefix}_${name}`,
        help,
        labelNames: [...labelNames],
        buckets: [...buckets],
        registers,
      }),
  };
  return metrics;
}
