import { describe, expect, it } from 'vitest';
import { expectedL3Vnis } from './config-text.js';
import { FrrReloadError, checkVniMapping, reloadFrr } from './reload.js';

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
