import { describe, expect, it } from 'vitest';
import {
  checkVniMapping,
  expectedL3Vnis,
  frrMessage,
  parseReloadTest,
  reloadFrr,
  splitConfigBlocks,
  withVrfBlocksOf,
  newVrfBlocksOnly,
} from './reload.js';
import { parseFrrStatus } from './status.js';

describe('parseReloadTest', () => {
  it('reads both sections of frr-reload.py --test into context + line', () => {
    const out = [
      '',
      'Lines To Delete',
      '===============',
      'ip forwarding',
      'router bgp 65000',
      ' no neighbor 192.0.2.9 password old',
      '',
      'Lines To Add',
      '============',
      'router bgp 65000 vrf red',
      'router bgp 65000 vrf red',
      ' address-family ipv4 unicast',
      '  import vrf blue',
      'vrf red',
      ' vni 1001',
    ].join('\n');
    expect(parseReloadTest(out)).toEqual({
      removed: [
        { context: [], line: 'no ip forwarding' },
        { context: ['router bgp 65000'], line: 'neighbor 192.0.2.9 password <redacted>' },
      ],
      added: [
        { context: [], line: 'router bgp 65000 vrf red' },
        { context: ['router bgp 65000 vrf red', 'address-family ipv4 unicast'], line: 'import vrf blue' },
        { context: ['vrf red'], line: 'vni 1001' },
      ],
    });
  });
  it('reads no changes from an empty report', () => {
    expect(parseReloadTest('\nLines To Delete\n===============\n\nLines To Add\n============\n')).toEqual({
      added: [],
      removed: [],
    });
  });
});

describe('frrMessage', () => {
  it('keeps vtysh and warning lines, drops INFO dumps, redacts passwords', () => {
    const stdout = '% Configure the peer-group first\n% Configure the peer-group first\n';
    const stderr = [
      '2026-11-29 19:23:36,315  INFO: Executed "router bgp 65000  no neighbor 192.0.2.2 password s3cret"',
      " 'router bgp 65000\\n neighbor 192.0.2.2 password s3cret\\n',",
      'line 2: Failure to communicate[13] to bgpd, line:  neighbor 192.0.2.3 peer-group NOPE',
      '2026-11-29 19:23:36,378 \x1b[91mWARNING\x1b[0m: frr-reload.py failed due to',
      'vtysh (exec file) exited with status 13',
      '2026-11-29 19:23:36,378  INFO: Loading Config object from vtysh show running',
    ].join('\n');
    expect(frrMessage(stdout, stderr)).toBe(
      [
        '% Configure the peer-group first',
        'line 2: Failure to communicate[13] to bgpd, line:  neighbor 192.0.2.3 peer-group NOPE',
        'frr-reload.py failed due to',
        'vtysh (exec file) exited with status 13',
      ].join('\n'),
    );
  });
});

describe('L3 VNI verification', () => {
  const config =
    'frr defaults datacenter\n!\nvrf blue\n vni 1002\nexit-vrf\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nrouter bgp 1\n address-family l2vpn evpn\n  vni 5\n  exit-vni\n';
  it('finds the L3 VNI of every vrf block, not the L2 vni blocks', () => {
    expect(expectedL3Vnis(config)).toEqual([
      { vrf: 'blue', vni: 1002 },
      { vrf: 'red', vni: 1001 },
    ]);
  });
  it('reports VNIs that zebra maps elsewhere or not at all', () => {
    const shown = {
      vrfs: [
        { vrf: 'default', vni: 1001 },
        { vrf: 'blue', vni: 1002 },
      ],
    };
    expect(checkVniMapping(expectedL3Vnis(config), shown)).toEqual([
      { vrf: 'red', vni: 1001, actualVrf: 'default' },
    ]);
    expect(checkVniMapping(expectedL3Vnis(config), {})).toHaveLength(2);
  });
});

