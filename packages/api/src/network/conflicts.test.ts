import { describe, expect, it } from 'vitest';
import {
  checkIntentConflicts,
  type BgpPeeringForConflicts,
  type Layer2NetworkForConflicts,
  type VrfForConflicts,
} from './conflicts.js';

const vrf = (
  name: string,
  vni: number,
  extra: Partial<VrfForConflicts['spec']> = {},
  created?: string,
): VrfForConflicts => ({
  metadata: { name, ...(created ? { creationTimestamp: created } : {}) },
  spec: { vni, ...extra },
});
const l2 = (
  name: string,
  vni: number,
  vlan: number,
  vrfName?: string,
  created?: string,
): Layer2NetworkForConflicts => ({
  metadata: { name, ...(created ? { creationTimestamp: created } : {}) },
  spec: { vni, vlan, mtu: 1500, neighSuppression: true, ...(vrfName ? { vrf: vrfName } : {}) },
});

const peering = (
  name: string,
  spec: Omit<BgpPeeringForConflicts['spec'], 'remoteAs'>,
  created?: string,
): BgpPeeringForConflicts => ({
  metadata: { name, ...(created ? { creationTimestamp: created } : {}) },
  spec: { remoteAs: 64512, ...spec },
});

describe('checkIntentConflicts', () => {
  it('finds nothing in a consistent intent (hbr needs no VRF object)', () => {
    expect(
      checkIntentConflicts([vrf('red', 1001)], [l2('a', 2100, 100, 'red'), l2('b', 2200, 200, 'hbr')]),
    ).toEqual([]);
  });

  it('gives a VNI to its oldest claimant, across VRFs and Layer2Networks', () => {
    const problems = checkIntentConflicts(
      [vrf('red', 1001, {}, '2026-11-30T10:00:00Z'), vrf('blue', 2100, {}, '2026-11-30T09:00:00Z')],
      [
        l2('web', 2100, 100, undefined, '2026-11-30T08:00:00Z'),
        l2('db', 1001, 101, undefined, '2026-11-30T11:00:00Z'),
      ],
    );
    expect(problems).toEqual([
      {
        kind: 'Layer2Network',
        name: 'db',
        field: 'spec.vni',
        message: 'VNI 1001 is already used by VRF red',
      },
      {
        kind: 'VRF',
        name: 'blue',
        field: 'spec.vni',
        message: 'VNI 2100 is already used by Layer2Network web',
      },
    ]);
  });

  it('orders claimants without a creation time (file source) after dated ones, then by name', () => {
    const problems = checkIntentConflicts(
      [],
      [l2('b', 2100, 100), l2('a', 2200, 100), l2('c', 2300, 100, undefined, '2026-11-30T12:00:00Z')],
    );
    expect(problems.map((p) => [p.name, p.message])).toEqual([
      ['a', 'VLAN 100 is already used by Layer2Network c'],
      ['b', 'VLAN 100 is already used by Layer2Network c'],
    ]);
  });

  it('compares creation times as times, not as text', () => {
    const problems = checkIntentConflicts(
      [],
      [
        l2('late', 2100, 100, undefined, '2026-11-30T10:00:00+02:00'),
        l2('early', 2200, 100, undefined, '2026-11-30T09:00:00Z'),
      ],
    );
    expect(problems.map((p) => p.name)).toEqual(['early']);
  });

  it('skips a Layer2Network whose VRF is missing or skipped itself, and VRFs importing them', () => {
    const problems = checkIntentConflicts(
      [
        vrf('red', 1001, {}, '2026-11-30T08:00:00Z'),
        vrf('blue', 1001, {}, '2026-11-30T09:00:00Z'),
        vrf('green', 1003, { importVrfs: ['blue', 'red'] }),
      ],
      [l2('a', 2100, 100, 'blue'), l2('b', 2200, 200, 'nope'), l2('c', 2300, 300, 'green')],
    );
    expect(problems).toEqual([
      { kind: 'Layer2Network', name: 'a', field: 'spec.vrf', message: 'VRF blue is skipped' },
      { kind: 'Layer2Network', name: 'b', field: 'spec.vrf', message: 'VRF nope does not exist' },
      { kind: 'Layer2Network', name: 'c', field: 'spec.vrf', message: 'VRF green is skipped' },
      { kind: 'VRF', name: 'blue', field: 'spec.vni', message: 'VNI 1001 is already used by VRF red' },
      { kind: 'VRF', name: 'green', field: 'spec.importVrfs[0]', message: 'VRF blue is skipped' },
    ]);
  });

  it("refuses a VRF object named like the node's hbr VRF, and a skipped object claims nothing", () => {
    const problems = checkIntentConflicts(
      [vrf('main', 1001)],
      [l2('a', 1001, 100), l2('b', 2000, 200, 'main')],
      {
        hbrVrf: 'main',
      },
    );
    // VRF main is skipped first, so Layer2Network a keeps VNI 1001; b may use the hbr VRF "main".
    expect(problems).toEqual([
      { kind: 'VRF', name: 'main', field: 'metadata.name', message: `"main" is the node's own VRF (hbrVrf)` },
    ]);
  });

  it('skips a BGPPeering whose VRF is missing, skipped, or the hbr VRF', () => {
    const problems = checkIntentConflicts(
      [vrf('red', 1001, {}, '2026-01-01T00:00:00Z'), vrf('blue', 1001, {}, '2026-01-02T00:00:00Z')],
      [],
      {
        bgpPeerings: [
          peering('ok', { vrf: 'red', address: '10.0.0.1' }),
          peering('to-blue', { vrf: 'blue', address: '10.0.0.1' }),
          peering('to-green', { vrf: 'green', address: '10.0.0.1' }),
          peering('to-hbr', { vrf: 'hbr', address: '10.0.0.1' }),
        ],
      },
    );
    expect(problems.filter((p) => p.kind === 'BGPPeering')).toEqual([
      { kind: 'BGPPeering', name: 'to-blue', field: 'spec.vrf', message: 'VRF blue is skipped' },
      { kind: 'BGPPeering', name: 'to-green', field: 'spec.vrf', message: 'VRF green does not exist' },
      {
        kind: 'BGPPeering',
        name: 'to-hbr',
        field: 'spec.vrf',
        message: `"hbr" is the node's own VRF (hbrVrf): name a VRF object`,
      },
    ]);
  });

  it('keeps a peer address or listen range with the older BGPPeering of a VRF', () => {
    const problems = checkIntentConflicts(
      [vrf('red', 1001, { addressFamilies: ['ipv4', 'ipv6'] }), vrf('blue', 1002)],
      [],
      {
        bgpPeerings: [
          peering('b-new', { vrf: 'red', address: 'fd00::0:1' }, '2026-01-02T00:00:00Z'),
          peering('a-old', { vrf: 'red', address: 'fd00::1' }, '2026-01-01T00:00:00Z'),
          peering('other-vrf', { vrf: 'blue', address: '10.0.0.1' }),
          peering('same-in-red', { vrf: 'red', address: '10.0.0.1' }),
          peering('range-wide', { vrf: 'red', listenRange: '10.1.0.0/16' }, '2026-01-01T00:00:00Z'),
          peering('range-inside', { vrf: 'red', listenRange: '10.1.2.0/24' }, '2026-01-02T00:00:00Z'),
          peering('range-apart', { vrf: 'red', listenRange: '10.2.0.0/16' }),
        ],
      },
    );
    expect(problems).toEqual([
      {
        kind: 'BGPPeering',
        name: 'b-new',
        field: 'spec.address',
        message: 'BGPPeering a-old already peers with fd00::0:1 in VRF red',
      },
      {
        kind: 'BGPPeering',
        name: 'range-inside',
        field: 'spec.listenRange',
        message: 'overlaps the listen range of BGPPeering range-wide in VRF red',
      },
    ]);
  });

  it('lets a VRF without addressFamilies carry ipv6 when its prefixes or gateways are IPv6', () => {
    const gateway = {
      ...l2('web', 2100, 100, 'green'),
      spec: { ...l2('web', 2100, 100, 'green').spec, anycastGateways: ['fd00:1::1/64'] },
    };
    const problems = checkIntentConflicts(
      [
        vrf('red', 1001, { import: [{ cidr: 'fd00::/8', action: 'permit' }] }),
        vrf('green', 1002),
        vrf('blue', 1003, { addressFamilies: ['ipv4'] }),
      ],
      [gateway],
      {
        bgpPeerings: [
          peering('in-red', { vrf: 'red', address: 'fd00::1' }),
          peering('in-green', { vrf: 'green', address: 'fd00::2' }),
          peering('in-blue', { vrf: 'blue', address: 'fd00::3' }),
        ],
      },
    );
    expect(problems.map((p) => p.name)).toEqual(['in-blue']);
  });

  it('skips a BGPPeering of an address family its VRF does not carry', () => {
    const problems = checkIntentConflicts([vrf('red', 1001)], [], {
      bgpPeerings: [
        peering('v6', { vrf: 'red', address: 'fd00::1' }),
        peering('v4-and-v6', { vrf: 'red', address: '10.0.0.1', addressFamilies: ['ipv4', 'ipv6'] }),
        peering('v4', { vrf: 'red', listenRange: '10.0.0.0/24' }),
      ],
    });
    expect(problems).toEqual([
      {
        kind: 'BGPPeering',
        name: 'v4-and-v6',
        field: 'spec.addressFamilies',
        message:
          'VRF red does not carry ipv6 (its spec.addressFamilies, or what its prefixes and gateways imply)',
      },
      {
        kind: 'BGPPeering',
        name: 'v6',
        field: 'spec.address',
        message:
          'VRF red does not carry ipv6 (its spec.addressFamilies, or what its prefixes and gateways imply)',
      },
    ]);
  });
});
