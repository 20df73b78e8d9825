import { describe, expect, it } from 'vitest';
import { API_VERSION, parseLayer2Network, parseVrf, type Layer2Network, type Vrf } from '@fabrik/api';
import { applyObjectByObject } from './isolate.js';
import { NO_OBJECTS, type NodeObjects } from './node-objects.js';

const l2 = (name: string, vni: number, mtu = 1500): Layer2Network => {
  const r = parseLayer2Network({
    apiVersion: API_VERSION,
    kind: 'Layer2Network',
    metadata: { name },
    spec: { vni, vlan: vni - 2000, mtu },
  });
  if (!r.ok) throw r.error;
  return r.value;
};
const vrf = (name: string, vni: number): Vrf => {
  const r = parseVrf({ apiVersion: API_VERSION, kind: 'VRF', metadata: { name }, spec: { vni } });
  if (!r.ok) throw r.error;
  return r.value;
};
const objects = (vrfs: Vrf[], layer2Networks: Layer2Network[]): NodeObjects => ({
  ...NO_OBJECTS,
  vrfs,
  layer2Networks,
});

/** A node whose trunk has MTU 1500: a set with a bigger MTU fails whole; what applied last is what it runs. */
function fakeNode() {
  let running: NodeObjects = NO_OBJECTS;
  return {
    running: () => running,
    attempt: async (o: NodeObjects) => {
      if (o.layer2Networks.some((l) => l.spec.mtu > 1500)) throw new Error('mtu greater than device maximum');
      running = o;
      return o.layer2Networks.length;
    },
  };
}
const names = (o: NodeObjects) => [...o.vrfs, ...o.layer2Networks].map((x) => x.metadata.name).sort();

describe('applyObjectByObject', () => {
  it('applies every change but the ones that fail on their own, which keep their last applied version', async () => {
    const node = fakeNode();
    const from = objects([vrf('red', 1001)], [l2('a', 2100), l2('b', 2101)]);
    await node.attempt(from);
    const to = objects(
      [vrf('red', 1001), vrf('blue', 1002)],
      [l2('a', 2100, 9000), l2('c', 2102), l2('d', 2103, 9000), l2('e', 2104), l2('f', 2105)],
    );
    const outcome = await applyObjectByObject(from, to, node.attempt, () => true);
    expect(outcome.failures.map((f) => f.key).sort()).toEqual(['Layer2Network/a', 'Layer2Network/d']);
    expect(String(outcome.failures[0]?.error)).toContain('mtu greater than device maximum');
    // b removed, blue, c, e, f added; a keeps MTU 1500; d stays away.
    expect(names(node.running())).toEqual(['a', 'blue', 'c', 'e', 'f', 'red']);
    expect(node.running().layer2Networks.find((l) => l.metadata.name === 'a')?.spec.mtu).toBe(1500);
    expect(outcome.applied).toEqual(node.running());
    expect(outcome.report).toBe(4);
  });

  it('applies everything in one go when nothing fails', async () => {
    const node = fakeNode();
    const to = objects([vrf('red', 1001)], [l2('a', 2100)]);
    const outcome = await applyObjectByObject(NO_OBJECTS, to, node.attempt, () => true);
    expect(outcome.failures).toEqual([]);
    expect(names(node.running())).toEqual(['a', 'red']);
  });

  it('throws what is not the objects’ fault, and what fails without any change', async () => {
    const unreachable = async () => {
      throw new Error('FRR unreachable');
    };
    const to = objects([], [l2('a', 2100)]);
    await expect(applyObjectByObject(NO_OBJECTS, to, unreachable, () => false)).rejects.toThrow(
      'FRR unreachable',
    );
    await expect(applyObjectByObject(to, to, unreachable, () => true)).rejects.toThrow('FRR unreachable');
  });
});
