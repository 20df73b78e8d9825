import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NODE_IDENTITY_ANNOTATIONS, type NodeIdentity } from '@fabrik/api';
import { propertyRunOptions } from '@fabrik/testkit/arbitraries';
import { allocateIdentities, type IdentityClaim, type IdentityPools } from './allocate.js';

const POOLS: IdentityPools = {
  routerIds: '10.255.0.0/24',
  vtepIps: '10.254.0.0/23',
  asn: { from: 65000, to: 65999 },
};
const nodeNames = (count: number, prefix = 'node') =>
  Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
const claims = (names: readonly string[]): IdentityClaim[] => names.map((name) => ({ name }));

/** No value of a unique field is given twice. */
function expectDistinct(identities: ReadonlyMap<string, NodeIdentity>): void {
  const all = [...identities.values()];
  for (const field of ['asn', 'routerId', 'vtepIp'] as const)
    expect(new Set(all.map((i) => i[field])).size, field).toBe(all.length);
}

describe('allocateIdentities', () => {
  it('gives 200 nodes distinct identities from the pools, lowest values first, without network or broadcast addresses', () => {
    const { identities, problems } = allocateIdentities(POOLS, claims(nodeNames(200)), new Map());
    expect(problems).toEqual([]);
    expect(identities.size).toBe(200);
    expectDistinct(identities);
    expect(identities.get('node-000')).toEqual({ asn: 65000, routerId: '10.255.0.1', vtepIp: '10.254.0.1' });
    expect(identities.get('node-199')).toEqual({
      asn: 65199,
      routerId: '10.255.0.200',
      vtepIp: '10.254.0.200',
    });
  });

  it('reports exhaustion for the nodes that do not fit, naming the pool, and gives the others theirs', () => {
    const { identities, problems } = allocateIdentities(
      { ...POOLS, routerIds: '10.255.0.0/30' },
      claims(['a', 'b', 'c']),
      new Map(),
    );
    expect([...identities.keys()]).toEqual(['a', 'b']);
    expect(problems).toEqual([
      {
        node: 'c',
        field: 'routerId',
        reason: 'PoolExhausted',
        message: 'no free routerId left in 10.255.0.0/30',
      },
    ]);
  });

  it('skips the reserved AS numbers of a range', () => {
    const { identities } = allocateIdentities(
      { ...POOLS, asn: { from: 65534, to: 65537 } },
      claims(['a', 'b', 'c']),
      new Map(),
    );
    expect([...identities.values()].map((i) => i.asn)).toEqual([65534, 65536, 65537]);
  });

  it('gives one AS number to every node when the pool is a single AS number', () => {
    const { identities } = allocateIdentities({ ...POOLS, asn: 64512 }, claims(nodeNames(3)), new Map());
    expect([...identities.values()].map((i) => i.asn)).toEqual([64512, 64512, 64512]);
  });

  it('honours annotations, inside the pool or outside it, and allocates around them', () => {
    const { identities, problems } = allocateIdentities(
      POOLS,
      [
        { name: 'a' },
        {
          name: 'b',
          annotations: {
            [NODE_IDENTITY_ANNOTATIONS.routerId]: '10.255.0.1',
            [NODE_IDENTITY_ANNOTATIONS.vtepIp]: '192.0.2.10',
            [NODE_IDENTITY_ANNOTATIONS.asn]: '4200000001',
          },
        },
      ],
      new Map(),
    );
    expect(problems).toEqual([]);
    expect(identities.get('b')).toEqual({ asn: 4200000001, routerId: '10.255.0.1', vtepIp: '192.0.2.10' });
    expect(identities.get('a')).toEqual({ asn: 65000, routerId: '10.255.0.2', vtepIp: '10.254.0.1' });
  });

  it('reports a duplicate annotation on every node that carries it and gives the value to none of them', () => {
    const vtep = { [NODE_IDENTITY_ANNOTATIONS.vtepIp]: '192.0.2.10' };
    const { identities, problems } = allocateIdentities(
      POOLS,
      [{ name: 'a', annotations: vtep }, { name: 'b', annotations: vtep }, { name: 'c' }],
      new Map(),
    );
    expect([...identities.keys()]).toEqual(['c']);
    expect(problems.map((p) => [p.node, p.field, p.reason, p.message])).toEqual([
      [
        'a',
        'vtepIp',
        'DuplicateAnnotation',
        'annotation network.fabrik.dev/vtep-ip=192.0.2.10 is on node b too',
      ],
      [
        'b',
        'vtepIp',
        'DuplicateAnnotation',
        'annotation network.fabrik.dev/vtep-ip=192.0.2.10 is on node a too',
      ],
    ]);
  });

  it('keeps a duplicated annotation value with the node that already holds it', () => {
    const vtep = { [NODE_IDENTITY_ANNOTATIONS.vtepIp]: '192.0.2.10' };
    const held = new Map([['b', { asn: 65001, routerId: '10.255.0.2', vtepIp: '192.0.2.10' }]]);
    const { identities, problems } = allocateIdentities(
      POOLS,
      [
        { name: 'a', annotations: vtep },
        { name: 'b', annotations: vtep },
      ],
      held,
    );
    expect(identities.get('b')).toEqual(held.get('b'));
    expect(problems.map((p) => `${p.node} ${p.reason}`)).toEqual(['a DuplicateAnnotation']);
  });

  it('refuses an annotation naming a value another node holds from the pool (the holder keeps it)', () => {
    const held = new Map([['a', { asn: 65000, routerId: '10.255.0.1', vtepIp: '10.254.0.1' }]]);
    const { identities, problems } = allocateIdentities(
      POOLS,
      [{ name: 'a' }, { name: 'b', annotations: { [NODE_IDENTITY_ANNOTATIONS.routerId]: '10.255.0.1' } }],
      held,
    );
    expect(identities.get('a')).toEqual(held.get('a'));
    expect(identities.has('b')).toBe(false);
    expect(problems).toEqual([
      {
        node: 'b',
        field: 'routerId',
        reason: 'AnnotationConflict',
        message: 'annotation network.fabrik.dev/router-id=10.255.0.1: node a holds it',
      },
    ]);
  });

  it('reports an annotation that is not a value of its field', () => {
    const { problems } = allocateIdentities(
      POOLS,
      [{ name: 'a', annotations: { [NODE_IDENTITY_ANNOTATIONS.asn]: '65535' } }],
      new Map(),
    );
    expect(problems.map((p) => `${p.field} ${p.reason}`)).toEqual(['asn InvalidAnnotation']);
  });

  it('keeps what deleted nodes hold reserved, and frees it once they are no longer held', () => {
    const first = allocateIdentities(POOLS, claims(['a', 'b', 'c']), new Map());
    const held = new Map(first.identities);
    const inGrace = allocateIdentities(POOLS, claims(['a', 'c', 'd']), held);
    expect(inGrace.identities.get('d')).toEqual({ asn: 65003, routerId: '10.255.0.4', vtepIp: '10.254.0.4' });
    held.delete('b');
    const after = allocateIdentities(POOLS, claims(['a', 'c', 'e']), held);
    expect(after.identities.get('e')).toEqual(first.identities.get('b'));
  });

  // Properties over random churn: nodes join and leave (held values of those gone are dropped at
  // random, as grace periods end), and nothing moves, nothing is given twice.
  it('never moves an allocation and never gives a value twice, across churn (200 nodes)', () => {
    const step = fc.record({
      joins: fc.integer({ min: 0, max: 30 }),
      leaves: fc.array(fc.nat(), { maxLength: 30 }),
      expire: fc.array(fc.nat(), { maxLength: 30 }),
      order: fc.nat(),
    });
    // Pools large enough for every node that ever joins here: exhaustion has its own test.
    const pools = { routerIds: '10.255.0.0/20', vtepIps: '10.240.0.0/20', asn: { from: 65000, to: 69999 } };
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 8 }), (steps) => {
        let nodes = nodeNames(200);
        let held = new Map<string, NodeIdentity>();
        let next = 200;
        for (const s of steps) {
          const shuffled = s.order % 2 === 0 ? nodes : [...nodes].reverse();
          const { identities, problems } = allocateIdentities(pools, claims(shuffled), held);
          expect(problems).toEqual([]);
          expectDistinct(new Map([...identities, ...[...held].filter(([n]) => !identities.has(n))]));
          for (const [name, identity] of identities)
            if (held.has(name)) expect(identity, `${name} moved`).toEqual(held.get(name));
          held = new Map([...held, ...identities]);
          const leaving = new Set(s.leaves.map((i) => nodes[i % nodes.length]!));
          nodes = [...nodes.filter((n) => !leaving.has(n)), ...nodeNames(s.joins, `join${next++}`)];
          for (const i of s.expire) {
            const gone = [...held.keys()].filter((n) => !nodes.includes(n));
            if (gone.length > 0) held.delete(gone[i % gone.length]!);
          }
        }
      }),
      propertyRunOptions(30),
    );
  });

  it('is deterministic: the order of the nodes does not change the result', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(nodeNames(60), { minLength: 1 }), (names) => {
        const sorted = [...names].sort();
        const a = allocateIdentities(POOLS, claims(names), new Map());
        const b = allocateIdentities(POOLS, claims(sorted), new Map());
        expect([...a.identities].sort()).toEqual([...b.identities].sort());
      }),
      propertyRunOptions(50),
    );
  });
});
