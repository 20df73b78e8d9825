import { describe, expect, it } from 'vitest';
import { decodeLinkDump, decodeRouteDump, type ObservedState } from '@fabrik/netcore/netlink';
import {
  adoptFromNic,
  beginMigration,
  decideMigrations,
  isAutomaticRoute,
  planMove,
  type MigrationJournal,
} from './migration.js';

// The single-NIC planner against dumps shaped as iproute2 prints them (`ip -j -d addr show`,
// `ip -j -4/-6 route show table all`).

const MAC = '52:54:00:12:34:56';
interface AddrJson {
  family: 'inet' | 'inet6';
  local: string;
  prefixlen: number;
  scope?: string;
  nodad?: boolean;
  noprefixroute?: boolean;
}
const linkJson = (ifindex: number, ifname: string, addrs: AddrJson[], up = true) => ({
  ifindex,
  ifname,
  flags: up ? ['BROADCAST', 'UP', 'LOWER_UP'] : ['BROADCAST'],
  mtu: 1500,
  address: MAC,
  addr_info: addrs.map((a) => ({ scope: 'global', ...a })),
});
const v4 = (local: string, prefixlen = 24, extra: Partial<AddrJson> = {}): AddrJson => ({
  family: 'inet',
  local,
  prefixlen,
  ...extra,
});
const v6 = (local: string, prefixlen = 64, extra: Partial<AddrJson> = {}): AddrJson => ({
  family: 'inet6',
  local,
  prefixlen,
  ...extra,
});
const linkLocal = v6('fe80::5054:ff:fe12:3456', 64, { scope: 'link' });

function observed(
  links: ReturnType<typeof linkJson>[],
  routes4: Record<string, unknown>[],
  routes6: Record<string, unknown>[] = [],
): ObservedState {
  return {
    links: decodeLinkDump(JSON.stringify(links)),
    // As the kernel gives them: every IPv6 route carries a preference.
    routes: decodeRouteDump(JSON.stringify([...routes4, ...routes6.map((r) => ({ pref: 'medium', ...r }))])),
    neighbours: undefined,
    fdb: undefined,
    sysctls: undefined,
  };
}

/** A node before the move: eth0 holds everything. */
const before = observed(
  [
    linkJson(2, 'eth0', [
      v4('10.0.0.2'),
      v4('192.0.2.7', 24, { noprefixroute: true }),
      v6('fd00::2', 64, { nodad: true }),
      linkLocal,
    ]),
  ],
  [
    { dst: 'default', gateway: '10.0.0.1', dev: 'eth0', flags: [] },
    { dst: '10.0.0.0/24', dev: 'eth0', protocol: 'kernel', scope: 'link', prefsrc: '10.0.0.2', flags: [] },
    {
      dst: '192.0.2.0/24',
      dev: 'eth0',
      protocol: 'kernel',
      scope: 'link',
      prefsrc: '192.0.2.7',
      metric: 100,
      flags: [],
    },
    { dst: '203.0.113.128/25', gateway: '10.0.0.1', dev: 'eth0', table: '100', protocol: 'dhcp', flags: [] },
    { dst: '100.64.0.0/10', gateway: '172.31.1.1', dev: 'eth0', flags: ['onlink'] },
    {
      type: 'local',
      dst: '10.0.0.2',
      dev: 'eth0',
      table: 'local',
      protocol: 'kernel',
      scope: 'host',
      prefsrc: '10.0.0.2',
      flags: [],
    },
  ],
  [
    { dst: 'fd00::/64', dev: 'eth0', protocol: 'kernel', metric: 256, flags: [] },
    { dst: 'fe80::/64', dev: 'eth0', protocol: 'kernel', metric: 256, flags: [] },
    { dst: 'default', gateway: 'fd00::1', dev: 'eth0', metric: 1024, flags: [] },
    { dst: 'default', gateway: 'fe80::1', dev: 'eth0', protocol: 'ra', metric: 1024, flags: [] },
  ],
);

const journalAt = (step: MigrationJournal['step']): MigrationJournal => ({
  ...beginMigration('br-ex', before.links[0]!, before.routes!, new Date('2026-11-30T00:00:00Z')).journal,
  step,
});

