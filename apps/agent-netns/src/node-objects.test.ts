import { describe, expect, it } from 'vitest';
import type { Layer2Network, Vrf } from '@fabrik/api';
import { generationsOf, NO_OBJECTS, refreshUnchanged } from './node-objects.js';

const named = <T>(kind: string, name: string, generation: number) =>
  ({ kind, metadata: { name, generation }, spec: {} }) as unknown as T;

describe('generationsOf', () => {
  it('lists names in order whatever order the objects came in (the status reads the same on every path)', () => {
    const g = generationsOf({
      ...NO_OBJECTS,
      vrfs: [named<Vrf>('VRF', 'red', 1), named<Vrf>('VRF', 'blue', 2)],
      layer2Networks: [
        named<Layer2Network>('Layer2Network', 'net1', 3),
        named<Layer2Network>('Layer2Network', 'extra', 4),
        named<Layer2Network>('Layer2Network', 'l2-hbr', 5),
      ],
    });
    expect(Object.entries(g.vrfs)).toEqual([
      ['blue', 2],
      ['red', 1],
    ]);
    expect(Object.keys(g.layer2Networks)).toEqual(['extra', 'l2-hbr', 'net1']);
  });
});

describe('refreshUnchanged', () => {
  const l2 = (name: string, generation: number, vlan: number) =>
    ({
      kind: 'Layer2Network',
      metadata: { name, generation },
      spec: { vni: 2000 + vlan, vlan },
    }) as unknown as Layer2Network;

  it('takes the newer generation of an object whose spec is the same, keeps a changed or removed one as applied', () => {
    const applied = {
      ...NO_OBJECTS,
      layer2Networks: [l2('same', 1, 10), l2('changed', 1, 20), l2('gone', 1, 30)],
    };
    const wanted = {
      ...NO_OBJECTS,
      layer2Networks: [l2('same', 2, 10), l2('changed', 2, 21), l2('new', 2, 40)],
    };
    expect(generationsOf(refreshUnchanged(applied, wanted)).layer2Networks).toEqual({
      changed: 1,
      gone: 1,
      same: 2,
    });
  });
});