describe('parseFrrStatus', () => {
  it('decodes vtysh JSON (FRR 8.4 shapes)', () => {
    const status = parseFrrStatus({
      bgpSummary: {
        default: {
          ipv4Unicast: {
            as: 65000,
            peers: { '192.0.2.2': { remoteAs: 65001, state: 'Established', pfxRcd: 3 } },
          },
          l2VpnEvpn: { as: 65000, peers: { '192.0.2.2': { remoteAs: 0, state: 'Active' } } },
        },
        red: { ipv4Unicast: { as: 65000, peers: {} } },
      },
      evpnVni: {
        '2100': { vni: 2100, type: 'L2', vxlanIf: 'vx2100', numRemoteVteps: 1, tenantVrf: 'red' },
        '1001': { vni: 1001, type: 'L3', vxlanIf: 'None', tenantVrf: 'Unknown' },
      },
      vrfVni: { vrfs: [{ vrf: 'red', vni: 1001, vxlanIntf: 'None', state: 'Down' }] },
    });
    expect(status).toEqual({
      bgpSessions: [
        {
          vrf: 'default',
          addressFamily: 'ipv4Unicast',
          neighbor: '192.0.2.2',
          state: 'Established',
          remoteAs: 65001,
          prefixesReceived: 3,
        },
        {
          vrf: 'default',
          addressFamily: 'l2VpnEvpn',
          neighbor: '192.0.2.2',
          state: 'Active',
          remoteAs: 0,
          prefixesReceived: null,
        },
      ],
      evpnVnis: [
        { vni: 1001, type: 'L3', vxlanInterface: null, vrf: null, remoteVteps: null },
        { vni: 2100, type: 'L2', vxlanInterface: 'vx2100', vrf: 'red', remoteVteps: 1 },
      ],
      vrfVnis: [{ vrf: 'red', vni: 1001, state: 'Down', vxlanInterface: null }],
    });
  });
  it('accepts the empty output FRR prints without VNIs or VRFs', () => {
    expect(parseFrrStatus({ bgpSummary: {}, evpnVni: {}, vrfVni: {} })).toEqual({
      bgpSessions: [],
      evpnVnis: [],
      vrfVnis: [],
    });
  });
});

describe('two-pass apply', () => {
  const running =
    'frr version 8.4.4\nfrr defaults datacenter\nhostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\nvrf old\n vni 7\nexit-vrf\n!\nrouter bgp 1 vrf red\n !\n address-family ipv4 unicast\n  import vrf old\n exit-address-family\nexit\n!\nend\n';
  it('splits a configuration into top-level blocks', () => {
    expect(splitConfigBlocks(running)).toEqual([
      ['frr version 8.4.4'],
      ['frr defaults datacenter'],
      ['hostname h'],
      ['vrf red', ' vni 1001', 'exit-vrf'],
      ['vrf old', ' vni 7', 'exit-vrf'],
      [
        'router bgp 1 vrf red',
        ' !',
        ' address-family ipv4 unicast',
        '  import vrf old',
        ' exit-address-family',
        'exit',
      ],
    ]);
  });
  it('builds the vrf pass: running config with the new vrf blocks, old ones kept for the second pass', () => {
    const config =
      'frr defaults datacenter\nhostname h\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nvrf green\n vni 1003\nexit-vrf\n!\nrouter bgp 1 vrf green\nexit\n!\n';
    expect(withVrfBlocksOf(running, config)).toBe(
      [
        'frr version 8.4.4',
        'frr defaults datacenter',
        'hostname h',
        'router bgp 1 vrf red\n !\n address-family ipv4 unicast\n  import vrf old\n exit-address-family\nexit',
        'vrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf',
        'vrf green\n vni 1003\nexit-vrf',
        'vrf old\n vni 7\nexit-vrf',
      ].join('\n!\n') + '\n!\n',
    );
  });
  it('skips the vrf pass when every vrf block is running already', () => {
    expect(withVrfBlocksOf(running, 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\n')).toBeNull();
  });
  it('applies vrf blocks that are all new as plain additions', () => {
    const config = 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\nvrf green\n vni 1003\nexit-vrf\n!\n';
    expect(newVrfBlocksOnly(running, config)).toBe('vrf green\n vni 1003\nexit-vrf\n!\n');
  });
  it('leaves a changed vrf block to frr-reload.py', () => {
    const config =
      'hostname h\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nvrf green\n vni 1003\nexit-vrf\n!\n';
    expect(newVrfBlocksOnly(running, config)).toBeNull();
    expect(newVrfBlocksOnly(running, 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\n')).toBeNull();
  });
});

describe('reloadFrr input checks', () => {
  it('rejects a pathspace that is not a plain name before writing anything', async () => {
    await expect(
      reloadFrr({ pathspace: '../etc', config: 'x\n', configDir: '/nonexistent-fabrik' }),
    ).rejects.toMatchObject({ code: 'INVALID_NETNS_NAME' });
  });
});
