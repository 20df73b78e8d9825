import { describe, expect, it } from 'vitest';
import { expectedL3Vnis } from '../config-text.js';
import { checkVniMapping, FrrReloadError } from './reload-errors.js';
import { vtyshApplyCommands } from './reload-plan.js';
import { reloadFrr } from './reload.js';

describe('L3 VNI verification', () => {
  const config =
    'frr defaults datacenter\n!\nvrf blue\n vni 1002\nexit-vrf\n!\nvrf red\n vni 1001\n ip route 10.0.0.0/8 blackhole\nexit-vrf\n!\nrouter bgp 1\n address-family l2vpn evpn\n  vni 5\n  exit-vni\n';
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

describe('which reloads skip frr-reload.py --reload', () => {
  // As a fresh FRR in a new namespace shows itself, and what frr-reload.py --test finds against it.
  const fresh = 'frr defaults datacenter\nhostname lab\nno ip forwarding\nno ipv6 forwarding\n!\nend\n';
  const newBgp = [
    { context: ['router bgp 65000'], line: 'bgp router-id 10.0.0.1' },
    { context: ['router bgp 65000'], line: 'no bgp default ipv4-unicast' },
  ];
  const forwardingRemovals = [
    { context: [], line: 'no ip forwarding' },
    { context: [], line: 'no ipv6 forwarding' },
  ];

  it('applies a first configuration with vtysh, forwarding turned on first', () => {
    expect(vtyshApplyCommands({ added: newBgp, removed: forwardingRemovals }, fresh)).toEqual([
      'ip forwarding',
      'ipv6 forwarding',
    ]);
    expect(vtyshApplyCommands({ added: newBgp, removed: [] }, fresh)).toEqual([]);
  });

  it('needs frr-reload.py for any other removal, or for a `no` line of a block that runs already', () => {
    const running = `${fresh}router bgp 65000\n bgp router-id 10.0.0.1\nexit\n`;
    expect(vtyshApplyCommands({ added: newBgp, removed: [] }, running)).toBeUndefined();
    const byHand = { context: [], line: 'no ip prefix-list BY-HAND seq 5 permit 10.0.0.0/8' };
    expect(vtyshApplyCommands({ added: [byHand], removed: [] }, fresh)).toBeUndefined();
    const removals = [
      [{ context: [], line: 'ip prefix-list X seq 5 permit 10.0.0.0/8' }],
      [{ context: ['router bgp 65000'], line: 'no ip forwarding' }],
      [{ context: [], line: 'no ipv4 forwarding' }],
    ];
    for (const removed of removals) expect(vtyshApplyCommands({ added: [], removed }, fresh)).toBeUndefined();
  });
});

describe('which removals vtysh makes without frr-reload.py', () => {
  const running =
    'router bgp 65000\n address-family l2vpn evpn\n  vni 2300\n   route-target import 65001:2300\n  exit-vni\n exit-address-family\nexit\n';
  const evpn = ['router bgp 65000', 'address-family l2vpn evpn'];
  const block = { context: evpn, line: 'vni 2300' };
  const inside = { context: [...evpn, 'vni 2300'], line: 'route-target import 65001:2300' };
  const noVni = [
    'router bgp 65000',
    'address-family l2vpn evpn',
    'no vni 2300',
    'exit-address-family',
    'exit',
  ];

  it('removes a whole vni block of the l2vpn evpn family with `no vni N`, as frr-reload.py and the text diff report it', () => {
    expect(vtyshApplyCommands({ added: [], removed: [block] }, running)).toEqual(noVni);
    expect(vtyshApplyCommands({ added: [], removed: [block, inside] }, running)).toEqual(noVni);
  });

  it('leaves a line of a block that stays, or a vni elsewhere, to frr-reload.py', () => {
    expect(vtyshApplyCommands({ added: [], removed: [inside] }, running)).toBeUndefined();
    for (const context of [
      ['router bgp 65000', 'address-family ipv4 unicast'],
      ['router bgp 65000 vrf red', 'address-family l2vpn evpn'],
      ['vrf red'],
    ])
      expect(
        vtyshApplyCommands({ added: [], removed: [{ context, line: 'vni 2300' }] }, running),
      ).toBeUndefined();
  });
});

describe('reloadFrr input checks', () => {
  it('rejects a pathspace that is not a plain name before writing anything', async () => {
    await expect(
      reloadFrr({ pathspace: '../etc', config: 'x\n', configDir: '/nonexistent-fabrik' }),
    ).rejects.toMatchObject({ code: 'INVALID_NETNS_NAME' });
  });
});

describe('FrrReloadError', () => {
  /** How deep `errors` nests, walked as loggers walk an AggregateError's (a cycle never ends). */
  const depth = (e: Error): number =>
    1 + Math.max(0, ...((e as { errors?: Error[] }).errors ?? []).map(depth));

  it('holds no cycle in errors: loggers serialize it', () => {
    const alone = new FrrReloadError('reload', 'line 7: % Unknown command', true);
    expect(alone.errors).toEqual([]);
    expect(depth(alone)).toBe(1);
    const both = new FrrReloadError(
      'reload',
      'line 7: % Unknown command',
      false,
      new Error('restore failed'),
    );
    expect(both.errors.map((e) => e.message)).toEqual([
      'frr-reload.py --reload failed: line 7: % Unknown command',
      'restore failed',
    ]);
    expect(depth(both)).toBe(2);
  });
});
