import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { EXIT, startEndpoints, type Logger } from '@fabrik/agent-runtime';
import type { OperatorConfig } from './config.js';
import { startController, type Controller } from './controller.js';
import { acquireLease } from './lease.js';
import { createOperatorMetrics } from './metrics.js';

// `fabrik-operator run`: wait for the Lease, then run the controller until SIGTERM/SIGINT or until
// the Lease is lost (the process exits 1 and is restarted: a replica that lost the Lease must not
// keep writing). What was written stays: the agents keep their configuration.
// /readyz: a standby replica (waiting for the Lease) is ready, so a rolling update of the
// Deployment can proceed; the active one once its informers synced and its last pass succeeded.
// /healthz: the Lease is held or being waited for (a lost Lease ends the process anyway).

export async function runOperator(kc: KubeConfig, config: OperatorConfig, logger: Logger): Promise<number> {
  const identity = process.env.POD_NAME || hostname();
  const shutdown = new AbortController();
  const onSignal = (signal: string) => {
    logger.info({ signal }, 'stopping');
    shutdown.abort();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  const metrics = createOperatorMetrics();
  let controller: Controller | undefined;
  const endpoints = await startEndpoints({
    metricsAddress: config.metricsAddress,
    healthAddress: config.healthAddress,
    registry: metrics.registry,
    healthChecks: {},
    readiness: () => {
      if (controller === undefined) return { ready: true, reasons: [] };
      const reasons = [
        ...(controller.hasSynced() ? [] : ['informers not synced']),
        ...(controller.lastError() === undefined
          ? []
          : [`last pass failed: ${String(controller.lastError())}`]),
      ];
      return { ready: reasons.length === 0, reasons };
    },
  });
  try {
    let lease;
    try {
      lease = await acquireLease({ kc, ...config.lease, identity, logger, signal: shutdown.signal });
    } catch {
      return EXIT.ok; // stopped before it was ever active
    }
    metrics.leader.set(1);
    controller = startController({ kc, config, logger, instance: identity, metrics });
    const stopped = new Promise<'stopped'>((done) =>
      shutdown.signal.addEventListener('abort', () => done('stopped')),
    );
    const end = await Promise.race([stopped, lease.lost.then(() => 'lost' as const)]);
    await controller.stop();
    metrics.leader.set(0);
    await lease.release();
    return end === 'lost' ? EXIT.failure : EXIT.ok;
  } finally {
    await endpoints.close();
  }
}
