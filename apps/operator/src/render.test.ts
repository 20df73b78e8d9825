import { describe, expect, it } from 'vitest';
import type { IntentObject } from '@fabrik/agent-runtime';
import { NODE_IDENTITY_ANNOTATIONS, parseNodeNetworkConfig } from '@fabrik/api';
import { OperatorConfig } from './config.js';
import { nodeNetworkConfigOf, renderCluster, type ClusterState } from './render.js';

const config = OperatorConfig.parse({
  identity: { routerIdPool: '10.255.0.0/24', vtepPool: '10.254.0.0/24', asn: 65000 },
  underlay: { trunkMtu: 9000 },
});

const object = (kind: string, name: string, spec: Record<string, unknown>): IntentObject => ({
  apiVersion: 'network.fabrik.dev/v1alpha1',
  kind,
  metadata: { name, generation: 3, creationTimestamp: '2026-12-01T10:00:00Z' } as IntentObject['metadata'],
  spec,
});

const objects: IntentObject[] = [
  object('VRF', 'red', { vni: 1001 }),
  object('Layer2Network', 'red-web', { vni: 2110, vlan: 110, vrf: 'red' }),
  object('Layer2Network', 'db', {
    vni: 2120,
    vlan: 120,
    nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } },
  }),
  object('Layer2Network', 'same-vni', { vni: 2110, vlan: 130 }),
  object('IPPool', 'web', {
    ipRanges: [{ cidr: '10.10.1.0/24' }],
    subnetInfo: { gateway: '10.10.1.1', prefixLength: 24, vlan: 110 },
  }),
];

const state = (nodes: ClusterState['nodes'], objs = objects): ClusterState => ({
  nodes,
  objects: objs,
  held: new Map(),
});

describe('renderCluster', () => {
  const [worker, control] = renderCluster(
    config,
    state([
      { name: 'worker-1', labels: { 'node-role.kubernetes.io/worker': '' }, annotations: {} },
      { name: 'control-1', labels: {}, annotations: { [NODE_IDENTITY_ANNOTATIONS.routerId]: '192.0.2.1' } },
    ]),
  ).sort((a, b) => (a.name < b.name ? 1 : -1));

  it('gives each node the objects its labels select, without nodeSelector, and the IPPool VLANs', () => {
    expect(worker!.spec.layer2Networks?.map((o) => o.name)).toEqual(['db', 'red-web']);
    expect(control!.spec.layer2Networks?.map((o) => o.name)).toEqual(['red-web']);
    expect(worker!.spec.layer2Networks?.[0]).toEqual({
      name: 'db',
      generation: 3,
      creationTimestamp: '2026-12-01T10:00:00Z',
      spec: { vni: 2120, vlan: 120 },
    });
    expect(worker!.spec.vrfs?.map((o) => o.name)).toEqual(['red']);
    expect(worker!.spec.ipPoolVlans).toEqual([{ ipPool: 'web', vlan: 110 }]);
    expect(worker!.spec.underlay).toEqual({ trunkMtu: 9000 });
  });

  it('leaves out an object in conflict, naming it and the field', () => {
    expect(worker!.spec.layer2Networks?.map((o) => o.name)).not.toContain('same-vni');
    expect(worker!.objectErrors.map((e) => [e.kind, e.name, e.field])).toEqual([
      ['Layer2Network', 'same-vni', 'spec.vni'],
    ]);
  });

  it('gives identities from the pools and the annotations', () => {
    expect(control!.spec.identity).toEqual({ asn: 65000, routerId: '192.0.2.1', vtepIp: '10.254.0.1' });
    expect(worker!.spec.identity).toEqual({ asn: 65000, routerId: '10.255.0.1', vtepIp: '10.254.0.2' });
  });

  it('renders objects the schema admits, with a revision that changes only with the content', () => {
    for (const r of [worker!, control!]) expect(parseNodeNetworkConfig(nodeNetworkConfigOf(r)).ok).toBe(true);
    const again = renderCluster(
      config,
      state(
        [{ name: 'worker-1', labels: { 'node-role.kubernetes.io/worker': '' }, annotations: {} }],
        [...objects].reverse(),
      ),
    )[0]!;
    expect(again.spec.identity).toEqual({ asn: 65000, routerId: '10.255.0.1', vtepIp: '10.254.0.1' });
    const changed = renderCluster(
      config,
      state(
        [{ name: 'worker-1', labels: { 'node-role.kubernetes.io/worker': '' }, annotations: {} }],
        [...objects, object('VRF', 'blue', { vni: 1002 })],
      ),
    )[0]!;
    expect(changed.spec.revision).not.toBe(again.spec.revision);
    const same = renderCluster(
      config,
      state(
        [{ name: 'worker-1', labels: { 'node-role.kubernetes.io/worker': '' }, annotations: {} }],
        objects,
      ),
    )[0]!;
    expect(same.spec.revision).toBe(again.spec.revision);
  });
});
