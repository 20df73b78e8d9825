// The allocator against the test API server (real resourceVersions, 409s, the IPPool CRD with its
// schema and CEL rules from deploy/crds): concurrency, rollback across pools, idempotence, GC.
import { IpPool, type IpPoolSpec, type PodOwner } from '@fabrik/api';
import { customObjects, isUnreachableError, loadKubeConfig, type CustomObjects } from '@fabrik/kube';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddress } from './address.js';
import {
  IPPOOLS,
  allocate,
  collectGarbage,
  findAllocations,
  ipPoolClient,
  release,
  type IpPoolClient,
} from './allocator.js';
import {
  isAddressUnavailableError,
  isPoolExhaustedError,
  isPoolNotFoundError,
  isPoolSetError,
} from './errors.js';
import { poolSpace } from './pool-space.js';

let server: KubeApiServer;
let pools: CustomObjects<IpPool>;
let client: IpPoolClient;

beforeAll(async () => {
  server = await startKubeApiServer();
  const { kc } = loadKubeConfig({ kubeconfig: server.kubeconfigPath });
  pools = customObjects(kc, IPPOOLS, IpPool);
  client = ipPoolClient(kc);
});
afterAll(() => server?.destroy());

async function createPool(name: string, spec: IpPoolSpec): Promise<void> {
  await pools.create({ apiVersion: 'network.fabrik.dev/v1alpha1', kind: 'IPPool', metadata: { name }, spec });
}

/** A client of its own (its own KubeConfig and connections), as another node's plugin would be. */
function otherClient(): IpPoolClient {
  return ipPoolClient(loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc);
}

const owner = (i: number, ifName = 'net1', network = 'net-a'): PodOwner => ({
  name: `pod-${i}`,
  namespace: 'default',
  containerID: `c${i}`,
  ifName,
  network,
});