describe('the single-NIC journal', () => {
  it("records the global addresses with their flags and the routes that are not the kernel's own", () => {
    const { journal, unsupported } = beginMigration(
      'br-ex',
      before.links[0]!,
      before.routes!,
      new Date('2026-11-30T00:00:00Z'),
    );
    expect(unsupported).toEqual([]);
    expect(journal).toMatchObject({
      bridge: 'br-ex',
      nic: 'eth0',
      mac: MAC,
      step: 'begin',
      startedAt: '2026-11-30T00:00:00.000Z',
    });
    expect(journal.addresses).toEqual([
      { address: '10.0.0.2/24' },
      { address: '192.0.2.7/24', noprefixroute: true },
      { address: 'fd00::2/64', nodad: true },
    ]);
    expect(journal.routes).toEqual([
      { dst: 'default', dev: 'eth0', via: '10.0.0.1', protocol: 3, family: 'inet' },
      // A network manager's prefix route (noprefixroute + its own metric) is the node's to keep.
      { dst: '192.0.2.0/24', dev: 'eth0', src: '192.0.2.7', metric: 100, protocol: 2, scope: 253 },
      { dst: '203.0.113.128/25', table: 100, dev: 'eth0', via: '10.0.0.1', protocol: 16 },
      { dst: '100.64.0.0/10', dev: 'eth0', via: '172.31.1.1', protocol: 3, onlink: true },
      { dst: 'default', dev: 'eth0', via: 'fd00::1', metric: 1024, protocol: 3, family: 'inet6' },
    ]);
  });

  it("tells the kernel's own routes apart", () => {
    const automatic = before
      .routes!.filter(isAutomaticRoute)
      .map((r) => `${r.dst} ${r.protocol} ${r.metric ?? ''}`);
    expect(automatic).toEqual([
      '10.0.0.0/24 kernel ',
      '10.0.0.2/32 kernel ',
      'fd00::/64 kernel 256',
      'fe80::/64 kernel 256',
      'default ra 1024',
    ]);
  });
});

describe('planMove', () => {
  it('moves to the bridge in the order that never leaves the node without a route: up, add, replace, delete', () => {
    const withBridge = observed(
      [
        linkJson(2, 'eth0', [
          v4('10.0.0.2'),
          v4('192.0.2.7', 24, { noprefixroute: true }),
          v6('fd00::2', 64, { nodad: true }),
          linkLocal,
        ]),
        linkJson(9, 'br-ex', [], false),
      ],
      [{ dst: 'default', gateway: '10.0.0.1', dev: 'eth0', flags: [] }],
      [{ dst: 'default', gateway: 'fd00::1', dev: 'eth0', metric: 1024, flags: [] }],
    );
    const ops = planMove(journalAt('bridged'), withBridge);
    expect(ops.map((o) => o.op)).toEqual([
      'linkSetUp',
      'addrAdd',
      'addrAdd',
      'addrAdd',
      'routeReplace',
      'routeReplace',
      'routeReplace',
      'routeReplace',
      'routeReplace',
      'addrDel',
      'addrDel',
      'addrDel',
    ]);
    expect(ops[1]).toEqual({ op: 'addrAdd', dev: 'br-ex', address: { address: '10.0.0.2/24' } });
    expect(ops[2]).toEqual({
      op: 'addrAdd',
      dev: 'br-ex',
      address: { address: '192.0.2.7/24', noprefixroute: true },
    });
    expect(ops[3]).toEqual({ op: 'addrAdd', dev: 'br-ex', address: { address: 'fd00::2/64', nodad: true } });
    expect(ops[4]).toMatchObject({
      op: 'routeReplace',
      route: { dst: 'default', dev: 'br-ex', via: '10.0.0.1', protocol: 3 },
    });
    expect(ops.at(-1)).toEqual({ op: 'addrDel', dev: 'eth0', address: { address: 'fd00::2/64' } });
  });

  it('plans nothing once the move is done, and restores the original flags on the way back', () => {
    const j = journalAt('moved');
    const after = observed(
      [
        linkJson(2, 'eth0', [linkLocal]),
        linkJson(9, 'br-ex', [
          v4('10.0.0.2'),
          v4('192.0.2.7', 24, { noprefixroute: true }),
          v6('fd00::2', 64, { nodad: true }),
          linkLocal,
        ]),
      ],
      [
        { dst: 'default', gateway: '10.0.0.1', dev: 'br-ex', flags: [] },
        {
          dst: '192.0.2.0/24',
          dev: 'br-ex',
          protocol: 'kernel',
          scope: 'link',
          prefsrc: '192.0.2.7',
          metric: 100,
          flags: [],
        },
        {
          dst: '203.0.113.128/25',
          gateway: '10.0.0.1',
          dev: 'br-ex',
          table: '100',
          protocol: 'dhcp',
          flags: [],
        },
        { dst: '100.64.0.0/10', gateway: '172.31.1.1', dev: 'br-ex', flags: ['onlink'] },
      ],
      [{ dst: 'default', gateway: 'fd00::1', dev: 'br-ex', metric: 1024, flags: [] }],
    );
    expect(planMove(j, after)).toEqual([]);
    const back = planMove(
      { ...j, step: 'unbridged' },
      { ...after, links: after.links.filter((l) => l.spec.name === 'eth0') },
    );
    expect(back.filter((o) => o.op === 'addrAdd')).toEqual([
      { op: 'addrAdd', dev: 'eth0', address: { address: '10.0.0.2/24' } },
      { op: 'addrAdd', dev: 'eth0', address: { address: '192.0.2.7/24', noprefixroute: true } },
      { op: 'addrAdd', dev: 'eth0', address: { address: 'fd00::2/64', nodad: true } },
    ]);
    expect(back.filter((o) => o.op === 'routeReplace')).toHaveLength(5);
    expect(back.some((o) => o.op === 'addrDel')).toBe(false); // the bridge is gone with its addresses
  });

  it('refuses to move onto a local port that does not exist yet', () => {
    expect(() => planMove(journalAt('bridged'), before)).toThrow(/br-ex does not exist/);
  });
});

