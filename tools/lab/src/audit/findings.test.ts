import { describe, expect, it } from 'vitest';
import {
  auditNode,
  formatAudit,
  linkKey,
  ovsRowKey,
  type NodeExpectation,
  type NodeInventory,
} from './findings.js';
import { auditIpPools } from './ippools.js';

const expectation = (over: Partial<NodeExpectation> = {}): NodeExpectation => ({
  links: new Map([
    [linkKey('hbr', 'br2100'), 'agent-netns'],
    [linkKey('host', 'fovs1'), 'cni-ovs'],
  ]),
  ovsRows: new Map([
    [ovsRowKey('Bridge', 'br-sec'), 'agent-host'],
    [ovsRowKey('Port', 'fovs1'), 'cni-ovs'],
  ]),
  frr: new Map([['hbr', { vrfs: new Set(['red']), vnis: new Set([1001, 2100]) }]]),
  files: new Set(['/cache/vlan100/c1/net1.json']),
  ...over,
});

const line = (context: string[], text: string, vrfs: string[] = [], vnis: number[] = []) => ({
  pathspace: 'hbr',
  context,
  line: text,
  vrfs,
  vnis,
});

const converged: NodeInventory = {
  links: [
    { netns: 'hbr', name: 'br2100', owner: 'agent-netns', label: 'l2vni2100' },
    { netns: 'host', name: 'fovs1', owner: 'cni-ovs' },
  ],
  ovsRows: [
    { table: 'Bridge', name: 'br-sec', owner: 'agent-host' },
    { table: 'Port', name: 'fovs1', owner: 'cni-ovs' },
  ],
  frrLines: [
    line([], 'hostname lab'),
    line([], 'vrf red', ['red']),
    line(['vrf red'], 'vni 1001', ['red'], [1001]),
    line(['router bgp 1', 'address-family l2vpn evpn'], 'vni 2100', [], [2100]),
  ],
  files: ['/cache/vlan100/c1/net1.json'],
};

