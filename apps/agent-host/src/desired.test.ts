import { describe, expect, it } from 'vitest';
import {
  parseAgentHostConfig,
  parseLayer2Network,
  type AgentHostConfig,
  type Layer2Network,
} from '@fabrik/api';
import { desiredHost, expandVlans, type BridgeMigration } from './desired.js';

const config = (input: Record<string, unknown>): AgentHostConfig => {
  const r = parseAgentHostConfig({ nodeName: 'n1', source: { kind: 'file', path: '/x.yaml' }, ...input });
  if (!r.ok) throw r.error;
  return r.value;
};
const l2 = (name: string, vlan: number, mtu = 1500): Layer2Network => {
  const r = parseLayer2Network({
    apiVersion: 'network.fabrik.dev/v1alpha1',
    kind: 'Layer2Network',
    metadata: { name, generation: 3 },
    spec: { vni: 2000 + vlan, vlan, mtu },
  });
  if (!r.ok) throw r.error;
  return r.value;
};
const none = { migrations: new Map<string, BridgeMigration>(), heldBack: new Set<string>(), trunkMtu: 9000 };

describe('desiredHost', () => {
  it('turns bridges into OVS bridges with uplinks trunking their allowed VLANs (all without a list)', () => {
    const d = desiredHost({
      ...none,
      config: config({
        datapathType: 'netdev',
        secondaryNetwork: {
          ovsBridges: [
            {
              bridgeName: 'br-sec',
              physicalInterfaces: [{ name: 'eth1', allowedVLANs: [300, '100-102'] }],
              enableMulticastSnooping: true,
            },
            { bridgeName: 'br-two', physicalInterfaces: ['eth2'] },
          ],
        },
      }),
      layer2Networks: [],
    });
    expect(d.ovs).toEqual({
      owner: 'agent-host',
      bridges: [
        {
          name: 'br-sec',
          datapathType: 'netdev',
          mcastSnooping: true,
          otherConfig: { hwaddr: null },
          ports: [{ name: 'eth1', type: 'system', tag: null, trunks: [100, 101, 102, 300], vlanMode: null }],
        },
        {
          name: 'br-two',
          datapathType: 'netdev',
          mcastSnooping: false,
          otherConfig: { hwaddr: null },
          ports: [{ name: 'eth2', type: 'system', tag: null, trunks: [], vlanMode: null }],
        },
      ],
    });
    expect(d.kernelVlans).toEqual([]);
  });

  it('attach: ovs puts the trunk on its bridge and one internal port tr.<vid> per network, with its MTU', () => {
    const d = desiredHost({
      ...none,
      config: config({
        secondaryNetwork: {
          ovsBridges: [
            { bridgeName: 'br-sec', physicalInterfaces: [{ name: 'eth1', allowedVLANs: ['300-399'] }] },
          ],
        },
        trunk: { hostInterface: 'tr-host', attach: 'ovs', bridge: 'br-sec' },
      }),
      layer2Networks: [l2('web', 200, 1400), l2('db', 100)],
    });
    expect(d.objectErrors).toEqual([]);
    expect(d.ovs.bridges[0]!.ports.map((p) => [p.name, p.type, p.tag, p.mtuRequest])).toEqual([
      ['eth1', 'system', null, undefined],
      ['tr-host', 'system', null, undefined],
      ['tr.100', 'internal', 100, 1500],
      ['tr.200', 'internal', 200, 1400],
    ]);
    expect(d.internalPortsUp).toEqual(['tr.100', 'tr.200']);
    expect(d.trunkVlans).toEqual([
      { vid: 100, name: 'tr.100', mtu: 1500, network: 'db', generation: 3 },
      { vid: 200, name: 'tr.200', mtu: 1400, network: 'web', generation: 3 },
    ]);
  });

  it('attach: kernel makes owned VLAN links on the trunk, and refuses an MTU the trunk cannot carry', () => {
    const d = desiredHost({
      ...none,
      trunkMtu: 1500,
      config: config({ trunk: { hostInterface: 'tr-host', attach: 'kernel' } }),
      layer2Networks: [l2('web', 200), l2('jumbo', 300, 9000)],
    });
    expect(d.kernelVlans).toEqual([
      {
        kind: 'vlan',
        name: 'tr.200',
        parent: 'tr-host',
        id: 200,
        mtu: 1500,
        up: true,
        alias: 'web',
        sysctls: { addrGenMode: 'none' },
      },
    ]);
    expect(d.objectErrors).toEqual([
      {
        kind: 'Layer2Network',
        name: 'jumbo',
        field: 'spec.mtu',
        message: '9000 exceeds the MTU 1500 of the trunk tr-host',
      },
    ]);
    expect(d.ovs.bridges).toEqual([]);
  });

  it("gives a single-NIC bridge the NIC's MAC, drops a NIC being moved back and NICs held back", () => {
    const cfg = config({
      secondaryNetwork: {
        ovsBridges: [
          { bridgeName: 'br-ex', physicalInterfaces: ['eth0'] },
          { bridgeName: 'br-3', physicalInterfaces: ['eth3'] },
        ],
      },
    });
    const attached = desiredHost({
      ...none,
      config: cfg,
      layer2Networks: [],
      migrations: new Map([
        ['br-ex', { bridge: 'br-ex', nic: 'eth0', mac: '52:54:00:12:34:56', state: 'attached' }],
      ]),
    });
    expect(attached.ovs.bridges[0]).toMatchObject({ otherConfig: { hwaddr: '52:54:00:12:34:56' } });
    expect(attached.ovs.bridges.map((b) => b.ports.map((p) => p.name))).toEqual([['eth0'], ['eth3']]);
    const back = desiredHost({
      ...none,
      config: cfg,
      layer2Networks: [],
      heldBack: new Set(['eth3']),
      migrations: new Map([
        ['br-ex', { bridge: 'br-ex', nic: 'eth0', mac: '52:54:00:12:34:56', state: 'detached' }],
      ]),
    });
    expect(back.ovs.bridges[0]).toMatchObject({ otherConfig: { hwaddr: null }, ports: [] });
    expect(back.ovs.bridges[1]).toMatchObject({ ports: [] });
  });

  it("refuses a Layer2Network whose VLAN an uplink of the trunk's bridge carries, naming both; carryLayer2Networks allows it", () => {
    const input = (uplink: Record<string, unknown>) => ({
      ...none,
      config: config({
        secondaryNetwork: { ovsBridges: [{ bridgeName: 'br-sec', physicalInterfaces: [uplink] }] },
        trunk: { hostInterface: 'tr-host', attach: 'ovs', bridge: 'br-sec' },
      }),
      layer2Networks: [l2('web', 150), l2('db', 300)],
    });
    const d = desiredHost(input({ name: 'eth1', allowedVLANs: ['100-299'] }));
    expect(d.objectErrors).toEqual([
      {
        kind: 'Layer2Network',
        name: 'web',
        field: 'spec.vlan',
        message: expect.stringMatching(
          /^VLAN 150 is also carried by uplink eth1 of bridge br-sec, which carries the trunk tr-host: .*loop/,
        ),
      },
    ]);
    // The uplink still trunks 100-299; the bridge has no port for VLAN 150 towards the trunk.
    expect(d.ovs.bridges[0]!.ports.map((p) => p.name)).toEqual(['eth1', 'tr-host', 'tr.300']);
    expect(d.trunkVlans.map((v) => v.network)).toEqual(['db']);

    const asked = desiredHost(input({ name: 'eth1', allowedVLANs: ['100-299'], carryLayer2Networks: true }));
    expect(asked.objectErrors).toEqual([]);
    expect(asked.trunkVlans.map((v) => v.network)).toEqual(['web', 'db']);
  });

  it('expands VLAN lists', () => {
    expect(expandVlans([7, '3-5', 4])).toEqual([3, 4, 5, 7]);
  });
});
