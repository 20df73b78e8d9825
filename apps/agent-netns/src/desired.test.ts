import { describe, expect, it } from 'vitest';
import { API_VERSION, AgentNetnsConfig } from '@fabrik/api';
import type { IntentObject, IntentSnapshot } from '@fabrik/agent-runtime';
import { desiredNode, type NodeIdentity } from './desired.js';
import { generationsOf } from './node-objects.js';

const identity: NodeIdentity = AgentNetnsConfig.parse({
  asn: 65000,
  routerId: '192.0.2.1',
  vtepIp: '192.0.2.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'internal' }] },
  source: { kind: 'file', path: '/run/fabrik/intent.yaml' },
});
const vrf = (name: string, spec: object, meta: object = {}): IntentObject => ({
  apiVersion: API_VERSION,
  kind: 'VRF',
  metadata: { name, ...meta },
  spec,
});
const l2 = (name: string, spec: object, meta: object = {}): IntentObject => ({
  apiVersion: API_VERSION,
  kind: 'Layer2Network',
  metadata: { name, ...meta },
  spec,
});
const snap = (objects: IntentObject[], extra: Partial<IntentSnapshot> = {}): IntentSnapshot => ({
  objects,
  problems: [],
  ...extra,
});

describe('desiredNode', () => {
  it("turns valid objects into the routing intent and the L2 networks' kernel details", () => {
    const d = desiredNode(
      identity,
      snap([
        vrf(
          'red',
          {
            vni: 1001,
            importVrfs: ['blue'],
            redistribute: { connected: true },
            staticRoutes: [{ prefix: '10.99.0.0/24', nextHop: '10.1.0.254' }],
          },
          { generation: 3 },
        ),
        vrf('blue', { vni: 1002 }),
        l2(
          'web',
          {
            vni: 2100,
            vlan: 100,
            vrf: 'red',
            anycastGateways: ['10.1.0.1/24'],
            anycastMac: '02:00:00:00:21:00',
          },
          { generation: 2 },
        ),
        l2('plain', { vni: 2200, vlan: 200, mtu: 9000, neighSuppression: false }),
      ]),
    );
    expect(d.objectErrors).toEqual([]);
    expect(d.intent.frr.vrfs.map((v) => v.name)).toEqual(['blue', 'red']);
    expect(d.intent.frr.vrfs[1]).toMatchObject({
      vni: 1001,
      importVrfs: ['blue'],
      redistribute: { connected: true, static: false },
      staticRoutes: [{ prefix: '10.99.0.0/24', nexthop: '10.1.0.254' }],
    });
    expect(d.intent.frr.layer2s).toEqual([
      { vni: 2200, vlan: 200, advertiseSviIp: false },
      { vni: 2100, vlan: 100, vrf: 'red', advertiseSviIp: false },
    ]);
    expect(d.intent.layer2.get(2100)).toEqual({
      mtu: 1500,
      neighSuppression: true,
      anycastGateways: ['10.1.0.1/24'],
      anycastMac: '02:00:00:00:21:00',
    });
    expect(d.intent.layer2.get(2200)).toEqual({ mtu: 9000, neighSuppression: false });
    expect(generationsOf(d.objects)).toEqual({
      vrfs: { blue: 0, red: 3 },
      layer2Networks: { plain: 0, web: 2 },
      bgpPeerings: {},
    });
  });

  it('skips an invalid object, naming its field, and applies the others', () => {
    const d = desiredNode(
      identity,
      snap([l2('bad', { vni: 2100, vlan: 5000 }), l2('good', { vni: 2200, vlan: 200 })]),
    );
    expect(d.objectErrors).toEqual([
      {
        kind: 'Layer2Network',
        name: 'bad',
        field: 'spec.vlan',
        message: expect.stringContaining('spec.vlan'),
      },
    ]);
    expect(d.intent.frr.layer2s.map((l) => l.vni)).toEqual([2200]);
    expect(generationsOf(d.objects).layer2Networks).toEqual({ good: 0 });
  });

  it("follows nodeSelectors against the node's labels; without node information every object counts", () => {
    const objects = [
      l2('here', { vni: 2100, vlan: 100, nodeSelector: { matchLabels: { rack: 'r1' } } }),
      l2('there', {
        vni: 2200,
        vlan: 200,
        nodeSelector: { matchExpressions: [{ key: 'rack', operator: 'NotIn', values: ['r1'] }] },
      }),
    ];
    const d = desiredNode(identity, snap(objects, { node: { name: 'n1', labels: { rack: 'r1' } } }));
    expect(d.intent.frr.layer2s.map((l) => l.vni)).toEqual([2100]);
    expect(d.notScheduled).toEqual(['Layer2Network there']);
    expect(desiredNode(identity, snap(objects)).intent.frr.layer2s).toHaveLength(2);
  });

  it('skips the newer of two objects that claim one VNI, and what names a missing VRF', () => {
    const d = desiredNode(
      identity,
      snap([
        vrf('red', { vni: 1001 }, { creationTimestamp: '2026-01-01T00:00:00Z' }),
        l2('late', { vni: 1001, vlan: 100 }, { creationTimestamp: '2026-02-01T00:00:00Z' }),
        l2('orphan', { vni: 2200, vlan: 200, vrf: 'green' }),
      ]),
    );
    expect(d.objectErrors).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'late', field: 'spec.vni' }),
      expect.objectContaining({ kind: 'Layer2Network', name: 'orphan', field: 'spec.vrf' }),
    ]);
    expect(d.intent.frr.vrfs.map((v) => v.name)).toEqual(['red']);
    expect(d.intent.frr.layer2s).toEqual([]);
  });

  it('skips a VRF the routing intent refuses (a route target it needs), naming the field, and the L2 networks in it', () => {
    // A 4-byte ASN and a VNI above 65535: the default route target ASN:VNI does not fit.
    const d = desiredNode(
      { ...identity, asn: 4_200_000_000 },
      snap([
        vrf('red', { vni: 70_000 }),
        l2('web', { vni: 2100, vlan: 100, vrf: 'red' }),
        l2('other', { vni: 2200, vlan: 200 }),
      ]),
    );
    expect(d.objectErrors).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'web', field: 'spec.vrf' }),
      expect.objectContaining({ kind: 'VRF', name: 'red', field: 'spec.routeTarget' }),
    ]);
    expect(d.intent.frr.vrfs).toEqual([]);
    expect(d.intent.frr.layer2s.map((l) => l.vni)).toEqual([2200]);
  });

  it('gives a VRF IPv6 when its rules, routes or gateways are IPv6, and names a refused rule as the object lists it', () => {
    const d = desiredNode(
      identity,
      snap([
        vrf('red', {
          vni: 1001,
          import: [
            { cidr: '10.0.0.0/8', seq: 20 },
            { cidr: 'fd00::/8', seq: 10 },
          ],
        }),
        vrf('blue', { vni: 1002 }),
        l2('v6', { vni: 2300, vlan: 300, vrf: 'blue', anycastGateways: ['fd00:300::1/64'] }),
      ]),
    );
    expect(d.objectErrors).toEqual([]);
    expect(d.intent.frr.vrfs.map((v) => [v.name, v.addressFamilies])).toEqual([
      ['blue', ['ipv4', 'ipv6']],
      ['red', ['ipv4', 'ipv6']],
    ]);
    const bad = desiredNode(
      identity,
      snap([
        vrf('red', {
          vni: 1001,
          import: [
            { cidr: '10.0.0.0/8', seq: 20 },
            { cidr: '10.1.0.0/16', le: 12, seq: 10 },
          ],
        }),
      ]),
    );
    expect(bad.objectErrors).toEqual([
      expect.objectContaining({
        kind: 'VRF',
        name: 'red',
        field: expect.stringMatching(/^spec\.import\[1\]/),
      }),
    ]);
  });

  it('puts prefix rules in seq order (the position when seq is absent)', () => {
    const d = desiredNode(
      identity,
      snap([
        vrf('red', {
          vni: 1001,
          export: [
            { cidr: '10.1.0.0/16' },
            { cidr: '10.2.0.0/16', seq: 1 },
            { cidr: '10.3.0.0/16', action: 'deny' },
          ],
        }),
      ]),
    );
    const exported = d.intent.frr.vrfs[0]?.export;
    expect(Array.isArray(exported) ? exported.map((r) => r.cidr) : exported).toEqual([
      '10.2.0.0/16',
      '10.1.0.0/16',
      '10.3.0.0/16',
    ]);
  });

  it('skips what only the template set refuses: vrf-ibgp cannot leak from an hbr VRF that is not a VRF object', () => {
    const d = desiredNode(
      { ...identity, mode: 'vrf-ibgp' },
      snap([vrf('red', { vni: 1001, importVrfs: ['hbr'] }), vrf('blue', { vni: 1002 })]),
    );
    expect(d.objectErrors).toEqual([
      expect.objectContaining({ kind: 'VRF', name: 'red', field: 'spec.importVrfs[0]' }),
    ]);
    expect(d.intent.frr.vrfs.map((v) => v.name)).toEqual(['blue']);
  });

  it('keeps the last applied version of an object that became invalid, and never drops it for that', () => {
    const before = desiredNode(
      identity,
      snap([
        vrf('red', { vni: 1001, import: [{ cidr: '10.1.0.0/16' }] }, { generation: 1 }),
        l2('web', { vni: 2100, vlan: 100, vrf: 'red' }, { generation: 1 }),
      ]),
    );
    const after = desiredNode(
      identity,
      snap([
        // Refused by the routing intent only (le below the prefix length), and by the schema.
        vrf('red', { vni: 1001, import: [{ cidr: '10.1.0.0/16', le: 12 }] }, { generation: 2 }),
        l2('web', { vni: 2100, vlan: 5000, vrf: 'red', futureKnob: 1 }, { generation: 2 }),
        l2('new', { vni: 2200, vlan: 5000 }, { generation: 1 }),
      ]),
      undefined,
      before.objects,
    );
    expect(after.intent).toEqual(before.intent);
    expect(generationsOf(after.objects)).toEqual({
      vrfs: { red: 1 },
      layer2Networks: { web: 1 },
      bgpPeerings: {},
    });
    expect(
      after.objectErrors.map((e) => [e.kind, e.name, /keeps its last applied state/.test(e.message)]),
    ).toEqual([
      ['Layer2Network', 'new', false],
      ['Layer2Network', 'web', true],
      ['VRF', 'red', true],
    ]);
  });

  it('applies an object without the fields it does not know, and reports them', () => {
    const d = desiredNode(identity, snap([l2('web', { vni: 2100, vlan: 100, futureKnob: 1 })]));
    expect(d.intent.frr.layer2s.map((l) => l.vni)).toEqual([2100]);
    expect(d.objectErrors).toEqual([]);
    expect(d.objectWarnings).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'web', field: 'spec.futureKnob' }),
    ]);
  });

  it('passes on what the source could not read', () => {
    const problems = [{ where: 'intent.yaml document 2', message: 'metadata.name: required (a string)' }];
    expect(desiredNode(identity, snap([], { problems })).sourceProblems).toEqual(problems);
  });
});