describe('adoptFromNic', () => {
  it('takes what a network manager puts on the NIC into the journal, and nothing twice', () => {
    const j = journalAt('moved');
    const nm = observed(
      [
        linkJson(2, 'eth0', [v4('10.0.0.2'), v4('10.0.0.99'), linkLocal]),
        linkJson(9, 'br-ex', [v4('10.0.0.2')]),
      ],
      [
        { dst: 'default', gateway: '10.0.0.1', dev: 'br-ex', flags: [] },
        { dst: 'default', gateway: '10.0.0.1', dev: 'eth0', protocol: 'dhcp', metric: 100, flags: [] },
      ],
    );
    const { journal, adopted } = adoptFromNic(j, nm);
    expect(adopted).toEqual(['address 10.0.0.99/24', 'route default']);
    expect(journal.addresses.map((a) => a.address)).toContain('10.0.0.99/24');
    expect(journal.routes.at(-1)).toMatchObject({ dst: 'default', metric: 100, protocol: 16 });
    expect(adoptFromNic(journal, nm).adopted).toEqual([]);
    // The re-added address already in the journal goes off the NIC; the adopted route moves.
    const ops = planMove(journal, nm);
    expect(ops).toContainEqual({ op: 'addrDel', dev: 'eth0', address: { address: '10.0.0.2/24' } });
    expect(ops).toContainEqual(
      expect.objectContaining({
        op: 'routeReplace',
        route: expect.objectContaining({ metric: 100, dev: 'br-ex' }),
      }),
    );
  });
});

describe('decideMigrations', () => {
  const bridges = [{ name: 'br-ex', nics: ['eth0'] }];
  it('starts when a NIC holds addresses, follows a journal, and goes back when the NIC leaves the configuration', () => {
    expect(decideMigrations(bridges, new Map(), before).decisions).toEqual([
      expect.objectContaining({ kind: 'start', bridge: 'br-ex' }),
    ]);
    const j = journalAt('bridged');
    expect(decideMigrations(bridges, new Map([['br-ex', j]]), before).decisions).toEqual([
      { kind: 'forward', journal: j },
    ]);
    expect(
      decideMigrations([{ name: 'br-ex', nics: [] }], new Map([['br-ex', j]]), before).decisions,
    ).toEqual([{ kind: 'back', journal: j }]);
    expect(decideMigrations(bridges, new Map([['br-ex', j]]), before, { cleanup: true }).decisions).toEqual([
      { kind: 'back', journal: j },
    ]);
    // A restore that started finishes, even if the configuration wants the NIC again.
    const restoring = { ...j, step: 'restoring' as const };
    expect(decideMigrations(bridges, new Map([['br-ex', restoring]]), before)).toMatchObject({
      decisions: [{ kind: 'back', journal: restoring }],
      heldBack: new Set(['eth0']),
    });
  });

  it('holds back two NICs of one bridge that both hold addresses', () => {
    const two = observed(
      [
        linkJson(2, 'eth0', [v4('10.0.0.2')]),
        linkJson(3, 'eth1', [v4('10.1.0.2')]),
        linkJson(4, 'eth2', [linkLocal]),
      ],
      [],
    );
    const d = decideMigrations([{ name: 'br-ex', nics: ['eth0', 'eth1', 'eth2'] }], new Map(), two);
    expect(d.decisions).toEqual([]);
    expect(d.heldBack).toEqual(new Set(['eth0', 'eth1']));
    expect(d.problems).toEqual([expect.stringContaining('eth0 and eth1 each hold addresses')]);
  });
});
