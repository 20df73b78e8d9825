import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { EXIT, type Logger } from '@fabrik/agent-runtime';
import type { OperatorConfig } from './config.js';
import { startController } from './controller.js';
import { acquireLease } from './lease.js';

// `fabrik-operator run`: wait for the Lease, then run the controller until SIGTERM/SIGINT or until
// the Lease is lost (the process exits 1 and is restarted: a replica that lost the Lease must not
// keep writing). What was written stays: the agents keep their configuration.

export async function runOperator(kc: KubeConfig, config: OperatorConfig, logger: Logger): Promise<number> {
  const identity = process.env.POD_NAME || hostname();
  const shutdown = new AbortController();
  const onSignal = (signal: string) => {
    logger.info({ signal }, 'stopping');
    shutdown.abort();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  let lease;
  try {
    lease = await acquireLease({
      kc,
      ...config.lease,
      identity,
      logger,
      signal: shutdown.signal,
    });
  } catch {
    return EXIT.ok; // stopped before it was ever active
  }
  const controller = startController({ kc, config, logger, instance: identity });
  const stopped = new Promise<'stopped'>((done) =>
    shutdown.signal.addEventListener('abort', () => done('stopped')),
  );
  const end = await Promise.race([stopped, lease.lost.then(() => 'lost' as const)]);
  await controller.stop();
  await lease.release();
  return end === 'lost' ? EXIT.failure : EXIT.ok;
}
