import { describe, expect, it } from 'vitest';
import { parseFrrIntent } from '@fabrik/api';
import type { ObservedLink, ObservedState, Plan, PlanOp } from '@fabrik/netcore/netlink';
import { hbrDesiredState } from './hbr-state.js';
import { beforeFrrState, downUnmappedL3Vnis, touchesL3Vni } from './phases.js';

const base = {
  asn: 65000,
  routerId: '192.0.2.1',
  vtepIp: '192.0.2.1',
  vrfs: [{ name: 'red', vni: 1001 }],
  layer2s: [{ vni: 2100, vlan: 100, vrf: 'red' }],
};
const before = (input: object, observed: ObservedState) => {
  const intent = parseFrrIntent(input);
  const full = hbrDesiredState(intent, { owner: 't' });
  return beforeFrrState(full, hbrDesiredState(intent, { owner: 't', phase: 'l3-down' }), observed);
};

/** A namespace holding these links, marked by owner `t` unless listed as foreign. */
function observed(owned: readonly string[], foreign: readonly string[] = ['tr']): ObservedState {
  const link = (name: string, alias: string | undefined) =>
    ({
      ifindex: 1,
      spec: { kind: 'generic', name, mtu: 1500, up: true, master: null },
      alias,
      lowerUp: true,
      port: undefined,
      addresses: [],
    }) as unknown as ObservedLink;
  return {
    links: [...owned.map((n) => link(n, 'fabrik:t')), ...foreign.map((n) => link(n, undefined))],
    routes: undefined,
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
}

const working = ['red', 'br1001', 'vx1001', 'br2100', 'vx2100', 'tr.100'];

describe('beforeFrrState', () => {
  it('on an empty namespace: only the VRFs and L3 VNI devices, with no up state (created down)', () => {
    const s = before(base, observed([]));
    expect(s.links.map((l) => l.name).sort()).toEqual(['br1001', 'red', 'vx1001']);
    expect(s.links.every((l) => l.up === undefined)).toBe(true);
    expect(s.routes).toBeUndefined();
  });

  it('next to a working VRF: the new VRF is added and everything that exists keeps its up state', () => {
    const s = before({ ...base, vrfs: [...base.vrfs, { name: 'blue', vni: 1002 }] }, observed(working));
    expect(s.links.map((l) => l.name).sort()).toEqual(['blue', 'br1002', 'vx1002', ...working].sort());
    expect(s.links.every((l) => l.up === undefined)).toBe(true);
    // the staying L2 network keeps every other attribute it should have (its master, its port flags)
    expect(s.links.find((l) => l.name === 'vx2100')).toMatchObject({
      master: 'br2100',
      port: { neighSuppress: true },
    });
  });

  it('new L2 networks wait for the full state', () => {
    const s = before(
      { ...base, layer2s: [...base.layer2s, { vni: 2200, vlan: 200, vrf: 'red' }] },
      observed(working),
    );
    expect(s.links.map((l) => l.name)).not.toContain('br2200');
  });

  it('a VLAN moving to a new L2 network keeps its old master until the full state creates the new bridge', () => {
    const moved = { ...base, layer2s: [{ vni: 2500, vlan: 100, vrf: 'red' }] };
    const s = before(moved, observed(working));
    const vlan = s.links.find((l) => l.name === 'tr.100');
    expect(vlan).toBeDefined();
    expect(vlan).not.toHaveProperty('master');
    expect(s.links.map((l) => l.name)).not.toContain('br2500');
  });

  it('lists no removed object, so applying it with pruning deletes them before FRR is reloaded', () => {
    const s = before({ ...base, vrfs: [], layer2s: [] }, observed(working));
    expect(s.links).toEqual([]);
  });

  it('a foreign link of a desired name is not taken over here (the planner refuses it)', () => {
    const s = before(base, observed([], ['tr', 'br2100']));
    expect(s.links.map((l) => l.name)).not.toContain('br2100');
  });
});

describe('touchesL3Vni', () => {
  // red has L3 VNI 1001; an L2 network without a VRF makes the agent create VRF hbr (no VNI).
  const intent = parseFrrIntent({ ...base, layer2s: [...base.layer2s, { vni: 2200, vlan: 200 }] });
  const l3 = hbrDesiredState(intent, { owner: 't', phase: 'l3-down' });
  const touches = (...ops: PlanOp[]) =>
    touchesL3Vni({ desired: l3, options: {}, ops, scope: {} } satisfies Plan, l3, ['red']);

  it('is false for what an L2 network added or removed changes before FRR (VRF hbr has no VNI)', () => {
    expect(l3.links.map((l) => l.name)).toContain('hbr');
    expect(touches({ op: 'link-add', spec: { kind: 'vrf', name: 'hbr', table: 1000, up: false } })).toBe(
      false,
    );
    expect(touches({ op: 'link-del', name: 'vx2100' }, { op: 'link-del', name: 'tr.100' })).toBe(false);
    expect(touches({ op: 'link-del', name: 'hbr' })).toBe(false);
    expect(touches()).toBe(false);
  });

  it('is true when a VRF with a VNI, its bridge or its VXLAN device is created or changed', () => {
    expect(touches({ op: 'link-del', name: 'vx2100' }, { op: 'link-del', name: 'red' })).toBe(true);
    expect(touches({ op: 'link-set', name: 'vx1001', changes: { master: 'br1001' } })).toBe(true);
    expect(touches({ op: 'link-addrgenmode', name: 'br1001', mode: 'none' })).toBe(true);
  });
});

describe('downUnmappedL3Vnis', () => {
  const intent = parseFrrIntent({ ...base, vrfs: [...base.vrfs, { name: 'blue', vni: 1002 }] });
  const l3 = hbrDesiredState(intent, { owner: 't', phase: 'l3-down' });
  const upOf = (state: ReturnType<typeof downUnmappedL3Vnis>) =>
    Object.fromEntries(state.links.map((l) => [l.name, l.up]));

  it('sets the L3 VNI devices of a VRF zebra does not map down, and leaves mapped ones as they are', () => {
    const result = downUnmappedL3Vnis(l3, intent.vrfs, new Set(['red/1001']));
    expect(upOf(result)).toEqual({
      red: undefined,
      br1001: undefined,
      vx1001: undefined,
      blue: undefined,
      br1002: false,
      vx1002: false,
    });
  });

  it('changes nothing when zebra maps every VRF to its VNI', () => {
    expect(downUnmappedL3Vnis(l3, intent.vrfs, new Set(['red/1001', 'blue/1002']))).toBe(l3);
  });

  it('the first step then takes an existing, up L3 VNI device of an unmapped VRF down', () => {
    const full = hbrDesiredState(intent, { owner: 't' });
    const state = beforeFrrState(
      full,
      downUnmappedL3Vnis(l3, intent.vrfs, new Set(['red/1001'])),
      observed([...working, 'blue', 'br1002', 'vx1002']),
    );
    expect(
      state.links
        .filter((l) => l.up === false)
        .map((l) => l.name)
        .sort(),
    ).toEqual(['br1002', 'vx1002']);
  });
});
