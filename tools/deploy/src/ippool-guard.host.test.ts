// deploy/base's policy fabrik-ippool-in-use against the real kube-apiserver: addresses allocated
// by @fabrik/ippool (fabrik-ipam's own code) keep their pool. Deleting the pool (one, or all with
// deletecollection) and shrinking its ranges under an allocated address are refused with a message
// naming the addresses and their Pods; growing it, and deleting it once released, are accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { IP_POOL_RESOURCE, type IpRange } from '@fabrik/api';
import { allocate, ipPoolClient, release } from '@fabrik/ippool';
import { customObjects, isForbiddenError, isNotFoundError } from '@fabrik/kube';
import type { KubeApiServer } from '@fabrik/testkit';
import { failureOf, startInstalledApiServer, untilPolicyEnforced } from './installed.js';

const POLICY = 'fabrik-ippool-in-use';
const anyObject = {
  parse: (raw: unknown) =>
    raw as { metadata: { name: string; resourceVersion?: string }; spec: { ipRanges: IpRange[] } },
};
const POOLS = {
  group: IP_POOL_RESOURCE.group,
  version: IP_POOL_RESOURCE.version,
  plural: IP_POOL_RESOURCE.plural,
};

let api: KubeApiServer;
let admin: KubeConfig;
const pools = () => customObjects(admin, POOLS, anyObject);

const V4_SUBNET = { gateway: '10.9.0.1', prefixLength: 16 };

async function createPool(name: string, ipRanges: IpRange[], subnetInfo = V4_SUBNET): Promise<void> {
  await pools().create({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name },
    spec: { subnetInfo, ipRanges },
  } as never);
}

/** Allocates an address of `pool` to Pod default/<pod> as fabrik-ipam does; resolves to it. */
async function allocateTo(pool: string, pod: string): Promise<string> {
  const [allocation] = await allocate(ipPoolClient(admin), {
    pools: [pool],
    owner: { name: pod, namespace: 'default', containerID: `c-${pod}`, ifName: 'net1', network: 'web' },
  });
  return allocation!.address;
}

const setRanges = (name: string, ipRanges: IpRange[]) =>
  pools().patch(name, { spec: { ipRanges } }, { type: 'merge' });

async function expectRefused(call: Promise<unknown>, ...parts: string[]): Promise<void> {
  const failure = await failureOf(call);
  expect(isForbiddenError(failure), `expected 403, got ${String(failure)}`).toBe(true);
  for (const part of [`ValidatingAdmissionPolicy '${POLICY}'`, ...parts])
    expect(String(failure)).toContain(part);
}

beforeAll(async () => {
  api = await startInstalledApiServer();
  admin = new KubeConfig();
  admin.loadFromFile(api.kubeconfigPath);
  await createPool('probe', [{ cidr: '10.9.255.0/30' }]);
  await allocateTo('probe', 'probe');
  await untilPolicyEnforced(api, POLICY, ['delete', 'ippool', 'probe']);
}, 120_000);

afterAll(() => api?.destroy());

describe('an IPPool with a CIDR range and two addresses in use', () => {
  let web0: string;
  let web1: string;
  beforeAll(async () => {
    await createPool('pool-a', [{ cidr: '10.9.0.0/25' }]);
    web0 = await allocateTo('pool-a', 'web-0');
    web1 = await allocateTo('pool-a', 'web-1');
  });

  it('cannot be deleted, alone or with every pool; the message names the addresses and Pods', async () => {
    await expectRefused(
      pools().delete('pool-a'),
      'IPPool pool-a has 2 addresses in use',
      `${web0} (default/web-0)`,
      `${web1} (default/web-1)`,
    );
    for (const deleteAll of [
      ['delete', 'ippools', '--all'], // kubectl: one DELETE per pool
      ['delete', '--raw', '/apis/network.fabrik.dev/v1alpha1/ippools'], // one deletecollection
    ])
      expect(String(await failureOf(api.kubectl(...deleteAll))), deleteAll.join(' ')).toContain(
        `ValidatingAdmissionPolicy '${POLICY}'`,
      );
    expect((await pools().list()).items.map((p) => p.metadata.name).sort()).toEqual(['pool-a', 'probe']);
  });

  it('cannot be shrunk to ranges without an address in use; the spec stays', async () => {
    await expectRefused(
      setRanges('pool-a', [{ cidr: '10.9.0.64/26' }]),
      'spec.ipRanges would no longer contain addresses in use',
      `${web0} (default/web-0)`,
    );
    await expectRefused(setRanges('pool-a', [{ start: '10.9.0.100', end: '10.9.0.120' }]), web0, web1);
    expect((await pools().get('pool-a')).spec.ipRanges).toEqual([{ cidr: '10.9.0.0/25' }]);
  });

  it('can grow, and is deleted once its addresses are released', async () => {
    await setRanges('pool-a', [{ cidr: '10.9.0.0/24' }]);
    expect((await pools().get('pool-a')).spec.ipRanges).toEqual([{ cidr: '10.9.0.0/24' }]);
    for (const pod of ['web-0', 'web-1'])
      await release(ipPoolClient(admin), {
        pools: ['pool-a'],
        attachment: { containerID: `c-${pod}`, ifName: 'net1' },
      });
    await setRanges('pool-a', [{ cidr: '10.9.0.128/25' }]);
    await pools().delete('pool-a');
    expect(isNotFoundError(await failureOf(pools().get('pool-a')))).toBe(true);
  });
});

