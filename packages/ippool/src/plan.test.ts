import { parseIpPool, type IpAddressState, type IpPool, type IpPoolSpec, type PodOwner } from '@fabrik/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddress, parseAddress } from './address.js';
import { planAllocation, planRelease } from './plan.js';
import { poolSpace } from './pool-space.js';

function pool(spec: IpPoolSpec, ipAddresses?: IpAddressState[]): IpPool {
  const parsed = parseIpPool({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'IPPool',
    metadata: { name: 'p', resourceVersion: '1' },
    spec,
    ...(ipAddresses ? { status: { ipAddresses } } : {}),
  });
  if (!parsed.ok) throw parsed.error;
  return parsed.value;
}

const owner = (i: number, ifName = 'net1'): PodOwner => ({
  name: `pod-${i}`,
  namespace: 'default',
  containerID: `c${i}`,
  ifName,
});

const allocated = (ipAddress: string, i: number): IpAddressState => ({
  ipAddress,
  phase: 'Allocated',
  owner: { pod: owner(i) },
});

/** Every address the pool hands out, in order, by allocating until it is exhausted. */
function drain(p: IpPool): string[] {
  const out: string[] = [];
  for (let i = 0; ; i++) {
    const plan = planAllocation(p, owner(i));
    if (plan.kind !== 'allocate') return out;
    out.push(plan.address);
    p = { ...p, status: plan.status };
  }
}

const v4Subnet = { gateway: '10.0.0.1', prefixLength: 24 };

describe('poolSpace', () => {
  it('leaves out the subnet network, broadcast and gateway addresses', () => {
    const all = drain(pool({ ipRanges: [{ start: '10.0.0.0', end: '10.0.0.255' }], subnetInfo: v4Subnet }));
    expect(all).toHaveLength(253);
    expect(all[0]).toBe('10.0.0.2');
    expect(all.at(-1)).toBe('10.0.0.254');
  });

  it("leaves out a cidr range's own network and broadcast address", () => {
    const p = pool({ ipRanges: [{ cidr: '10.0.0.64/29' }], subnetInfo: v4Subnet });
    expect(drain(p)).toEqual(['10.0.0.65', '10.0.0.66', '10.0.0.67', '10.0.0.68', '10.0.0.69', '10.0.0.70']);
    expect(poolSpace(p.spec).size).toBe(6n);
  });

  it('takes ranges in spec order, each ascending', () => {
    const p = pool({
      ipRanges: [
        { start: '10.0.0.20', end: '10.0.0.22' },
        { start: '10.0.0.10', end: '10.0.0.11' },
      ],
      subnetInfo: v4Subnet,
    });
    expect(drain(p)).toEqual(['10.0.0.20', '10.0.0.21', '10.0.0.22', '10.0.0.10', '10.0.0.11']);
    expect(poolSpace(p.spec).size).toBe(5n);
  });

  it('keeps both addresses of a /31 and the one of a /32 (no network or broadcast there)', () => {
    const p31 = { gateway: '10.0.0.9', prefixLength: 31 };
    expect(drain(pool({ ipRanges: [{ cidr: '10.0.0.8/32' }], subnetInfo: p31 }))).toEqual(['10.0.0.8']);
    expect(drain(pool({ ipRanges: [{ cidr: '10.0.0.4/31' }], subnetInfo: v4Subnet }))).toEqual([
      '10.0.0.4',
      '10.0.0.5',
    ]);
  });

  it('IPv6: canonical addresses, the subnet-router anycast address and the gateway left out', () => {
    const p = pool({
      ipRanges: [{ cidr: '2001:db8:0:1::/125' }],
      subnetInfo: { gateway: '2001:db8:0:1::1', prefixLength: 64 },
    });
    expect(drain(p)).toEqual([
      '2001:db8:0:1::2',
      '2001:db8:0:1::3',
      '2001:db8:0:1::4',
      '2001:db8:0:1::5',
      '2001:db8:0:1::6',
    ]);
  });

  it('caps usage.total of a huge IPv6 pool at the largest exact JSON integer', () => {
    const p = pool({
      ipRanges: [{ cidr: '2001:db8::/64' }],
      subnetInfo: { gateway: '2001:db8::1', prefixLength: 64 },
    });
    const plan = planAllocation(p, owner(1));
    expect(plan).toMatchObject({ kind: 'allocate', address: '2001:db8::2' });
    expect(plan.kind === 'allocate' && plan.status.usage).toEqual({
      total: Number.MAX_SAFE_INTEGER,
      used: 1,
    });
  });
});

