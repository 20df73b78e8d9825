import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import type { Logger } from '@fabrik/agent-runtime';
import {
  ObjectMeta,
  customObjects,
  isAlreadyExistsError,
  isConflictError,
  isNotFoundError,
  sleep,
} from '@fabrik/kube';

// One active replica: a coordination.k8s.io/v1 Lease, as client-go's leader election holds it.
// A replica takes the Lease when nobody holds it or its holder stopped renewing for
// leaseDurationSeconds, renews it every third of that, and stops working when a renewal has not
// succeeded within the duration (another replica may hold it by then).

const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' } as const;

const Lease = z.looseObject({
  metadata: ObjectMeta,
  spec: z
    .looseObject({
      holderIdentity: z.string().nullable().optional(),
      leaseDurationSeconds: z.number().nullable().optional(),
      renewTime: z.string().nullable().optional(),
      leaseTransitions: z.number().nullable().optional(),
    })
    .optional(),
});
type Lease = z.infer<typeof Lease>;

/** What a replica does with the Lease as it is now (pure). */
export type LeaseDecision = 'take' | 'renew' | 'wait';

export function leaseDecision(lease: Lease | undefined, identity: string, now: Date): LeaseDecision {
  const holder = lease?.spec?.holderIdentity ?? '';
  if (holder === identity) return 'renew';
  if (holder === '') return 'take';
  const renewed = Date.parse(lease?.spec?.renewTime ?? '');
  const durationMs = (lease?.spec?.leaseDurationSeconds ?? 0) * 1000;
  return Number.isNaN(renewed) || renewed + durationMs < now.getTime() ? 'take' : 'wait';
}

/** A MicroTime: RFC 3339 with microseconds, as the API server stores Lease times. */
const microTime = (at: Date): string => at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export interface LeaseOptions {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  /** This replica (its Pod name). */
  readonly identity: string;
  readonly durationSeconds: number;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

export interface HeldLease {
  /** Resolves when the Lease is lost (a renewal did not succeed within the duration). */
  readonly lost: Promise<void>;
  /** Stops renewing and hands the Lease back (another replica takes it at once). */
  release(): Promise<void>;
}

/** Waits until this replica holds the Lease (rejects when `signal` aborts first). */
export async function acquireLease(options: LeaseOptions): Promise<HeldLease> {
  const leases = customObjects(options.kc, LEASES, Lease);
  const { namespace, name, identity, durationSeconds, logger, signal } = options;
  const retryMs = (durationSeconds * 1000) / 5;

  /** One attempt to take or renew; true when this replica holds the Lease afterwards. */
  async function attempt(): Promise<boolean> {
    const now = new Date();
    let lease: Lease | undefined;
    try {
      lease = await leases.get(name, namespace);
    } catch (error) {
      if (!isNotFoundError(error)) throw error;
    }
    const decision = leaseDecision(lease, identity, now);
    if (decision === 'wait') return false;
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: microTime(now),
      ...(decision === 'take' && {
        acquireTime: microTime(now),
        leaseTransitions: (lease?.spec?.leaseTransitions ?? -1) + 1,
      }),
    };
    try {
      if (lease === undefined)
        await leases.create({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name, namespace },
          spec,
        });
      else await leases.replace({ ...lease, metadata: lease.metadata, spec: { ...lease.spec, ...spec } });
      if (decision === 'take') logger.info({ lease: `${namespace}/${name}`, identity }, 'lease taken');
      return true;
    } catch (error) {
      if (isConflictError(error) || isAlreadyExistsError(error)) return false;
      throw error;
    }
  }

  const tryOnce = async (): Promise<boolean> => {
    try {
      return await attempt();
    } catch (error) {
      logger.warn({ err: error, lease: `${namespace}/${name}` }, 'lease request failed');
      return false;
    }
  };

  while (!(await tryOnce())) {
    signal.throwIfAborted();
    await sleep(retryMs, signal);
  }

  const stopRenewing = new AbortController();
  const lost = (async () => {
    let renewed = Date.now();
    while (!stopRenewing.signal.aborted) {
      await sleep((durationSeconds * 1000) / 3, stopRenewing.signal).catch(() => undefined);
      if (stopRenewing.signal.aborted) return;
      if (await tryOnce()) renewed = Date.now();
      else if (Date.now() - renewed > durationSeconds * 1000) {
        logger.error({ lease: `${namespace}/${name}` }, 'lease lost');
        return;
      }
    }
  })();
  return {
    lost,
    release: async () => {
      stopRenewing.abort();
      await lost;
      try {
        const lease = await leases.get(name, namespace);
        if (lease.spec?.holderIdentity === identity)
          await leases.replace({ ...lease, spec: { ...lease.spec, holderIdentity: null, renewTime: null } });
      } catch (error) {
        logger.warn({ err: error }, 'lease not handed back');
      }
    },
  };
}
