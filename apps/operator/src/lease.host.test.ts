// The Lease against the real kube-apiserver: one replica holds it, the other waits, and takes it when
// it is handed back. Asserted on the Lease object. The replicas use fabrik-operator's ServiceAccount
// token with deploy/operator/rbac.yaml's grants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '@fabrik/agent-runtime';
import { ObjectMeta, customObjects } from '@fabrik/kube';
import { until, type KubeApiServer } from '@fabrik/testkit';
import { startOperatorServer } from '../test/operator-server.js';
import { acquireLease, type HeldLease } from './lease.js';

const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };
const Lease = z.looseObject({
  metadata: ObjectMeta,
  spec: z.looseObject({ holderIdentity: z.string().nullable().optional() }).optional(),
});
const logger = createLogger({ name: 'fabrik-operator', level: 'silent' });

let server: KubeApiServer;
let kc: KubeConfig;
let operatorKc: KubeConfig;
beforeAll(async () => {
  ({ server, kc, operatorKc } = await startOperatorServer({ crdDirs: [] }));
}, 120_000);
afterAll(() => server?.destroy());

const holder = async () =>
  (await customObjects(kc, LEASES, Lease).get('fabrik-operator', 'fabrik-system')).spec?.holderIdentity ?? '';

describe('acquireLease', () => {
  it('lets one replica hold the Lease; the other takes it when it is handed back', async () => {
    const stop = new AbortController();
    const options = {
      kc: operatorKc,
      namespace: 'fabrik-system',
      name: 'fabrik-operator',
      durationSeconds: 2,
      logger,
      signal: stop.signal,
    };
    const a = await acquireLease({ ...options, identity: 'replica-a' });
    expect(await holder()).toBe('replica-a');
    let b: HeldLease | undefined;
    const waiting = acquireLease({ ...options, identity: 'replica-b' }).then((held) => (b = held));
    await new Promise((r) => setTimeout(r, 3000)); // longer than the duration: a renews, b waits
    expect(b).toBeUndefined();
    expect(await holder()).toBe('replica-a');
    await a.release();
    await waiting;
    expect(await holder()).toBe('replica-b');
    await b!.release();
    await until('the Lease handed back', async () => (await holder()) === '');
  }, 30_000);
});
