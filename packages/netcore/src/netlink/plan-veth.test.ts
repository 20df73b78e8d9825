import { describe, expect, it } from 'vitest';
import { plan } from './plan.js';
import { formatPlan } from './encode.js';
import type { DesiredState } from './desired.js';
import type { ObservedState } from './observe.js';

const empty: ObservedState = {
  links: [],
  routes: undefined,
  neighbours: undefined,
  fdb: undefined,
  sysctls: undefined,
};

// vrf-ibgp's veth pair: one end in a VRF, the other in the default VRF, both up.
const pair: DesiredState = {
  owner: 'test',
  links: [
    { kind: 'vrf', name: 'red', table: 1001, up: true },
    { kind: 'veth', name: 'ibv1001', peer: { name: 'ibd1001' }, master: 'red', up: true, mtu: 9000 },
    { kind: 'veth', name: 'ibd1001', peer: { name: 'ibv1001' }, up: true, mtu: 9000 },
  ],
};

describe('a veth pair with both ends declared', () => {
  it('is created once, by the end whose name sorts first, both ends marked at once; the other end is configured like a new link', () => {
    expect(formatPlan(plan(pair, empty))).toEqual([
      'ip link add name red type vrf table 1001',
      'ip link set dev red alias fabrik:test',
      'ip link add name ibd1001 mtu 9000 type veth peer name ibv1001',
      'ip link set dev ibd1001 alias fabrik:test',
      'ip link set dev ibv1001 alias fabrik:test',
      'ip link set dev red up',
      'ip link set dev ibd1001 up',
      'ip link set dev ibv1001 mtu 9000 master red',
      'ip link set dev ibv1001 up',
    ]);
  });

  it('refuses a declared peer that does not name this link back', () => {
    const links = [
      pair.links[1]!,
      { kind: 'veth' as const, name: 'ibd1001', peer: { name: 'other' }, up: true },
      pair.links[0]!,
    ];
    expect(() => plan({ owner: 'test', links }, empty)).toThrow(
      expect.objectContaining({ path: 'links[0].peer.name' }) as Error,
    );
  });
});
