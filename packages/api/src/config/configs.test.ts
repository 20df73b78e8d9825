import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseAgentHostConfig, physicalInterfaceName } from './agent-host-config.js';
import { parseAgentNetnsConfig } from './agent-netns-config.js';

const example = async (name: string) =>
  parse(
    await readFile(fileURLToPath(new URL(`../../../../examples/config/${name}`, import.meta.url)), 'utf8'),
  ) as unknown;

const pathsOf = (r: { ok: boolean; error?: { issues: readonly { path: string }[] } }) =>
  r.ok ? [] : (r.error?.issues.map((i) => i.path) ?? []);

describe('AgentNetnsConfig', () => {
  const minimal = { asn: 65001, routerId: '192.0.2.1', vtepIp: '192.0.2.1', source: { kind: 'kubernetes' } };

  it('parses the documented example', async () => {
    const r = parseAgentNetnsConfig(await example('agent-netns.yaml'));
    expect(r.ok ? [] : r.error.issues).toEqual([]);
  });
  it('fills every default', () => {
    const r = parseAgentNetnsConfig(minimal);
    expect(r.ok && r.value).toEqual({
      ...minimal,
      mode: 'netns',
      hbrVrf: 'hbr',
      trunk: 'tr',
      underlay: { neighbors: [] },
      frr: { reloadTimeoutMs: 30_000, vniWaitTimeoutMs: 10_000 },
      stateDir: '/var/lib/fabrik/agent-netns',
      metricsAddress: '127.0.0.1:9721',
      healthAddress: '127.0.0.1:9722',
      resyncSeconds: 300,
      statusHeartbeatSeconds: 20,
    });
  });
  it('names the field of every mistake, never echoing a password', () => {
    const r = parseAgentNetnsConfig({
      ...minimal,
      mode: 'evpn',
      routerId: '192.0.2.300',
      underlay: { neighbors: [{ remoteAs: 65000, password: 'secret pass' }] },
      frr: { reloadTimeoutMs: 10 },
      metricsAddress: 'localhost',
      unknownKey: 1,
    });
    expect(pathsOf(r).sort()).toEqual([
      'frr.reloadTimeoutMs',
      'metricsAddress',
      'mode',
      'routerId',
      'underlay.neighbors[0].address',
      'underlay.neighbors[0].password',
      'unknownKey',
    ]);
    expect(!r.ok && r.error.message).not.toContain('secret');
  });
  it("checks the rules between a neighbour's fields once every field is valid", () => {
    const neighbors = [
      { remoteAs: 65000 },
      { address: '192.0.2.2', interface: 'eth0', remoteAs: 'internal' },
    ];
    expect(pathsOf(parseAgentNetnsConfig({ ...minimal, underlay: { neighbors } }))).toEqual([
      'underlay.neighbors[0].address',
      'underlay.neighbors[1].address',
    ]);
  });
  it('takes statusFile only with a file source', () => {
    expect(pathsOf(parseAgentNetnsConfig({ ...minimal, statusFile: '/run/s.json' }))).toEqual(['statusFile']);
    expect(
      parseAgentNetnsConfig({
        ...minimal,
        source: { kind: 'file', path: '/run/i.yaml' },
        statusFile: '/run/s.json',
      }).ok,
    ).toBe(true);
    expect(
      pathsOf(parseAgentNetnsConfig({ ...minimal, metricsAddress: ':70000', healthAddress: '[::1]:1' })),
    ).toEqual(['metricsAddress']);
  });
  it('refuses a healthAddress that takes the metrics socket, also through every address', () => {
    const clash = (metricsAddress: string, healthAddress: string) =>
      pathsOf(parseAgentNetnsConfig({ ...minimal, metricsAddress, healthAddress }));
    expect(clash('127.0.0.1:9721', ':9721')).toEqual(['healthAddress']);
    expect(clash('[::]:9721', '[::1]:9721')).toEqual(['healthAddress']);
    expect(clash('127.0.0.1:9721', '127.0.0.1:9721')).toEqual(['healthAddress']);
    expect(clash('127.0.0.1:9721', '127.0.0.2:9721')).toEqual([]);
    expect(clash(':0', ':0')).toEqual([]);
  });
  it('requires the routing identity and the source', () => {
    expect(pathsOf(parseAgentNetnsConfig({})).sort()).toEqual(['asn', 'routerId', 'source', 'vtepIp']);
  });
});