describe('an IPPool with an IPv4 start-end range in use', () => {
  const range: IpRange = { start: '10.9.1.10', end: '10.9.1.20' };
  let db0: string;
  beforeAll(async () => {
    await createPool('pool-b', [range]);
    db0 = await allocateTo('pool-b', 'db-0');
  });

  it('may gain a range while it keeps that one, and widen it', async () => {
    await setRanges('pool-b', [range, { cidr: '10.9.2.0/24' }]);
    expect((await pools().get('pool-b')).spec.ipRanges).toEqual([range, { cidr: '10.9.2.0/24' }]);
    await setRanges('pool-b', [{ start: '10.9.1.10', end: '10.9.1.30' }]);
    // Compared as numbers: 9 <= 10 <= 90 (as text, "10.9.1.9" sorts after "10.9.1.10").
    expect(db0).toBe('10.9.1.10');
    await setRanges('pool-b', [{ start: '10.9.1.9', end: '10.9.1.90' }]);
    expect((await pools().get('pool-b')).spec.ipRanges).toEqual([{ start: '10.9.1.9', end: '10.9.1.90' }]);
  });

  it('cannot move to ranges that leave the address out', async () => {
    await expectRefused(
      setRanges('pool-b', [{ start: '10.9.1.50', end: '10.9.1.60' }]),
      'spec.ipRanges would no longer contain addresses in use: 10.9.1.10 (default/db-0)',
    );
    await expectRefused(
      setRanges('pool-b', [{ start: '10.9.1.11', end: '10.9.1.90' }]),
      `${db0} (default/db-0)`,
    );
    await expectRefused(setRanges('pool-b', [{ cidr: '10.9.2.0/24' }]), `${db0} (default/db-0)`);
    expect((await pools().get('pool-b')).spec.ipRanges).toEqual([{ start: '10.9.1.9', end: '10.9.1.90' }]);
  });

  it('may move the address into a CIDR range that holds it', async () => {
    await setRanges('pool-b', [{ cidr: '10.9.1.0/24' }]);
    expect((await pools().get('pool-b')).spec.ipRanges).toEqual([{ cidr: '10.9.1.0/24' }]);
  });
});

describe('an IPPool with an IPv6 start-end range in use', () => {
  const range: IpRange = { start: 'fd00:9::10', end: 'fd00:9::20' };
  let v6: string;
  beforeAll(async () => {
    await createPool('pool-c', [range], { gateway: 'fd00:9::1', prefixLength: 64 });
    v6 = await allocateTo('pool-c', 'v6-0');
  });

  it('keeps the range unless a CIDR range holds the address (IPv6 is not compared as numbers)', async () => {
    await expectRefused(
      setRanges('pool-c', [{ start: 'fd00:9::10', end: 'fd00:9::30' }]),
      `${v6} (default/v6-0)`,
    );
    await setRanges('pool-c', [range, { cidr: 'fd00:9::100/120' }]);
    await setRanges('pool-c', [{ cidr: 'fd00:9::/120' }]);
    expect((await pools().get('pool-c')).spec.ipRanges).toEqual([{ cidr: 'fd00:9::/120' }]);
  });
});
