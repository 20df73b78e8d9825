import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  decodeDumps,
  decodeLinkDump,
  decodeRouteDump,
  formatPlan,
  isInvalidDesiredStateError,
  isOwnedBy,
  isOwnershipConflictError,
  observeScopeOf,
  plan,
  type DesiredLink,
  type DesiredState,
  type ObservedState,
  type RawDumps,
} from './index.js';
import { sysctlAssignments } from './objects.js';
import { sysctlPaths } from './observe.js';
import { unfilteredScopeOf } from './__fixtures__/scope.js';

// Planner golden tests. Inputs are REAL iproute2 dumps recorded by __fixtures__/record.ts on the
// host kernel (host-l2) and the lab kernel (lab-hbr). UPDATE_GOLDEN=1 rewrites the goldens.

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as T;

function observed(scenario: string, when: 'before' | 'after', desired: DesiredState): ObservedState {
  const dumps = readJson<Record<string, unknown>>(`${scenario}.${when}.dumps.json`);
  const raw = Object.fromEntries(
    Object.entries(dumps).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  ) as unknown as RawDumps;
  return decodeDumps(raw, unfilteredScopeOf(desired));
}

function golden(name: string, lines: readonly string[]): void {
  const file = join(fixtures, `${name}.plan.txt`);
  const text = `${lines.join('\n')}\n`;
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(file, text);
  expect(text).toBe(readFileSync(file, 'utf8'));
}

const edit = (
  d: DesiredState,
  links: (l: DesiredLink) => DesiredLink | undefined,
  extra: Partial<DesiredState> = {},
): DesiredState => ({
  ...d,
  links: d.links.map(links).filter((l): l is DesiredLink => l !== undefined),
  ...extra,
});

describe.each(['host-l2', 'lab-hbr'])('plan on recorded dumps: %s', (scenario) => {
  const desired = readJson<DesiredState>(`${scenario}.desired.json`);

  it('plans the cold apply: create, then enslave and up, then port flags, addresses, routes', () => {
    golden(`${scenario}.cold`, formatPlan(plan(desired, observed(scenario, 'before', desired))));
  });

  it('plans nothing for the applied state', () => {
    expect(plan(desired, observed(scenario, 'after', desired)).ops).toEqual([]);
  });

  it('marks an unmarked link it was creating when named in `adopt`, and only then', () => {
    const after = observed(scenario, 'after', desired);
    const target = after.links.find((l) => l.spec.name !== 'lo' && isOwnedBy(l.alias, desired.owner));
    expect(target).toBeDefined();
    const name = target?.spec.name ?? '';
    // Created, then killed before the line that marks it: the link has no ifalias.
    const cut = (alias: string | undefined) => ({
      ...after,
      links: after.links.map((l) => (l.spec.name === name ? { ...l, alias } : l)),
    });
    const conflict = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return isOwnershipConflictError(e);
      }
      return false;
    };
    expect(conflict(() => plan(desired, cut(undefined)))).toBe(true);
    expect(plan(desired, cut(undefined), { adopt: new Set([name]) }).ops).toEqual([
      { op: 'link-set', name, changes: { alias: target?.alias } },
    ]);
    // Someone else's alias is never taken over, journal or not.
    expect(conflict(() => plan(desired, cut('theirs'), { adopt: new Set([name]) }))).toBe(true);
  });

  it('never touches foreign links: a desired name held by one is a conflict', () => {
    const before = observed(scenario, 'before', desired);
    const foreign = before.links.find((l) => l.spec.name !== 'lo');
    expect(foreign).toBeDefined();
    const taken = {
      ...desired,
      links: [...desired.links, { kind: 'bridge' as const, name: foreign?.spec.name ?? '' }],
    };
    const err = (() => {
      try {
        plan(taken, before);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isOwnershipConflictError(err)).toBe(true);
    // With nothing desired, only owned links are deleted: none before applying.
    expect(plan({ owner: desired.owner, links: [] }, before).ops).toEqual([]);
  });

  it('deletes every owned link, stacked links first, when nothing is desired', () => {
    golden(
      `${scenario}.teardown`,
      formatPlan(plan({ owner: desired.owner, links: [], routes: [] }, observed(scenario, 'after', desired))),
    );
  });
});