describe('planAllocation', () => {
  const small = { ipRanges: [{ start: '10.0.0.10', end: '10.0.0.12' }], subnetInfo: v4Subnet };

  it('returns the address an attachment has without writing (a repeated ADD)', () => {
    const p = pool(small, [allocated('10.0.0.10', 1), allocated('10.0.0.11', 2)]);
    expect(planAllocation(p, owner(2))).toEqual({ kind: 'existing', address: '10.0.0.11' });
    // The same container with another interface is another attachment.
    expect(planAllocation(p, owner(2, 'net2'))).toMatchObject({ kind: 'allocate', address: '10.0.0.12' });
  });

  it('fills a hole first and keeps the status sorted, with usage', () => {
    const p = pool(small, [allocated('10.0.0.12', 3), allocated('10.0.0.10', 1)]);
    const plan = planAllocation(p, owner(7));
    expect(plan).toMatchObject({ kind: 'allocate', address: '10.0.0.11' });
    if (plan.kind !== 'allocate') return;
    expect(plan.status.ipAddresses?.map((e) => e.ipAddress)).toEqual(['10.0.0.10', '10.0.0.11', '10.0.0.12']);
    expect(plan.status.ipAddresses?.[1]).toEqual({
      ipAddress: '10.0.0.11',
      phase: 'Allocated',
      owner: { pod: owner(7) },
    });
    expect(plan.status.usage).toEqual({ total: 3, used: 3 });
  });

  it('counts Reserved addresses as used and never hands them out', () => {
    const p = pool(small, [{ ipAddress: '10.0.0.10', phase: 'Reserved', owner: {} }]);
    expect(planAllocation(p, owner(1))).toMatchObject({ kind: 'allocate', address: '10.0.0.11' });
    expect(drain(p)).toEqual(['10.0.0.11', '10.0.0.12']);
  });

  it('reports exhaustion with the usage', () => {
    const p = pool(small, [allocated('10.0.0.10', 1), allocated('10.0.0.11', 2), allocated('10.0.0.12', 3)]);
    expect(planAllocation(p, owner(4))).toEqual({ kind: 'exhausted', usage: { total: 3, used: 3 } });
  });

  it('compares addresses by value, whatever their spelling in the status', () => {
    const p = pool(
      {
        ipRanges: [{ start: '2001:db8::2', end: '2001:db8::3' }],
        subnetInfo: { gateway: '2001:db8::1', prefixLength: 64 },
      },
      [allocated('2001:DB8:0:0:0:0:0:2', 1)],
    );
    expect(planAllocation(p, owner(2))).toMatchObject({ kind: 'allocate', address: '2001:db8::3' });
  });

  it.each([
    ['10.0.0.11', undefined],
    ['10.0.0.1', 'it is the gateway, network or broadcast address'],
    ['10.0.0.13', 'it is outside the pool ranges'],
    ['10.0.0.10', 'it is allocated to another attachment'],
    ['2001:db8::5', 'the pool is IPv4'],
  ])('a requested %s: %s', (address, reason) => {
    const p = pool(small, [allocated('10.0.0.10', 1)]);
    const plan = planAllocation(p, owner(2), address);
    if (reason === undefined) expect(plan).toMatchObject({ kind: 'allocate', address });
    else expect(plan).toEqual({ kind: 'unavailable', address, reason });
  });

  it('a requested address the attachment has already is the existing one; another is refused', () => {
    const p = pool(small, [allocated('10.0.0.10', 1)]);
    expect(planAllocation(p, owner(1), '10.0.0.10')).toEqual({ kind: 'existing', address: '10.0.0.10' });
    expect(planAllocation(p, owner(1), '10.0.0.11')).toMatchObject({ kind: 'unavailable' });
  });
});

describe('planRelease', () => {
  it('removes the selected entries and recomputes usage; nothing selected: nothing to write', () => {
    const p = pool({ ipRanges: [{ cidr: '10.0.0.0/24' }], subnetInfo: v4Subnet }, [
      allocated('10.0.0.2', 1),
      allocated('10.0.0.3', 2),
    ]);
    const plan = planRelease(p, (e) => e.owner.pod?.containerID === 'c1');
    expect(plan.released.map((e) => e.ipAddress)).toEqual(['10.0.0.2']);
    expect(plan.status).toEqual({ ipAddresses: [allocated('10.0.0.3', 2)], usage: { total: 253, used: 1 } });
    expect(planRelease(p, () => false)).toEqual({ released: [], status: undefined });
    expect(
      planRelease(pool({ ipRanges: [{ cidr: '10.0.0.0/24' }], subnetInfo: v4Subnet }), () => true),
    ).toEqual({
      released: [],
      status: undefined,
    });
  });
});

describe('allocation and release in any order', () => {
  it('never gives one address twice, never a reserved one, and usage always matches the status', () => {
    const spec = {
      ipRanges: [{ cidr: '10.0.0.0/28' }, { start: '10.0.0.32', end: '10.0.0.40' }],
      subnetInfo: { gateway: '10.0.0.1', prefixLength: 24 },
    };
    const space = poolSpace(spec);
    fc.assert(
      fc.property(
        fc.array(fc.record({ add: fc.boolean(), who: fc.integer({ min: 0, max: 25 }) }), { maxLength: 80 }),
        (ops) => {
          let p = pool(spec);
          for (const op of ops) {
            const plan = op.add
              ? planAllocation(p, owner(op.who))
              : planRelease(p, (e) => e.owner.pod?.containerID === `c${op.who}`);
            if ('status' in plan && plan.status) p = { ...p, status: plan.status };
            const entries = p.status?.ipAddresses ?? [];
            const values = entries.map((e) => parseAddress(e.ipAddress).value);
            expect(new Set(values).size).toBe(values.length);
            expect(values.some((v) => space.reserved.has(v))).toBe(false);
            expect(new Set(entries.map((e) => e.owner.pod?.containerID)).size).toBe(entries.length);
            if (p.status) expect(p.status.usage).toEqual({ total: Number(space.size), used: entries.length });
          }
          // The pool still parses: what the allocator writes is what the API server accepts.
          expect(parseIpPool(p).ok).toBe(true);
        },
      ),
      { seed: 14, numRuns: 200 },
    );
    expect(formatAddress(4, space.intervals[0]?.first ?? 0n)).toBe('10.0.0.2');
  });
});
