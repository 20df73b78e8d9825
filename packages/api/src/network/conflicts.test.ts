import { describe, expect, it } from 'vitest';
import { checkIntentConflicts, type Layer2NetworkForConflicts, type VrfForConflicts } from './conflicts.js';

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
});