describe('in-place changes (recorded dumps)', () => {
  it('host-l2: mtu, master, port flags, a removed macvlan, a removed route, an address change', () => {
    const desired = readJson<DesiredState>('host-l2.desired.json');
    const changed = edit(
      desired,
      (l) => {
        if (l.name === 'mv100') return undefined;
        if (l.name === 'br100')
          return { ...l, mtu: 1400, addresses: [{ address: '10.100.0.1/24' }, { address: '10.100.1.1/24' }] };
        if (l.name === 'vx100') return { ...l, mtu: 1400, master: 'br200' };
        return l;
      },
      { routes: desired.routes?.filter((r) => r.type === 'blackhole') },
    );
    const p = plan(changed, observed('host-l2', 'after', desired));
    expect(p.ops.filter((o) => o.op === 'link-add')).toEqual([]);
    golden('host-l2.change', formatPlan(p));
  });

  it('lab-hbr: moving an L2 network to another VRF and changing its MTU is link-set only', () => {
    const desired = readJson<DesiredState>('lab-hbr.desired.json');
    const moved = edit(desired, (l) =>
      l.name === 'br100'
        ? { ...l, master: 'blue', mtu: 1400 }
        : ['vx100', 'tr.100'].includes(l.name)
          ? { ...l, mtu: 1400 }
          : l,
    );
    const p = plan(moved, observed('lab-hbr', 'after', desired));
    expect(new Set(p.ops.map((o) => o.op))).toEqual(new Set(['link-set']));
    golden('lab-hbr.move', formatPlan(p));
  });

  it('lab-hbr: a VRF table cannot change in place: recreate it and enslave its bridge again', () => {
    const desired = readJson<DesiredState>('lab-hbr.desired.json');
    const retabled = edit(desired, (l) => (l.kind === 'vrf' && l.name === 'red' ? { ...l, table: 1003 } : l));
    golden('lab-hbr.retable', formatPlan(plan(retabled, observed('lab-hbr', 'after', desired))));
  });

  it("lab-hbr: with prune off, a phase of the state keeps the owner's other links", () => {
    const desired = readJson<DesiredState>('lab-hbr.desired.json');
    const phase = edit(desired, (l) => (l.kind === 'vrf' ? l : undefined), { routes: [] });
    const after = observed('lab-hbr', 'after', desired);
    expect(plan(phase, after, { prune: false }).ops).toEqual([]);
    expect(plan(phase, after).ops.filter((o) => o.op === 'link-del').length).toBeGreaterThan(0);
  });

  it('lab-hbr: recreating the trunk recreates the VLANs stacked on it', () => {
    const desired = readJson<DesiredState>('lab-hbr.desired.json');
    const p = plan(
      edit(desired, (l) => (l.name === 'tr' ? { kind: 'bridge', name: 'tr', up: true } : l)),
      observed('lab-hbr', 'after', desired),
    );
    const lines = formatPlan(p);
    expect(lines.indexOf('ip link del dev tr.100')).toBeLessThan(lines.indexOf('ip link del dev tr'));
    expect(lines.indexOf('ip link add name tr type bridge')).toBeLessThan(
      lines.indexOf('ip link add link tr name tr.100 mtu 1450 type vlan id 100'),
    );
    // Marked right after creation; enslaved, then up.
    expect(lines.indexOf('ip link set dev tr.100 alias fabrik:hbr')).toBe(
      lines.indexOf('ip link add link tr name tr.100 mtu 1450 type vlan id 100') + 1,
    );
    expect(lines.indexOf('ip link set dev tr.100 master br100')).toBeGreaterThan(
      lines.indexOf('ip link set dev tr up'),
    );
    expect(lines.indexOf('ip link set dev tr.100 up')).toBeGreaterThan(
      lines.indexOf('ip link set dev tr.100 master br100'),
    );
  });
});

