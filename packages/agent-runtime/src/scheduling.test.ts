import { describe, expect, it } from 'vitest';
import type { IntentObject, IntentSnapshot } from './intent.js';
import { scheduleIntent } from './scheduling.js';

const API = 'network.fabrik.dev/v1alpha1';
const l2 = (name: string, spec: Record<string, unknown>, created?: string): IntentObject => ({
  apiVersion: API,
  kind: 'Layer2Network',
  metadata: { name, ...(created ? { creationTimestamp: created } : {}) } as IntentObject['metadata'],
  spec,
});
const vrf = (name: string, vni: number): IntentObject => ({
  apiVersion: API,
  kind: 'VRF',
  metadata: { name },
  spec: { vni },
});
const peering = (name: string, spec: Record<string, unknown>): IntentObject => ({
  apiVersion: API,
  kind: 'BGPPeering',
  metadata: { name },
  spec: { remoteAs: 64512, ...spec },
});
const snapshot = (objects: IntentObject[], labels?: Record<string, string>): IntentSnapshot => ({
  objects,
  problems: [],
  ...(labels ? { node: { name: 'node-a', labels } } : {}),
});

describe('scheduleIntent', () => {
  it('keeps valid objects whose nodeSelector matches the node, and lists the others as not scheduled', () => {
    const s = scheduleIntent(
      snapshot(
        [
          l2('web', { vni: 2100, vlan: 100, vrf: 'red' }),
          l2('db', { vni: 2200, vlan: 200, nodeSelector: { matchLabels: { rack: 'b' } } }),
          vrf('red', 1001),
          l2('any', {
            vni: 2300,
            vlan: 300,
            nodeSelector: { matchExpressions: [{ key: 'rack', operator: 'In', values: ['a', 'c'] }] },
          }),
        ],
        { rack: 'a' },
      ),
    );
    expect(s.layer2Networks.map((l) => l.metadata.name)).toEqual(['any', 'web']);
    expect(s.layer2Networks[1]?.spec.mtu).toBe(1500); // defaults applied
    expect(s.vrfs.map((v) => v.metadata.name)).toEqual(['red']);
    expect(s.notScheduled).toEqual(['Layer2Network db']);
    expect(s.objectErrors).toEqual([]);
  });

  it('skips invalid objects, bad selectors and conflicts with the field named; the older object keeps a VLAN', () => {
    const s = scheduleIntent(
      snapshot(
        [
          l2('too-big', { vni: 2100, vlan: 5000 }),
          l2('bad-selector', {
            vni: 2200,
            vlan: 200,
            nodeSelector: { matchExpressions: [{ key: 'rack', operator: 'In' }] },
          }),
          l2('first', { vni: 2300, vlan: 300 }, '2026-01-01T00:00:00Z'),
          l2('second', { vni: 2400, vlan: 300 }, '2026-02-01T00:00:00Z'),
          l2('orphan', { vni: 2500, vlan: 500, vrf: 'missing' }),
        ],
        {},
      ),
    );
    expect(s.layer2Networks.map((l) => l.metadata.name)).toEqual(['first']);
    expect(s.objectErrors.map(({ name, field }) => ({ name, field }))).toEqual([
      { name: 'bad-selector', field: expect.stringMatching(/^spec\.nodeSelector/) },
      { name: 'orphan', field: 'spec.vrf' },
      { name: 'second', field: 'spec.vlan' },
      { name: 'too-big', field: 'spec.vlan' },
    ]);
  });

  it('schedules every valid object when the source knows no node (a file a relay already filtered)', () => {
    const s = scheduleIntent(
      snapshot([l2('db', { vni: 2200, vlan: 200, nodeSelector: { matchLabels: { rack: 'b' } } })]),
    );
    expect(s.layer2Networks.map((l) => l.metadata.name)).toEqual(['db']);
    expect(s.notScheduled).toEqual([]);
  });

  it('schedules BGPPeerings like the other kinds and skips those whose VRF is missing or skipped', () => {
    const s = scheduleIntent(
      snapshot(
        [
          vrf('red', 1001),
          peering('metallb', { vrf: 'red', listenRange: '10.10.1.0/24' }),
          peering('elsewhere', {
            vrf: 'red',
            address: '10.10.1.5',
            nodeSelector: { matchLabels: { rack: 'b' } },
          }),
          peering('no-vrf', { vrf: 'blue', address: '10.10.1.6' }),
          peering('plain-password', { vrf: 'red', address: '10.10.1.7', password: 'x' }),
        ],
        { rack: 'a' },
      ),
    );
    // `password` is no field of BGPPeering: dropped and reported, as any field of a newer version.
    expect(s.bgpPeerings.map((p) => p.metadata.name)).toEqual(['metallb', 'plain-password']);
    expect(s.notScheduled).toEqual(['BGPPeering elsewhere']);
    expect(s.objectErrors.map(({ kind, name, field }) => ({ kind, name, field }))).toEqual([
      { kind: 'BGPPeering', name: 'no-vrf', field: 'spec.vrf' },
    ]);
    expect(s.objectWarnings.map(({ kind, name, field }) => ({ kind, name, field }))).toEqual([
      { kind: 'BGPPeering', name: 'plain-password', field: 'spec.password' },
    ]);
  });

  it('schedules an object without the fields a newer API version added, and reports them', () => {
    const s = scheduleIntent(snapshot([l2('web', { vni: 2100, vlan: 100, futureKnob: 'on' })]));
    expect(s.layer2Networks.map((l) => l.spec)).toEqual([
      { vni: 2100, vlan: 100, mtu: 1500, neighSuppression: true },
    ]);
    expect(s.objectErrors).toEqual([]);
    expect(s.objectWarnings).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'web', field: 'spec.futureKnob' }),
    ]);
  });

  it('keeps the last applied version of an object edited into an invalid or conflicting state', () => {
    const applied = scheduleIntent(
      snapshot([
        l2('web', { vni: 2100, vlan: 100 }, '2026-01-01T00:00:00Z'),
        l2('db', { vni: 2200, vlan: 200 }, '2026-01-02T00:00:00Z'),
        l2('app', { vni: 2300, vlan: 300 }, '2026-01-03T00:00:00Z'),
      ]),
    );
    const lastApplied = new Map(applied.layer2Networks.map((l) => [`Layer2Network/${l.metadata.name}`, l]));
    const s = scheduleIntent(
      snapshot([
        l2('web', { vni: 2100, vlan: 5000 }, '2026-01-01T00:00:00Z'), // invalid now
        l2('db', { vni: 2200, vlan: 100 }, '2026-01-02T00:00:00Z'), // takes web's VLAN
        l2('new', { vni: 2400, vlan: 4095 }), // invalid, never applied
      ]),
      { lastApplied },
    );
    // app was deleted: it goes; web and db stay as they were applied; new is skipped.
    expect(s.layer2Networks.map((l) => [l.metadata.name, l.spec.vlan])).toEqual([
      ['db', 200],
      ['web', 100],
    ]);
    expect(s.objectErrors.map(({ name, field, message }) => ({ name, field, message }))).toEqual([
      { name: 'db', field: 'spec.vlan', message: expect.stringMatching(/keeps its last applied state\)$/) },
      { name: 'new', field: 'spec.vlan', message: expect.not.stringContaining('keeps') },
      { name: 'web', field: 'spec.vlan', message: expect.stringMatching(/keeps its last applied state\)$/) },
    ]);
  });
});
