import { describe, expect, it } from 'vitest';
import { createTestNetns } from '@fabrik/testkit/vitest';
import { createRunner } from '../exec.js';
import { decodeDumps, dumpNamespace, type ObserveScope, type ObservedState } from '../observe.js';
import { observeNative } from './observe.js';
import { openSocketIn } from './namespace.js';

// Differential: the native observe of a namespace equals what iproute2 (`ip -j -d`, `bridge -j`,
// sysctl) reports of it, decoded by the same model code. Link kinds of the host kernel here
// (bridge, vxlan, veth, macvlan); vrf, vlan and dummy are compared in the lab (observe.lab.test.ts).

const scope: ObserveScope = {
  routes: true,
  neighbours: true,
  fdb: true,
  sysctlsOf: ['br0', 'vx4', 'va', 'nosuchlink'],
};

const byKey = <T>(xs: readonly T[] | undefined, key: (x: T) => string): T[] =>
  [...(xs ?? [])].sort((a, b) => key(a).localeCompare(key(b)));

/** Both observations in a comparable order (dumps of either source list objects in kernel order). */
function normalised(s: ObservedState) {
  return {
    links: byKey(s.links, (l) => String(l.ifindex).padStart(6, '0')).map((l) => ({
      ...l,
      addresses: byKey(l.addresses, (a) => a.address),
    })),
    routes: byKey(s.routes, (r) => JSON.stringify([r.table, r.dst, r.metric, r.type, r.dev, r.family])),
    // Only static entries: the kernel adds and resolves dynamic ones (the peer's IPv6 traffic)
    // between the two observations.
    neighbours: byKey(
      s.neighbours?.filter((n) => n.state.includes('permanent')),
      (n) => `${n.dev}|${n.address}`,
    ),
    fdb: byKey(s.fdb, (f) => `${f.dev}|${f.mac}|${f.dst ?? ''}|${f.flags.join(',')}`),
    sysctls: Object.fromEntries(s.sysctls ?? []),
  };
}

async function observeBoth(netns: string, sc: ObserveScope) {
  const viaIp = decodeDumps(await dumpNamespace(createRunner(netns), sc), sc);
  const sock = openSocketIn(netns);
  try {
    return { viaIp: normalised(viaIp), native: normalised(observeNative(sock, netns, sc)) };
  } finally {
    sock.close();
  }
}

describe('native observe equals ip -j -d (host kernel)', () => {
  it('bridge, vxlan (IPv4, IPv6, on a lower device), veth (peer here and in another netns), macvlan, ports, addresses, routes, neighbours, fdb', async () => {
    const ns = await createTestNetns('fabrik-nlobs-');
    const other = await createTestNetns('fabrik-nlobs-peer-');
    const ip = (...args: string[]) => ns.ip(...args);
    await ip('link', 'add', 'br0', 'mtu', '1450', 'type', 'bridge');
    await ip('link', 'set', 'br0', 'alias', 'fabrik:test:l2', 'up');
    await ip('link', 'add', 'va', 'type', 'veth', 'peer', 'name', 'vb');
    await ip('link', 'add', 'vc', 'type', 'veth', 'peer', 'name', 'vd', 'netns', other.name);
    await ip('link', 'set', 'va', 'address', '02:00:00:00:01:01', 'up');
    await ip('link', 'set', 'vb', 'up');
    await ip('addr', 'add', '192.0.2.1/24', 'dev', 'va');
    await ip('addr', 'add', '2001:db8::1/64', 'dev', 'va', 'nodad');
    await ip('addr', 'add', '198.51.100.1/24', 'dev', 'va', 'noprefixroute');
    await ip(
      'link',
      'add',
      'vx4',
      'type',
      'vxlan',
      'id',
      '100',
      'local',
      '192.0.2.1',
      'dstport',
      '4789',
      'nolearning',
      'dev',
      'va',
    );
    await ip(
      'link',
      'add',
      'vx6',
      'type',
      'vxlan',
      'id',
      '200',
      'local',
      '2001:db8::1',
      'group',
      'ff05::100',
      'dev',
      'va',
      'dstport',
      '4790',
    );
    await ip('link', 'add', 'vxr', 'type', 'vxlan', 'id', '300', 'remote', '192.0.2.9', 'dstport', '4789');
    await ip('link', 'set', 'vx4', 'master', 'br0', 'up');
    await ip('link', 'set', 'dev', 'vx4', 'type', 'bridge_slave', 'learning', 'off', 'neigh_suppress', 'on');
    await ip('link', 'set', 'vc', 'master', 'br0');
    await ip('link', 'set', 'dev', 'vc', 'type', 'bridge_slave', 'hairpin', 'on');
    await ip('link', 'add', 'link', 'vb', 'name', 'mv0', 'type', 'macvlan', 'mode', 'bridge');
    await ip('link', 'add', 'link', 'vb', 'name', 'mv1', 'type', 'macvlan', 'mode', 'private');
    await ip(
      'route',
      'add',
      '10.8.0.0/16',
      'via',
      '192.0.2.254',
      'dev',
      'va',
      'proto',
      '249',
      'mtu',
      '1400',
      'advmss',
      '1360',
    );
    await ip('route', 'add', 'unreachable', 'default', 'table', '1001', 'metric', '4278198272');
    await ip('route', 'add', 'blackhole', '10.9.0.0/16', 'table', '100', 'tos', '0x10');
    await ip('route', 'add', '10.10.0.1', 'via', '203.0.113.1', 'dev', 'va', 'onlink', 'src', '192.0.2.1');
    await ip('-6', 'route', 'add', 'default', 'via', '2001:db8::fe', 'dev', 'va', 'metric', '100');
    await ip('neigh', 'replace', '192.0.2.7', 'lladdr', '02:00:00:00:00:07', 'dev', 'va', 'nud', 'permanent');
    await ns.exec('bridge', [
      'fdb',
      'append',
      '00:00:00:00:00:00',
      'dev',
      'vx4',
      'dst',
      '192.0.2.20',
      'self',
      'permanent',
    ]);
    await ns.exec('bridge', ['fdb', 'replace', '02:00:00:00:00:33', 'dev', 'vc', 'master', 'static']);

    const { viaIp, native } = await observeBoth(ns.name, scope);
    expect(native.links.map((l) => l.spec.kind).sort()).toEqual(
      ['bridge', 'generic', 'macvlan', 'macvlan', 'veth', 'veth', 'veth', 'vxlan', 'vxlan', 'vxlan'].sort(),
    );
    // Each object type was found at all (equal empty lists would prove nothing).
    expect(native.routes.length).toBeGreaterThan(5);
    expect(native.neighbours.map((n) => n.address)).toContain('192.0.2.7');
    expect(native.fdb.map((f) => f.dst)).toContain('192.0.2.20');
    expect(Object.keys(native.sysctls).sort()).toEqual(['br0', 'va', 'vx4']);
    expect(native.links).toEqual(viaIp.links);
    expect(native.routes).toEqual(viaIp.routes);
    expect(native.neighbours).toEqual(viaIp.neighbours);
    expect(native.fdb).toEqual(viaIp.fdb);
    expect(native.sysctls).toEqual(viaIp.sysctls);

    const filtered: ObserveScope = { routes: true, routeProtocol: 249 };
    const f = await observeBoth(ns.name, filtered);
    expect(f.native.routes.map((r) => r.dst)).toEqual(['10.8.0.0/16']);
    expect(f.native.routes).toEqual(f.viaIp.routes);
  });
});