describe('auditNode', () => {
  it('finds nothing on a node that holds exactly what its objects explain', () => {
    expect(auditNode(converged, expectation())).toEqual({ leaked: [], missing: [] });
  });

  it('reports what no object explains, in every area', () => {
    const inv: NodeInventory = {
      links: [...converged.links, { netns: 'hbr', name: 'br2300', owner: 'agent-netns', label: 'l2vni2300' }],
      ovsRows: [...converged.ovsRows, { table: 'Port', name: 'fovs9', owner: 'cni-ovs' }],
      frrLines: [
        ...converged.frrLines,
        line(['router bgp 1', 'address-family l2vpn evpn'], 'vni 2300', [], [2300]),
      ],
      files: [...converged.files, '/cache/vlan100/c9/net1.json'],
    };
    const { leaked, missing } = auditNode(inv, expectation());
    expect(missing).toEqual([]);
    expect(leaked).toEqual([
      { area: 'link', what: 'hbr/br2300 (agent-netns:l2vni2300)' },
      { area: 'ovs', what: 'Port/fovs9 (cni-ovs)' },
      { area: 'frr', what: 'hbr: router bgp 1 / address-family l2vpn evpn / vni 2300' },
      { area: 'file', what: '/cache/vlan100/c9/net1.json' },
    ]);
  });

  it('an optional VNI may be named or not; a VNI neither required nor optional is a leak', () => {
    const frr = new Map([
      ['hbr', { vrfs: new Set(['red']), vnis: new Set([1001]), optionalVnis: new Set([2100]) }],
    ]);
    const withoutBlock = { ...converged, frrLines: converged.frrLines.slice(0, 3) };
    expect(auditNode(converged, expectation({ frr }))).toEqual({ leaked: [], missing: [] });
    expect(auditNode(withoutBlock, expectation({ frr }))).toEqual({ leaked: [], missing: [] });
    const other = new Map([
      ['hbr', { vrfs: new Set(['red']), vnis: new Set([1001]), optionalVnis: new Set([2200]) }],
    ]);
    expect(auditNode(converged, expectation({ frr: other })).leaked).toEqual([
      { area: 'frr', what: 'hbr: router bgp 1 / address-family l2vpn evpn / vni 2100' },
    ]);
  });

  it('a row of the wrong fabrik owner is a leak, not an explained row', () => {
    const inv = {
      ...converged,
      ovsRows: [{ table: 'Bridge' as const, name: 'br-sec', owner: 'cni-ovs' }, converged.ovsRows[1]!],
    };
    expect(auditNode(inv, expectation()).leaked).toEqual([
      { area: 'ovs', what: 'Bridge/br-sec (cni-ovs, expected owner agent-host)' },
    ]);
  });

  it('reports what the objects ask for and the node lacks', () => {
    const empty: NodeInventory = { links: [], ovsRows: [], frrLines: [], files: [] };
    const { leaked, missing } = auditNode(empty, expectation());
    expect(leaked).toEqual([]);
    expect(missing.map((f) => f.what)).toEqual([
      'hbr/br2100 (agent-netns)',
      'host/fovs1 (cni-ovs)',
      'Bridge/br-sec (agent-host)',
      'Port/fovs1 (cni-ovs)',
      'hbr: vrf red',
      'hbr: vni 1001',
      'hbr: vni 2100',
      '/cache/vlan100/c1/net1.json',
    ]);
    expect(formatAudit({ leaked, missing }, 2)).toBe(
      [
        'missing (8):',
        '  link: hbr/br2100 (agent-netns)',
        '  link: host/fovs1 (cni-ovs)',
        '  ... and 6 more',
      ].join('\n'),
    );
  });

  it('FRR lines of an unknown pathspace are all leaks when they name a VRF or VNI', () => {
    const inv = { ...converged, frrLines: [{ ...line([], 'vrf red', ['red']), pathspace: 'other' }] };
    expect(auditNode(inv, expectation()).leaked).toEqual([{ area: 'frr', what: 'other: vrf red' }]);
  });
});

describe('auditIpPools', () => {
  const pool = (name: string, entries: [string, string, string][], used = entries.length) => ({
    metadata: { name },
    status: {
      ipAddresses: entries.map(([ipAddress, containerID, ifName]) => ({
        ipAddress,
        owner: { pod: { containerID, ifName } },
      })),
      usage: { used },
    },
  });

  it('every address of a live attachment and none else: consistent', () => {
    const result = auditIpPools(
      [pool('vlan100', [['10.0.0.10', 'c1', 'net1']]), pool('vlan200', [])],
      [{ containerId: 'c1', ifname: 'net1', pools: ['vlan100'] }],
    );
    expect(result).toEqual({ leaked: [], missing: [] });
  });

  it('an address whose attachment is gone, a duplicate owner and a wrong usage are leaks', () => {
    const { leaked } = auditIpPools(
      [
        pool(
          'vlan100',
          [
            ['10.0.0.10', 'c1', 'net1'],
            ['10.0.0.11', 'c1', 'net1'],
            ['10.0.0.12', 'gone', 'net1'],
          ],
          2,
        ),
      ],
      [{ containerId: 'c1', ifname: 'net1', pools: ['vlan100'] }],
    );
    expect(leaked.map((f) => f.what)).toEqual([
      'vlan100: 10.0.0.11 (c1/net1)',
      'vlan100: 10.0.0.12 (gone/net1)',
      'vlan100: usage.used 2 but 3 address(es) in status.ipAddresses',
    ]);
  });

  it('an attachment without its address, or with an unknown pool, is missing', () => {
    const { missing } = auditIpPools(
      [pool('vlan100', [])],
      [{ containerId: 'c1', ifname: 'net1', pools: ['vlan100', 'nope'] }],
    );
    expect(missing.map((f) => f.what)).toEqual([
      'vlan100: no address for c1/net1',
      'nope: no such pool for c1/net1',
    ]);
  });
});
