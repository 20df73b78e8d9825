import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTempNetns,
  startFrr,
  startOvs,
  type FrrInstance,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';
import { auditNode, linkKey, ovsRowKey } from './findings.js';
import { takeNodeInventory } from './inventory.js';

// The inventory read from real parts: a netns with marked and unmarked links, Open vSwitch with
// owned and foreign rows, FRR with a VRF and an EVPN VNI, and a cache directory.

let ns: TempNetns;
let ovs: OvsInstance;
let frr: FrrInstance;
let dir: string;

beforeAll(async () => {
  ns = await createTempNetns('fla-');
  dir = await mkdtemp(join(tmpdir(), 'fabrik-audit-'));
  await ns.ip('link', 'add', 'br100', 'type', 'bridge');
  await ns.ip('link', 'set', 'br100', 'alias', 'fabrik:agent-netns:l2vni100');
  await ns.ip('link', 'add', 'br200', 'type', 'bridge');
  await ns.ip('link', 'set', 'br200', 'alias', 'fabrik:agent-netns');
  await ns.ip('link', 'add', 'mine', 'type', 'bridge'); // no mark: not fabrik's
  await ns.ip('link', 'add', 'theirs', 'type', 'bridge');
  await ns.ip('link', 'set', 'theirs', 'alias', 'operator: do not touch');
  ovs = await startOvs({ netns: ns.name });
  await ovs.vsctl(
    '--no-wait',
    'add-br',
    'br-sec',
    '--',
    'set',
    'bridge',
    'br-sec',
    'datapath_type=netdev',
    'external_ids:fabrik-owner=agent-host',
  );
  await ovs.vsctl(
    '--no-wait',
    'add-port',
    'br-sec',
    'p1',
    '--',
    'set',
    'port',
    'p1',
    'external_ids:fabrik-owner=cni-ovs',
  );
  await ovs.vsctl('--no-wait', 'add-port', 'br-sec', 'p2'); // foreign
  frr = await startFrr({
    netns: ns.name,
    config: [
      'frr defaults datacenter',
      '!',
      'vrf red',
      ' vni 1001',
      'exit-vrf',
      '!',
      'router bgp 65000 vrf red',
      ' address-family ipv4 unicast',
      '  redistribute connected',
      ' exit-address-family',
      'exit',
      '!',
    ].join('\n'),
  });
  await mkdir(join(dir, 'vlan100', 'c1'), { recursive: true });
  await writeFile(join(dir, 'vlan100', 'c1', 'net1.json'), '{}');
}, 60_000);

afterAll(async () => {
  await frr?.stop();
  await ovs?.stop();
  await ns?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('takeNodeInventory', () => {
  it('lists what carries fabrik marks, and nothing else', async () => {
    const inv = await takeNodeInventory({
      netns: [ns.name],
      ovsdb: ovs.endpoint,
      frrPathspaces: [ns.name],
      dirs: [dir, join(dir, 'absent')],
    });
    expect(inv.links).toEqual([
      { netns: ns.name, name: 'br100', owner: 'agent-netns', label: 'l2vni100' },
      { netns: ns.name, name: 'br200', owner: 'agent-netns' },
    ]);
    expect(inv.ovsRows).toEqual([
      { table: 'Bridge', name: 'br-sec', owner: 'agent-host' },
      { table: 'Port', name: 'p1', owner: 'cni-ovs' },
    ]);
    expect(inv.files).toEqual([join(dir, 'vlan100', 'c1', 'net1.json')]);
    const named = inv.frrLines.filter((l) => l.vrfs.length + l.vnis.length > 0);
    expect(named.map((l) => [l.line, l.vrfs, l.vnis])).toEqual([
      ['vrf red', ['red'], []],
      ['vni 1001', ['red'], [1001]],
      ['router bgp 65000 vrf red', ['red'], []],
      ['address-family ipv4 unicast', ['red'], []],
      ['redistribute connected', ['red'], []],
    ]);

    // Explained by objects that ask for exactly br100, the bridge, p1 and VRF red without its
    // VNI: br200, the line of VNI 1001 and the cache file are leaks.
    const result = auditNode(inv, {
      links: new Map([[linkKey(ns.name, 'br100'), 'agent-netns']]),
      ovsRows: new Map([
        [ovsRowKey('Bridge', 'br-sec'), 'agent-host'],
        [ovsRowKey('Port', 'p1'), 'cni-ovs'],
      ]),
      frr: new Map([[ns.name, { vrfs: new Set(['red']), vnis: new Set() }]]),
      files: new Set(),
    });
    expect(result.missing).toEqual([]);
    expect(result.leaked.map((f) => f.area)).toEqual(['link', 'frr', 'file']);
  });
});