describe('desired state validation', () => {
  const empty: ObservedState = {
    links: [],
    routes: [],
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
  const invalid = (d: unknown): unknown => {
    try {
      plan(d as DesiredState, empty);
    } catch (e) {
      return e;
    }
    return undefined;
  };
  it.each([
    [{ owner: 'x', links: [{ kind: 'vxlan', name: 'vx0', vni: 0 }] }, 'links[0].vni'],
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br-sixteen-chars' }] }, 'links[0].name'],
    [{ owner: 'x', links: [{ kind: 'vlan', name: 'tr.5000', parent: 'tr', id: 5000 }] }, 'links[0].id'],
    [{ owner: 'x', links: [{ kind: 'vrf', name: 'red', table: 254 }] }, 'links[0].table'],
    [
      {
        owner: 'x',
        links: [{ kind: 'bridge', name: 'br0', addresses: [{ address: '10.0.0.1/24', nodad: true }] }],
      },
      'links[0].addresses[0].nodad',
    ],
    [
      {
        owner: 'x',
        links: [
          { kind: 'bridge', name: 'br0' },
          { kind: 'bridge', name: 'br0' },
        ],
      },
      'links[1].name',
    ],
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br0', master: 'nope' }] }, 'links[0].master'],
    [{ owner: 'x', links: [{ kind: 'vlan', name: 'tr.5', parent: 'tr', id: 5 }] }, 'links[0].parent'],
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br0', port: { learning: false } }] }, 'links[0].port'],
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br0', alias: 'has space' }] }, 'links[0].alias'],
    [{ owner: 'x', links: [], routes: [{ dst: '10.0.0.0/24' }] }, 'routes[0].dev'],
    [
      {
        owner: 'x',
        links: [],
        neighbours: [{ dev: 'nope', address: '10.0.0.1', lladdr: '02:00:00:00:00:01' }],
      },
      'neighbours[0].dev',
    ],
    [{ owner: 'x', links: [], fdb: [{ dev: 'vx0', mac: '02:00:00:00:00:01' }] }, 'fdb[0].dev'],
    [{ owner: 'Bad Owner', links: [] }, 'owner'],
    // One MAC rule (@fabrik/api MacAddress): unicast, not all zero.
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br0', mac: '01:00:5e:00:00:01' }] }, 'links[0].mac'],
    [{ owner: 'x', links: [{ kind: 'bridge', name: 'br0', mac: '00:00:00:00:00:00' }] }, 'links[0].mac'],
    [
      { owner: 'x', links: [{ kind: 'veth', name: 'v0', peer: { name: 'v1', mac: 'ff:ff:ff:ff:ff:ff' } }] },
      'links[0].peer.mac',
    ],
    [
      {
        owner: 'x',
        links: [{ kind: 'bridge', name: 'br0' }],
        neighbours: [{ dev: 'br0', address: '10.0.0.1', lladdr: '00:00:00:00:00:00' }],
      },
      'neighbours[0].lladdr',
    ],
    [
      {
        owner: 'x',
        links: [{ kind: 'bridge', name: 'br0' }],
        fdb: [{ dev: 'br0', mac: '33:33:00:00:00:01' }],
      },
      'fdb[0].mac',
    ],
  ])('%j is rejected at %s', (d, path) => {
    const err = invalid(d);
    expect(isInvalidDesiredStateError(err)).toBe(true);
    expect(err).toMatchObject({ path });
  });
});

describe('MAC addresses', () => {
  it('are normalised to lower case, and the all-zero MAC is allowed as an FDB flood entry only', () => {
    const p = plan(
      {
        owner: 'x',
        links: [{ kind: 'vxlan', name: 'vx0', vni: 1, mac: '02:AA:BB:CC:DD:EE' }],
        fdb: [{ dev: 'vx0', mac: '00:00:00:00:00:00', dst: '192.0.2.2' }],
      },
      { links: [], routes: undefined, neighbours: undefined, fdb: [], sysctls: undefined },
    );
    expect(formatPlan(p)).toContain('ip link add name vx0 address 02:aa:bb:cc:dd:ee type vxlan id 1');
    expect(formatPlan(p)).toContain(
      'bridge fdb append 00:00:00:00:00:00 dev vx0 dst 192.0.2.2 self permanent',
    );
  });
});

describe('optional route attributes (mtu, advmss, scope)', () => {
  // As `ip -j -4 route show table all` prints a fabrik route with an mtu, an advmss and link scope.
  const observed: ObservedState = {
    links: [],
    routes: decodeRouteDump(
      '[{"dst":"10.8.0.0/24","gateway":"10.9.0.1","protocol":"249","scope":"link","metrics":[{"mtu":1400,"advmss":1360}],"flags":[]},{"dst":"10.7.0.0/24","gateway":"10.9.0.1","protocol":"249","flags":[]}]',
    ),
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
  const lines = (routes: DesiredState['routes']): string[] =>
    formatPlan(plan({ owner: 'x', links: [], routes }, observed));

  it('are decoded from the dump', () => {
    expect(observed.routes?.[0]).toMatchObject({ mtu: 1400, advmss: 1360, scope: 253 });
    expect(observed.routes?.[1]).toMatchObject({ mtu: undefined, advmss: undefined, scope: 0 });
  });
  it('converge when equal (names and numbers alike), and are left alone when not given', () => {
    expect(
      lines([
        { dst: '10.8.0.0/24', via: '10.9.0.1', mtu: 1400, advmss: 1360, scope: 'link' },
        { dst: '10.7.0.0/24', via: '10.9.0.1', scope: 'global' },
      ]),
    ).toEqual([]);
    expect(
      lines([
        { dst: '10.8.0.0/24', via: '10.9.0.1', scope: 253 },
        { dst: '10.7.0.0/24', via: '10.9.0.1' },
      ]),
    ).toEqual([]);
  });
  it('are replaced when they differ', () => {
    expect(
      lines([
        { dst: '10.8.0.0/24', via: '10.9.0.1', mtu: 1300 },
        { dst: '10.7.0.0/24', via: '10.9.0.1', advmss: 1000, scope: 'host' },
      ]),
    ).toEqual([
      'ip route replace 10.8.0.0/24 via 10.9.0.1 proto 249 mtu 1300',
      'ip route replace 10.7.0.0/24 via 10.9.0.1 proto 249 scope host advmss 1000',
    ]);
  });
});

describe('routes are keyed as the kernel keys them: table, destination, tos, metric', () => {
  type RouteJson = Record<string, unknown>;
  const route = (extra: RouteJson): RouteJson => ({
    dst: '10.8.0.0/24',
    gateway: '10.9.0.1',
    dev: 'eth0',
    protocol: '249',
    flags: [],
    ...extra,
  });
  const observedRoutes = (v4: RouteJson[], v6: RouteJson[] = []): ObservedState => ({
    links: [],
    // As the kernel gives them: every IPv6 route carries a preference.
    routes: decodeRouteDump(JSON.stringify([...v4, ...v6.map((r) => ({ pref: 'medium', ...r }))])),
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  });
  const lines = (routes: DesiredState['routes'], observed: ObservedState): string[] =>
    formatPlan(plan({ owner: 'x', links: [], routes }, observed));

  it('two routes to one destination with metrics 100 and 200 are two routes: applied, they plan nothing', () => {
    const both = observedRoutes([route({ metric: 100 }), route({ metric: 200 })]);
    const desired = [
      { dst: '10.8.0.0/24', via: '10.9.0.1', metric: 100 },
      { dst: '10.8.0.0/24', via: '10.9.0.1', metric: 200 },
    ];
    expect(lines(desired, both)).toEqual([]);
  });

  it.each([
    ['stale first', [route({ metric: 200 }), route({ metric: 100 })]],
    ['stale last', [route({ metric: 100 }), route({ metric: 200 })]],
  ])('deletes an owned route of another metric whatever the dump order (%s)', (_order, dump) => {
    expect(lines([{ dst: '10.8.0.0/24', via: '10.9.0.1', metric: 100 }], observedRoutes(dump))).toEqual([
      'ip route del 10.8.0.0/24 table 254 metric 200 proto 249',
    ]);
  });

  it('an unset metric is the kernel default: 0 for IPv4, 1024 for IPv6', () => {
    const observed = observedRoutes(
      [route({})],
      [{ dst: 'fd00:8::/64', gateway: 'fd00::1', dev: 'eth0', protocol: '249', metric: 1024, flags: [] }],
    );
    expect(
      lines(
        [
          { dst: '10.8.0.0/24', via: '10.9.0.1' },
          { dst: 'fd00:8::/64', via: 'fd00::1' },
        ],
        observed,
      ),
    ).toEqual([]);
  });

  it('a route with a tos is another route, and is deleted with its tos', () => {
    const observed = observedRoutes([route({}), route({ tos: '0x10' }), route({ tos: 'AF11', metric: 5 })]);
    expect(observed.routes?.map((r) => r.tos)).toEqual([0, 0x10, 0x28]);
    expect(lines([{ dst: '10.8.0.0/24', via: '10.9.0.1' }], observed)).toEqual([
      'ip route del 10.8.0.0/24 table 254 tos 0x10 proto 249',
      'ip route del 10.8.0.0/24 table 254 tos 0x28 metric 5 proto 249',
    ]);
    expect(lines([{ dst: '10.8.0.0/24', via: '10.9.0.1', tos: 0x10 }], observedRoutes([]))).toEqual([
      'ip route replace 10.8.0.0/24 via 10.9.0.1 tos 0x10 proto 249',
    ]);
  });

  it('refuses two desired routes with the same key (the kernel keeps one of them)', () => {
    const err = (() => {
      try {
        plan(
          {
            owner: 'x',
            links: [],
            routes: [
              { dst: '10.8.0.0/24', via: '10.9.0.1' },
              { dst: '10.8.0.0/24', via: '10.9.0.2', metric: 0, table: 254 },
            ],
          },
          observedRoutes([]),
        );
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isInvalidDesiredStateError(err)).toBe(true);
    expect(err).toMatchObject({ path: 'routes[1]' });
  });
});

describe('interface names that reach a sysctl path', () => {
  const empty: ObservedState = {
    links: [],
    routes: undefined,
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
  it.each(['all', 'default', 'lo'])('%j: a desired link with sysctls is refused at its name', (name) => {
    const err = (() => {
      try {
        plan({ owner: 'x', links: [{ kind: 'bridge', name, sysctls: { arpAccept: 1 } }] }, empty);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isInvalidDesiredStateError(err)).toBe(true);
    expect(err).toMatchObject({ path: 'links[0].name' });
  });
  it.each(['all', 'default', 'lo'])('%j: no sysctl assignment or path is ever made for it', (dev) => {
    expect(() => sysctlAssignments(dev, { arpNotify: 1 })).toThrow(/all.*default.*lo/);
    expect(() => sysctlPaths([dev])).toThrow(/all.*default.*lo/);
  });
});

describe('bridge vlan_filtering', () => {
  const bridge = decodeLinkDump(
    JSON.stringify([
      {
        ifindex: 3,
        ifname: 'br0',
        flags: ['UP'],
        mtu: 1500,
        ifalias: 'fabrik:x',
        linkinfo: { info_kind: 'bridge', info_data: { vlan_filtering: 0 } },
      },
    ]),
  );
  const observed: ObservedState = {
    links: bridge,
    routes: undefined,
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
  it('is changed in place, not by recreating the bridge', () => {
    const p = plan(
      { owner: 'x', links: [{ kind: 'bridge', name: 'br0', vlanFiltering: true, up: true }] },
      observed,
    );
    expect(formatPlan(p)).toEqual(['ip link set dev br0 type bridge vlan_filtering 1']);
  });
  it('plans nothing when it already has the desired value, or when none is desired', () => {
    expect(
      plan({ owner: 'x', links: [{ kind: 'bridge', name: 'br0', vlanFiltering: false, up: true }] }, observed)
        .ops,
    ).toEqual([]);
    expect(plan({ owner: 'x', links: [{ kind: 'bridge', name: 'br0', up: true }] }, observed).ops).toEqual(
      [],
    );
  });
});

describe('observeScopeOf', () => {
  it("asks for the routes of the plan's protocol only and the sysctls its links set only", () => {
    const desired: DesiredState = {
      owner: 't',
      links: [
        { kind: 'bridge', name: 'br1', sysctls: { addrGenMode: 'none' } },
        { kind: 'bridge', name: 'br2', sysctls: { arpAccept: 1 } },
        { kind: 'bridge', name: 'br3' },
      ],
      routes: [],
    };
    expect(observeScopeOf(desired)).toEqual({
      routes: true,
      routeProtocol: 249,
      neighbours: false,
      fdb: false,
      sysctlsOf: ['br1', 'br2'],
      sysctlKeys: ['addrGenMode', 'arpAccept'],
    });
    expect(observeScopeOf(desired, { routeProtocol: 77 }).routeProtocol).toBe(77);
    expect(observeScopeOf({ owner: 't', links: [] })).toEqual({
      routes: false,
      neighbours: false,
      fdb: false,
      sysctlsOf: [],
      sysctlKeys: [],
    });
  });
});