describe('desiredNode with the VRF fields of issue 18 and BGPPeerings', () => {
  const peering = (name: string, spec: object): IntentObject => ({
    apiVersion: API_VERSION,
    kind: 'BGPPeering',
    metadata: { name },
    spec,
  });
  const secrets = {
    where: 'namespace fabrik-system',
    get: (name: string) => (name === 'calico' ? { password: 's3cret' } : undefined),
    revision: (name: string) => (name === 'calico' ? '7' : undefined),
  };
  const objects = [
    vrf('red', {
      vni: 1001,
      importVrfs: ['blue'],
      importVrfFilters: [{ vrf: 'blue', filter: { items: [{ prefix: { cidr: '10.2.0.0/16' } }] } }],
      routeTargets: { import: ['65000:1', '65000:2'], export: ['65000:1'] },
      redistribute: { kernel: true },
      addressFamilies: ['ipv4', 'ipv6'],
    }),
    vrf('blue', { vni: 1002 }),
    peering('calico', {
      vrf: 'red',
      address: '10.1.0.2',
      remoteAs: 64512,
      passwordSecretRef: { name: 'calico' },
      holdTime: 9,
      keepaliveTime: 3,
      maxPrefixes: 100,
    }),
    peering('metallb', {
      vrf: 'red',
      listenRange: 'fd00:1::/64',
      remoteAs: 64513,
      passwordFile: '/etc/fabrik/metallb',
    }),
  ];

  it('maps route-target lists, leak filters, kernel routes, families and the peerings with their passwords', () => {
    const d = desiredNode(
      identity,
      snap(objects, { secrets }),
      new Map([['/etc/fabrik/metallb', 'from-file\n']]),
    );
    expect(d.objectErrors).toEqual([]);
    const red = d.intent.frr.vrfs.find((v) => v.name === 'red');
    expect(red).toMatchObject({
      routeTargets: { import: ['65000:1', '65000:2'], export: ['65000:1'] },
      importVrfs: [{ vrf: 'blue', filter: { items: [{ prefix: { cidr: '10.2.0.0/16' } }] } }],
      redistribute: { connected: false, static: false, kernel: true },
      addressFamilies: ['ipv4', 'ipv6'],
      bgpPeers: [
        {
          address: '10.1.0.2',
          remoteAs: 64512,
          password: 's3cret',
          timers: { keepalive: 3, hold: 9 },
          maxPrefixes: 100,
        },
        { listenRange: 'fd00:1::/64', remoteAs: 64513, password: 'from-file' },
      ],
    });
  });

  it('skips a peering whose password it cannot have, naming the field, and keeps the rest', () => {
    // No Secrets (a file source) and no password files read (a cluster source).
    const d = desiredNode(identity, snap(objects));
    expect(d.objectErrors.map((e) => [e.kind, e.name, e.field])).toEqual([
      ['BGPPeering', 'calico', 'spec.passwordSecretRef'],
      ['BGPPeering', 'metallb', 'spec.passwordFile'],
    ]);
    expect(d.intent.frr.vrfs.map((v) => [v.name, v.bgpPeers.length])).toEqual([
      ['blue', 0],
      ['red', 0],
    ]);
    expect(JSON.stringify(d)).not.toContain('s3cret');
  });
});