describe('AgentHostConfig', () => {
  it('parses the documented example', async () => {
    const r = parseAgentHostConfig(await example('agent-host.yaml'));
    expect(r.ok ? [] : r.error.issues).toEqual([]);
    expect(
      r.ok && r.value.secondaryNetwork.ovsBridges.map((b) => b.physicalInterfaces.map(physicalInterfaceName)),
    ).toEqual([[], ['eth1']]);
  });
  it("still reads cni-ovs's files: an empty file and one with only secondaryNetwork", () => {
    expect(parseAgentHostConfig({}).ok).toBe(true);
    const r = parseAgentHostConfig({
      secondaryNetwork: {
        ovsBridges: [{ bridgeName: 'br-sec', physicalInterfaces: [] }, { bridgeName: 'br-other' }],
      },
    });
    expect(r.ok && r.value).toMatchObject({
      secondaryNetwork: {
        ovsBridges: [
          { bridgeName: 'br-sec', physicalInterfaces: [], enableMulticastSnooping: false },
          { bridgeName: 'br-other', physicalInterfaces: [], enableMulticastSnooping: false },
        ],
      },
      ovsdbSocket: 'unix:/var/run/openvswitch/db.sock',
      datapathType: 'system',
      source: { kind: 'kubernetes' },
      stateDir: '/var/lib/fabrik/agent-host',
    });
  });
  it('refuses what cannot work on one node, naming the field', () => {
    const r = parseAgentHostConfig({
      secondaryNetwork: {
        ovsBridges: [
          { bridgeName: 'br-a', physicalInterfaces: [{ name: 'eth2', allowedVLANs: ['300-200'] }] },
          { bridgeName: 'br-a', physicalInterfaces: [{ name: 'eth1', allowedVLANs: [100] }] },
        ],
      },
      trunk: { hostInterface: 'tr-host', attach: 'ovs', bridge: 'br-x' },
      relay: { intentFile: '/run/x', statusFile: '/run/x' },
      ovsdbSocket: '/var/run/openvswitch/db.sock',
      healthAddress: ':9731',
    });
    expect(pathsOf(r).sort()).toEqual([
      'healthAddress',
      'ovsdbSocket',
      'relay.statusFile',
      'secondaryNetwork.ovsBridges[0].physicalInterfaces[0].allowedVLANs[0]',
      'secondaryNetwork.ovsBridges[1].bridgeName',
      'trunk.bridge',
    ]);
  });
  it('refuses configurations that loop: two uplinks on a bridge, an uplink of every VLAN beside the trunk', () => {
    const two = parseAgentHostConfig({
      secondaryNetwork: { ovsBridges: [{ bridgeName: 'br-a', physicalInterfaces: ['eth1', 'eth2'] }] },
    });
    expect(!two.ok && two.error.issues).toEqual([
      {
        path: 'secondaryNetwork.ovsBridges[0].physicalInterfaces[1]',
        message: expect.stringMatching(/^a second uplink of bridge br-a \(after eth1\) would loop/),
      },
    ]);
    const withTrunk = (uplink: unknown) =>
      parseAgentHostConfig({
        secondaryNetwork: { ovsBridges: [{ bridgeName: 'br-sec', physicalInterfaces: [uplink] }] },
        trunk: { hostInterface: 'tr-host', attach: 'ovs', bridge: 'br-sec' },
      });
    const every = withTrunk('eth1');
    expect(!every.ok && every.error.issues).toEqual([
      {
        path: 'secondaryNetwork.ovsBridges[0].physicalInterfaces[0]',
        message: expect.stringMatching(
          /^"eth1" would carry every VLAN on bridge br-sec, which also carries the trunk tr-host/,
        ),
      },
    ]);
    expect(withTrunk({ name: 'eth1', allowedVLANs: ['100-299'] }).ok).toBe(true);
    expect(withTrunk({ name: 'eth1', carryLayer2Networks: true }).ok).toBe(true);
  });
  it('ties the trunk to a bridge only when it is attached to OVS', () => {
    const bridges = {
      ovsBridges: [{ bridgeName: 'br-sec', physicalInterfaces: [{ name: 'eth1', allowedVLANs: [100] }] }],
    };
    expect(
      pathsOf(
        parseAgentHostConfig({ secondaryNetwork: bridges, trunk: { hostInterface: 't', attach: 'ovs' } }),
      ),
    ).toEqual(['trunk.bridge']);
    expect(
      pathsOf(
        parseAgentHostConfig({ secondaryNetwork: bridges, trunk: { hostInterface: 't', bridge: 'br-sec' } }),
      ),
    ).toEqual(['trunk.bridge']);
    expect(
      pathsOf(parseAgentHostConfig({ secondaryNetwork: bridges, trunk: { hostInterface: 'eth1' } })),
    ).toEqual(['trunk.hostInterface']);
    expect(
      parseAgentHostConfig({
        secondaryNetwork: bridges,
        trunk: { hostInterface: 't', attach: 'ovs', bridge: 'br-sec' },
      }).ok,
    ).toBe(true);
  });
});
