import { describe, expect, it } from 'vitest';
import { createTestNetns } from '@fabrik/testkit/vitest';
import { createNetlink } from './handle.js';
import type { DesiredState } from './desired.js';

// Both ends of a veth declared (one enslaved to a bridge, the other with an address), as
// agent-netns's vrf-ibgp mode does with a VRF (a bridge stands in for it: no vrf on the host kernel).
const pair: DesiredState = {
  owner: 'test',
  links: [
    { kind: 'bridge', name: 'b0', up: true },
    { kind: 'veth', name: 'va', peer: { name: 'vb' }, master: 'b0', up: true },
    { kind: 'veth', name: 'vb', peer: { name: 'va' }, up: true, addresses: [{ address: '10.66.0.1/24' }] },
  ],
};

describe('a veth pair with both ends declared (host kernel)', () => {
  it('converges, plans nothing once applied, and comes back after one end is deleted by hand', async () => {
    const ns = await createTestNetns('fabrik-veth-');
    const nl = createNetlink({ netns: ns.name });
    await nl.reconcile(pair);
    const links = async () => new Map((await nl.linkList()).map((l) => [l.spec.name, l]));
    const l = await links();
    expect(l.get('va')).toMatchObject({ alias: 'fabrik:test', spec: { master: 'b0', up: true } });
    expect(l.get('vb')).toMatchObject({ alias: 'fabrik:test', spec: { master: null, up: true } });
    expect(l.get('vb')?.addresses?.map((a) => a.address)).toContain('10.66.0.1/24');
    expect((await nl.reconcile(pair)).plan.ops).toEqual([]);
    await ns.ip('link', 'del', 'vb'); // takes va with it
    await nl.reconcile(pair);
    expect((await links()).get('va')?.spec.master).toBe('b0');
    expect((await nl.reconcile(pair)).plan.ops).toEqual([]);
  });
});