/** The pool's status as stored, checked for consistency: unique addresses, usage right. */
async function storedStatus(name: string) {
  const pool = await pools.get(name);
  const entries = pool.status?.ipAddresses ?? [];
  const values = entries.map((e) => parseAddress(e.ipAddress).value);
  expect(new Set(values).size).toBe(values.length);
  if (pool.status?.usage)
    expect(pool.status.usage).toEqual({ total: Number(poolSpace(pool.spec).size), used: entries.length });
  return { entries, usage: pool.status?.usage };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('allocate', () => {
  it('20 concurrent allocations from 20 clients: 20 distinct addresses, status and usage consistent; 20 releases empty it', async () => {
    await createPool('concurrent', {
      ipRanges: [{ cidr: '10.50.0.0/24' }],
      subnetInfo: { gateway: '10.50.0.1', prefixLength: 24, vlan: 100 },
    });
    const results = await Promise.all(
      range(20).map((i) => allocate(otherClient(), { pools: ['concurrent'], owner: owner(i) })),
    );
    const addresses = results.map((r) => r[0]?.address);
    expect(new Set(addresses).size).toBe(20);
    expect(results.every((r) => r[0]?.created && r[0].vlan === 100 && r[0].prefixLength === 24)).toBe(true);
    const { entries, usage } = await storedStatus('concurrent');
    expect(usage).toEqual({ total: 253, used: 20 });
    expect(new Map(entries.map((e) => [e.owner.pod?.containerID, e.ipAddress]))).toEqual(
      new Map(range(20).map((i) => [`c${i}`, addresses[i]])),
    );
    // First free addresses: exactly .2 to .21.
    expect([...addresses].sort()).toEqual(
      range(20)
        .map((i) => `10.50.0.${i + 2}`)
        .sort(),
    );

    await Promise.all(
      range(20).map((i) => release(otherClient(), { pools: ['concurrent'], attachment: owner(i) })),
    );
    expect(await storedStatus('concurrent')).toEqual({ entries: [], usage: { total: 253, used: 0 } });
  });

  it('a repeated allocation returns the same address and writes nothing', async () => {
    await createPool('repeat', {
      ipRanges: [{ start: '10.51.0.10', end: '10.51.0.20' }],
      subnetInfo: { gateway: '10.51.0.1', prefixLength: 24 },
    });
    const [first] = await allocate(client, { pools: ['repeat'], owner: owner(1) });
    const version = (await pools.get('repeat')).metadata.resourceVersion;
    const [again] = await allocate(client, { pools: ['repeat'], owner: owner(1) });
    expect(again).toEqual({ ...first, created: false });
    expect((await pools.get('repeat')).metadata.resourceVersion).toBe(version);
    expect(await findAllocations(client, ['repeat', 'missing'], owner(1))).toEqual([again, undefined]);
  });

  it('one address per family pool; an exhausted pool fails the call and the other pool keeps nothing', async () => {
    await createPool('dual-v4', {
      ipRanges: [{ cidr: '10.52.0.0/24' }],
      subnetInfo: { gateway: '10.52.0.1', prefixLength: 24, vlan: 200 },
    });
    await createPool('dual-v6', {
      ipRanges: [{ start: '2001:db8:52::10', end: '2001:db8:52::11' }],
      subnetInfo: { gateway: '2001:db8:52::1', prefixLength: 64 },
    });
    const both = await Promise.all(
      [1, 2].map((i) => allocate(otherClient(), { pools: ['dual-v4', 'dual-v6'], owner: owner(i) })),
    );
    expect(both.flat().map((a) => [a.family, a.vlan])).toEqual([
      [4, 200],
      [6, undefined],
      [4, 200],
      [6, undefined],
    ]);
    const error = await allocate(client, { pools: ['dual-v4', 'dual-v6'], owner: owner(3) }).catch(
      (e: unknown) => e,
    );
    expect(isPoolExhaustedError(error)).toBe(true);
    expect((error as Error).message).toBe('IPPool dual-v6 is exhausted: all 2 of its addresses are in use');
    // The two allocations race, so either may hold the lower address; the status lists by address.
    const v4Owners = (await storedStatus('dual-v4')).entries.map((e) => e.owner.pod?.containerID);
    expect(v4Owners.sort()).toEqual(['c1', 'c2']);
    expect((await storedStatus('dual-v6')).usage).toEqual({ total: 2, used: 2 });
  });

  it('refuses a missing pool, two pools of one family, and pools on different VLANs, taking nothing', async () => {
    await createPool('set-a', {
      ipRanges: [{ cidr: '10.53.0.0/24' }],
      subnetInfo: { gateway: '10.53.0.1', prefixLength: 24, vlan: 1 },
    });
    await createPool('set-b', {
      ipRanges: [{ cidr: '10.54.0.0/24' }],
      subnetInfo: { gateway: '10.54.0.1', prefixLength: 24 },
    });
    await createPool('set-c', {
      ipRanges: [{ cidr: '2001:db8:53::/64' }],
      subnetInfo: { gateway: '2001:db8:53::1', prefixLength: 64, vlan: 2 },
    });
    const missing = await allocate(client, { pools: ['set-a', 'nope'], owner: owner(1) }).catch(
      (e: unknown) => e,
    );
    expect(isPoolNotFoundError(missing) && missing.pool).toBe('nope');
    const family = await allocate(client, { pools: ['set-a', 'set-b'], owner: owner(1) }).catch(
      (e: unknown) => e,
    );
    expect(isPoolSetError(family) && family.index).toBe(1);
    expect((family as Error).message).toContain('set-a and set-b are both IPv4');
    const vlan = await allocate(client, { pools: ['set-a', 'set-c'], owner: owner(1) }).catch(
      (e: unknown) => e,
    );
    expect(isPoolSetError(vlan) && vlan.message).toContain('different VLANs');
    for (const name of ['set-a', 'set-b', 'set-c']) expect((await pools.get(name)).status).toBeUndefined();
  });

  it('gives a requested address from the pool of its family, or names why not', async () => {
    await createPool('static', {
      ipRanges: [{ cidr: '10.55.0.0/24' }],
      subnetInfo: { gateway: '10.55.0.1', prefixLength: 24 },
    });
    const [a] = await allocate(client, { pools: ['static'], owner: owner(1), requested: ['10.55.0.77'] });
    expect(a?.address).toBe('10.55.0.77');
    const taken = await allocate(client, {
      pools: ['static'],
      owner: owner(2),
      requested: ['10.55.0.77'],
    }).catch((e: unknown) => e);
    expect(isAddressUnavailableError(taken) && taken.message).toBe(
      'address 10.55.0.77 is unavailable from IPPool static: it is allocated to another attachment',
    );
    const v6 = await allocate(client, {
      pools: ['static'],
      owner: owner(2),
      requested: ['2001:db8::9'],
    }).catch((e: unknown) => e);
    expect(isAddressUnavailableError(v6) && v6.message).toContain('no IPPool of the request is IPv6');
    expect((await storedStatus('static')).entries).toHaveLength(1);
  });
});

describe('release and collectGarbage', () => {
  it('release is idempotent: a missing pool or entry is success', async () => {
    await createPool('rel', {
      ipRanges: [{ cidr: '10.56.0.0/24' }],
      subnetInfo: { gateway: '10.56.0.1', prefixLength: 24 },
    });
    await allocate(client, { pools: ['rel'], owner: owner(1) });
    const first = await release(client, { pools: ['rel', 'gone'], attachment: owner(1) });
    expect(first.map((r) => [r.pool, r.entry.ipAddress])).toEqual([['rel', '10.56.0.2']]);
    expect(await release(client, { pools: ['rel', 'gone'], attachment: owner(1) })).toEqual([]);
  });

  it("GC releases the network's attachments that are not valid, and nothing of other networks or Reserved", async () => {
    await createPool('gc', {
      ipRanges: [{ cidr: '10.57.0.0/24' }],
      subnetInfo: { gateway: '10.57.0.1', prefixLength: 24 },
    });
    for (const i of [1, 2, 3]) await allocate(client, { pools: ['gc'], owner: owner(i) });
    await allocate(client, { pools: ['gc'], owner: owner(4, 'net1', 'net-b') });
    const { entries } = await storedStatus('gc');
    const current = await pools.get('gc');
    await pools.replaceStatus({
      ...current,
      status: {
        ipAddresses: [...entries, { ipAddress: '10.57.0.100', phase: 'Reserved', owner: {} }],
        usage: { total: 253, used: entries.length + 1 },
      },
    });
    const released = await collectGarbage(client, { pools: ['gc'], network: 'net-a', valid: [owner(2)] });
    expect(released.map((r) => r.entry.owner.pod?.containerID).sort()).toEqual(['c1', 'c3']);
    const after = await storedStatus('gc');
    expect(after.entries.map((e) => e.ipAddress)).toEqual(['10.57.0.3', '10.57.0.5', '10.57.0.100']);
    expect(after.usage).toEqual({ total: 253, used: 3 });
  });
});

describe('API server unreachable', () => {
  it('fails with UnreachableError and takes nothing; after the restart allocation works', async () => {
    await createPool('down', {
      ipRanges: [{ cidr: '10.58.0.0/24' }],
      subnetInfo: { gateway: '10.58.0.1', prefixLength: 24 },
    });
    await server.stop();
    try {
      const error = await allocate(client, { pools: ['down'], owner: owner(1) }).catch((e: unknown) => e);
      expect(isUnreachableError(error)).toBe(true);
    } finally {
      await server.start();
    }
    expect((await pools.get('down')).status).toBeUndefined();
    const [a] = await allocate(client, { pools: ['down'], owner: owner(1) });
    expect(a?.address).toBe('10.58.0.2');
  });
});
