import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS } from '@fabrik/agent-runtime';

// fabrik-operator's Prometheus metrics (base units in the names, `_total` on counters).

export interface OperatorMetrics {
  readonly registry: Registry;
  readonly passes: Counter<'result'>;
  readonly passSeconds: Histogram;
  readonly writes: Counter<'verb'>;
  readonly nodes: Gauge;
  readonly identityProblems: Gauge;
  readonly leader: Gauge;
}

export function createOperatorMetrics(registry = new Registry()): OperatorMetrics {
  const registers = [registry];
  return {
    registry,
    passes: new Counter({
      name: 'fabrik_operator_passes_total',
      help: 'Passes over every node, by result (success, error).',
      labelNames: ['result'],
      registers,
    }),
    passSeconds: new Histogram({
      name: 'fabrik_operator_pass_duration_seconds',
      help: 'Time of a pass: render every node and write what differs.',
      buckets: [...DURATION_BUCKETS],
      registers,
    }),
    writes: new Counter({
      name: 'fabrik_operator_writes_total',
      help: 'Writes to NodeNetworkConfigs, by verb (apply, status, delete).',
      labelNames: ['verb'],
      registers,
    }),
    nodes: new Gauge({ name: 'fabrik_operator_nodes', help: 'Nodes rendered in the last pass.', registers }),
    identityProblems: new Gauge({
      name: 'fabrik_operator_identity_problems',
      help: 'Identity problems (exhausted pool, duplicate or conflicting annotation) in the last pass.',
      registers,
    }),
    leader: new Gauge({
      name: 'fabrik_operator_leader',
      help: '1 while this replica holds the Lease.',
      registers,
    }),
  };
}
