import { describe, expect, it } from 'vitest';
import { batchOpArgs, type ObservedRoute } from '@fabrik/netcore/netlink';
import { podInterfaceOps, podRouteSpecs, routeIs, type PodAddress, type PodRoute } from './pod-interface.js';
import { CniError, CniErrorCode } from '@fabrik/cni-skel';

const lines = (addresses: readonly PodAddress[], routes: readonly PodRoute[]): string[] =>
  podInterfaceOps('net1', addresses, routes).map((op) => batchOpArgs(op).join(' '));

describe('podInterfaceOps', () => {
  it('adds addresses (IPv6 without DAD), brings the link up, then adds routes with the gateway of their family', () => {
    expect(
      lines(
        [
          { cidr: '10.0.0.5/24', gateway: '10.0.0.1' },
          { cidr: 'fd00::5/64', gateway: 'fd00::1' },
        ],
        [
          { dst: '10.8.0.0/16', mtu: 1400, advmss: 1360, priority: 7, table: 100, scope: 0 },
          { dst: '::/0' },
          { dst: '10.9.0.0/24', gw: '10.0.0.254', scope: 253 },
        ],
      ),
    ).toEqual([
      'addr add 10.0.0.5/24 dev net1',
      'addr add fd00::5/64 dev net1 nodad',
      'link set dev net1 up',
      'route add 10.8.0.0/16 via 10.0.0.1 dev net1 table 100 metric 7 scope 0 mtu 1400 advmss 1360',
      'route add ::/0 via fd00::1 dev net1',
      'route add 10.9.0.0/24 via 10.0.0.254 dev net1 scope 253',
    ]);
  });

  it('routes without a gateway of their family go to the device', () => {
    expect(lines([{ cidr: '10.0.0.5/24' }], [{ dst: '10.8.0.0/16' }])).toEqual([
      'addr add 10.0.0.5/24 dev net1',
      'link set dev net1 up',
      'route add 10.8.0.0/16 dev net1',
    ]);
  });

  it.each<[PodAddress[], PodRoute[], string]>([
    [[{ cidr: '10.0.0.5' }], [], 'ips[0].address "10.0.0.5"'],
    [[{ cidr: '10.0.0.5/24 dev lo' }], [], 'ips[0].address "10.0.0.5/24 dev lo"'],
    [
      [{ cidr: '10.0.0.5/24' }, { cidr: '10.0.1.5/24', gateway: '10.0.1.1 x' }],
      [],
      'ips[1].gateway "10.0.1.1 x"',
    ],
    [[{ cidr: '10.0.0.5/24' }], [{ dst: '10.8.0.0/16\nlink' }], 'routes[0].dst "10.8.0.0/16\\nlink"'],
    [
      [{ cidr: '10.0.0.5/24' }],
      [{ dst: '10.8.0.0/16' }, { dst: '10.9.0.0/16', gw: 'x' }],
      'routes[1].gw "x"',
    ],
    [[{ cidr: '10.0.0.5/24' }], [{ dst: '10.8.0.0/16', priority: -1 }], 'routes[0].priority -1'],
    [[{ cidr: '10.0.0.5/24' }], [{ dst: '10.8.0.0/16', mtu: 1e6 }], 'routes[0].mtu 1000000'],
    [[{ cidr: '10.0.0.5/24' }], [{ dst: '10.8.0.0/16', scope: 256 }], 'routes[0].scope 256'],
  ])('%j %j: a CNI error names %s', (addresses, routes, field) => {
    let err: unknown;
    try {
      podInterfaceOps('net1', addresses, routes);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CniError);
    expect(err).toMatchObject({ code: CniErrorCode.internal });
    expect((err as Error).message).toContain(`IPAM result: invalid ${field}`);
  });
});

describe('routeIs (what CHECK compares)', () => {
  // Only the fields a test changes; the rest are those of the route ADD adds.
  const observed = (
    patch: Pick<
      Partial<ObservedRoute>,
      'dst' | 'via' | 'table' | 'tos' | 'dev' | 'metric' | 'mtu' | 'advmss' | 'family'
    >,
  ): ObservedRoute => ({
    type: 'unicast',
    dst: '10.8.0.0/16',
    table: 254,
    tos: 0,
    protocol: 'boot',
    dev: 'net1',
    via: '10.0.0.1',
    src: undefined,
    metric: undefined,
    scope: 0,
    mtu: undefined,
    advmss: undefined,
    family: 'inet',
    ...patch,
  });
  const [want] = podRouteSpecs(
    'net1',
    [{ cidr: '10.0.0.5/24', gateway: '10.0.0.1' }],
    [{ dst: '10.8.0.0/16' }],
  );

  it('matches the route ADD adds, and not one with another gateway, table, device or destination', () => {
    expect(routeIs(want!, observed({}))).toBe(true);
    expect(routeIs(want!, observed({ via: '10.0.0.7' }))).toBe(false);
    expect(routeIs(want!, observed({ table: 100 }))).toBe(false);
    expect(routeIs(want!, observed({ dev: 'net2' }))).toBe(false);
    expect(routeIs(want!, observed({ dst: '10.8.0.0/24' }))).toBe(false);
    expect(routeIs(want!, observed({ tos: 0x10 }))).toBe(false);
  });

  it('compares metric, MTU and advmss only when the CNI route sets them', () => {
    const [full] = podRouteSpecs(
      'net1',
      [{ cidr: '10.0.0.5/24', gateway: '10.0.0.1' }],
      [{ dst: '10.8.0.0/16', priority: 7, mtu: 1400, advmss: 1360, table: 100 }],
    );
    expect(routeIs(want!, observed({ metric: 7, mtu: 1400 }))).toBe(true);
    expect(routeIs(full!, observed({ metric: 7, mtu: 1400, advmss: 1360, table: 100 }))).toBe(true);
    expect(routeIs(full!, observed({ metric: 8, mtu: 1400, advmss: 1360, table: 100 }))).toBe(false);
    expect(routeIs(full!, observed({ metric: 7, mtu: 1500, advmss: 1360, table: 100 }))).toBe(false);
  });

  it('reads default routes and host routes as the kernel prints them', () => {
    const [v4, v6, host] = podRouteSpecs(
      'net1',
      [
        { cidr: '10.0.0.5/24', gateway: '10.0.0.1' },
        { cidr: 'fd00::5/64', gateway: 'fd00::1' },
      ],
      [{ dst: '0.0.0.0/0' }, { dst: '::/0' }, { dst: '10.9.9.9/32' }],
    );
    expect(routeIs(v4!, observed({ dst: 'default' }))).toBe(true);
    expect(routeIs(v4!, observed({ dst: 'default', family: 'inet6', via: 'fd00::1' }))).toBe(false);
    expect(routeIs(v6!, observed({ dst: 'default', family: 'inet6', via: 'fd00::1' }))).toBe(true);
    expect(routeIs(host!, observed({ dst: '10.9.9.9/32' }))).toBe(true);
  });
});
