import { describe, expect, it } from 'vitest';
import {
  diffConfigLines,
  expectedL3Vnis,
  frrMessage,
  newVrfBlocksOnly,
  droppedL3Vnis,
  l3VniReleaseCommands,
  parseReloadTest,
  splitConfigBlocks,
  withVrfBlocksOf,
} from './config-text.js';

describe('diffConfigLines', () => {
  const running = [
    'frr version 8.4.4',
    'frr defaults datacenter',
    'hostname node-a',
    'no ipv6 forwarding',
    'service integrated-vtysh-config',
    '!',
    'router bgp 65000',
    ' neighbor 192.0.2.2 password s3cret',
    ' !',
    ' address-family l2vpn evpn',
    '  advertise-all-vni',
    ' exit-address-family',
    'exit',
    '!',
    'end',
  ].join('\n');

  it('finds what a configuration adds, each line in its contexts, by indentation', () => {
    const config = [
      'frr defaults datacenter',
      'hostname node-a',
      '!',
      'vrf red',
      ' vni 1001',
      'exit-vrf',
      '!',
      'router bgp 65000',
      ' neighbor 192.0.2.2 password s3cret',
      ' !',
      ' address-family l2vpn evpn',
      '  advertise-all-vni',
      '  vni 2300',
      '   route-target import 65001:2300',
      '  exit-vni',
      ' exit-address-family',
      'exit',
      '!',
    ].join('\n');
    expect(diffConfigLines(running, config)).toEqual({
      added: [
        { context: [], line: 'vrf red' },
        { context: ['vrf red'], line: 'vni 1001' },
        { context: ['router bgp 65000', 'address-family l2vpn evpn'], line: 'vni 2300' },
        {
          context: ['router bgp 65000', 'address-family l2vpn evpn', 'vni 2300'],
          line: 'route-target import 65001:2300',
        },
      ],
      // frr version, service integrated-vtysh-config: lines frr-reload.py never removes.
      removed: [{ context: [], line: 'no ipv6 forwarding' }],
    });
  });

  it('tells lines apart by their contexts and reports changed values as removed and added, passwords redacted', () => {
    const config = [
      'hostname node-a',
      'router bgp 65000',
      ' neighbor 192.0.2.2 password other',
      ' address-family ipv4 unicast',
      '  advertise-all-vni',
      ' exit-address-family',
      'exit',
    ].join('\n');
    const { added, removed } = diffConfigLines(running, config);
    expect(added).toEqual([
      { context: ['router bgp 65000'], line: 'neighbor 192.0.2.2 password <redacted>' },
      { context: ['router bgp 65000'], line: 'address-family ipv4 unicast' },
      { context: ['router bgp 65000', 'address-family ipv4 unicast'], line: 'advertise-all-vni' },
    ]);
    expect(removed).toEqual([
      // frr defaults: never removed, even when the configuration lacks it.
      { context: [], line: 'no ipv6 forwarding' },
      { context: ['router bgp 65000'], line: 'neighbor 192.0.2.2 password <redacted>' },
      { context: ['router bgp 65000'], line: 'address-family l2vpn evpn' },
      { context: ['router bgp 65000', 'address-family l2vpn evpn'], line: 'advertise-all-vni' },
    ]);
  });

  it('finds nothing between a configuration and the same text as FRR prints it', () => {
    const config = running
      .split('\n')
      .filter((l) => !/^(frr version|service|no ipv6|end)/.test(l))
      .join('\n');
    expect(diffConfigLines(running.replace('no ipv6 forwarding\n', ''), config)).toEqual({
      added: [],
      removed: [],
    });
  });
});

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

describe('expectedL3Vnis', () => {
  const config =
    'frr defaults datacenter\n!\nvrf blue\n vni 1002\nexit-vrf\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nrouter bgp 1\n address-family l2vpn evpn\n  vni 5\n  exit-vni\n';
  it('finds the L3 VNI of every vrf block, not the L2 vni blocks', () => {
    expect(expectedL3Vnis(config)).toEqual([
      { vrf: 'blue', vni: 1002 },
      { vrf: 'red', vni: 1001 },
    ]);
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
  it('takes the L3 VNI off a vrf block the new config drops, before anything else', () => {
    // running: vrf red (vni 1001) and vrf old (vni 7); the new config keeps red only.
    const dropped = droppedL3Vnis(running, 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\n');
    expect(dropped).toEqual([{ vrf: 'old', vni: 7 }]);
    expect(l3VniReleaseCommands(dropped)).toBe('vrf old\n no vni 7\nexit-vrf\n!\n');
    expect(
      droppedL3Vnis(running, 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\nvrf old\nexit-vrf\n!\n'),
    ).toEqual([]);
    expect(droppedL3Vnis('hostname h\n!\nvrf plain\nexit-vrf\n!\n', 'hostname h\n!\n')).toEqual([]);
  });
  it('leaves a changed vrf block to frr-reload.py', () => {
    const config =
      'hostname h\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nvrf green\n vni 1003\nexit-vrf\n!\n';
    expect(newVrfBlocksOnly(running, config)).toBeNull();
    expect(newVrfBlocksOnly(running, 'hostname h\n!\nvrf red\n vni 1001\nexit-vrf\n!\n')).toBeNull();
  });
});
