import { describe, expect, it } from 'vitest';
import { FrrIntentError, parseFrrIntent } from './parse.js';
import type { FrrIntentInput } from './schema.js';

// Issue 19: inputs the renderer accepted that FRR refuses or misreads. Each is refused with the
// path of the field (and nothing is echoed back, passwords least of all).
const base: FrrIntentInput = { asn: 65000, routerId: '10.0.0.1', vtepIp: '10.0.0.1' };

function issuesOf(input: unknown): string[] {
  try {
    parseFrrIntent(input);
  } catch (e) {
    expect(e).toBeInstanceOf(FrrIntentError);
    return (e as FrrIntentError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('the intent was accepted');
}
const withPassword = (password: string) => ({
  ...base,
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external', password }] },
});

describe('passwords: printable ASCII, at most 80 bytes', () => {
  it.each([
    ['a NUL', 'ab\u0000cd'],
    ['a control character', 'ab\u0007cd'],
    ['DEL', 'ab\u007fcd'],
    ['a lone surrogate', 'ab\ud800cd'],
    ['80 characters of 2 bytes (160 bytes)', 'é'.repeat(80)],
    ['81 ASCII characters', 'a'.repeat(81)],
    ['a space', 'a b'],
  ])('refuses %s', (_, password) => {
    const issues = issuesOf(withPassword(password));
    expect(issues).toEqual([
      'underlay.neighbors[0].password: must be 1-80 printable ASCII characters without spaces',
    ]);
    expect(issues.join()).not.toContain(password);
  });
  it('accepts 80 printable ASCII characters, FRR-special ones included', () => {
    expect(() => parseFrrIntent(withPassword(`!#?${'x'.repeat(77)}`))).not.toThrow();
  });
});

describe('what bgpd refuses or misreads', () => {
  it('refuses /32 and /128 aggregates', () => {
    expect(
      issuesOf({
        ...base,
        vrfs: [
          {
            name: 'red',
            vni: 1,
            addressFamilies: ['ipv4', 'ipv6'],
            aggregates: ['10.0.0.1/32', '2001:db8::1/128'],
          },
        ],
      }),
    ).toEqual([
      expect.stringMatching(/^vrfs\[0\]\.aggregates\[0\]: .*shorter than \/32/),
      expect.stringMatching(/^vrfs\[0\]\.aggregates\[1\]: .*shorter than \/32 \(IPv4\) or \/128 \(IPv6\)/),
    ]);
  });
  it.each(['route-map', 'default', 'all', '.', '..'])(
    'refuses the VRF name %s wherever a VRF is named',
    (name) => {
      const issues = issuesOf({
        ...base,
        hbrVrf: name,
        vrfs: [
          { name, vni: 1 },
          { name: 'red', vni: 2, importVrfs: [name] },
        ],
        layer2s: [{ vni: 3, vlan: 3, vrf: name }],
      });
      for (const path of ['hbrVrf', 'vrfs[0].name', 'vrfs[1].importVrfs[0]', 'layer2s[0].vrf'])
        expect(issues.some((i) => i.startsWith(`${path}: must be 1-15 characters`))).toBe(true);
    },
  );
  it('refuses an interface neighbor named like an IPv4 address', () => {
    expect(
      issuesOf({ ...base, underlay: { neighbors: [{ interface: '10.0.0.1', remoteAs: 'external' }] } }),
    ).toEqual([
      expect.stringMatching(/^underlay\.neighbors\[0\]\.interface: .*does not look like an IPv4 address/),
    ]);
    expect(() =>
      parseFrrIntent({ ...base, underlay: { neighbors: [{ interface: '10.0.0', remoteAs: 'external' }] } }),
    ).not.toThrow();
  });
  it('refuses IPv4-mapped IPv6 neighbor addresses (write the IPv4 address)', () => {
    expect(
      issuesOf({ ...base, underlay: { neighbors: [{ address: '::ffff:1.2.3.4', remoteAs: 'external' }] } }),
    ).toEqual([expect.stringMatching(/^underlay\.neighbors\[0\]\.address: /)]);
  });
});

describe('duplicates', () => {
  it('refuses two underlay neighbors with one address (any spelling) or one interface', () => {
    expect(
      issuesOf({
        ...base,
        underlay: {
          neighbors: [
            { address: '2001:db8::2', remoteAs: 'external' },
            { address: '2001:DB8:0:0::2', remoteAs: 65001 },
            { interface: 'eth1', remoteAs: 'external' },
            { interface: 'eth1', remoteAs: 'internal' },
          ],
        },
      }),
    ).toEqual([
      'underlay.neighbors[1].address: the same neighbor as underlay.neighbors[0]',
      'underlay.neighbors[3].interface: the same neighbor as underlay.neighbors[2]',
    ]);
  });
  it('refuses two peers of a VRF with one address or overlapping listen ranges', () => {
    expect(
      issuesOf({
        ...base,
        vrfs: [
          {
            name: 'red',
            vni: 1,
            bgpPeers: [
              { address: '10.1.0.5', remoteAs: 64512 },
              { address: '10.1.0.5', remoteAs: 64513 },
              { listenRange: '10.2.0.0/24', remoteAs: 'external' },
              { listenRange: '10.2.0.0/16', remoteAs: 'external' },
              { listenRange: '10.3.0.0/24', remoteAs: 'external' },
            ],
          },
        ],
      }),
    ).toEqual([
      'vrfs[0].bgpPeers[1].address: the same peer as bgpPeers[0]',
      'vrfs[0].bgpPeers[3].listenRange: overlaps bgpPeers[2].listenRange',
    ]);
  });
});

describe('rules between new fields', () => {
  it('names the field of each', () => {
    const issues = issuesOf({
      ...base,
      bfdProfiles: [{ name: 'fast' }, { name: 'fast' }],
      underlay: {
        neighbors: [
          {
            interface: 'eth1',
            remoteAs: 'internal',
            ebgpMultihop: 2,
            localAs: { asn: 65001 },
            bfd: { profile: 'slow' },
          },
          { address: '192.0.2.1', remoteAs: 65001, localAs: { asn: 65001, replaceAs: true } },
        ],
      },
      vrfs: [
        {
          name: 'red',
          vni: 70000,
          routeTarget: '65000:1',
          routeTargets: { import: ['65000:1'], export: ['65000:1'] },
          aggregates: ['fd00::/48'],
          staticRoutes: [{ prefix: '10.0.0.0/8', nexthop: 'fd00::1' }, { prefix: '10.1.0.0/16' }],
          export: { items: [{ community: '65000:1', action: 'reject', addCommunities: ['65000:2'] }] },
          bgpPeers: [{ address: 'fd00::5', remoteAs: 64512 }],
        },
      ],
    });
    expect(issues).toEqual([
      'bfdProfiles[1].name: duplicate BFD profile "fast"',
      'underlay.neighbors[0].ebgpMultihop: an unnumbered session is directly connected (FRR refuses ebgp-multihop on it)',
      'underlay.neighbors[0].localAs: only for eBGP sessions (FRR: local-as is allowed only for EBGP peers)',
      'underlay.neighbors[0].bfd.profile: unknown BFD profile "slow" (not in bfdProfiles)',
      'underlay.neighbors[1].localAs.asn: must differ from remoteAs',
      'underlay.neighbors[1].localAs.replaceAs: needs noPrepend: true (FRR: local-as N no-prepend replace-as)',
      'vrfs[0].routeTargets: give routeTarget or routeTargets, not both',
      'vrfs[0].export.items[0].action: a rejected route cannot be modified (remove the changes or accept)',
      'vrfs[0].aggregates[0]: an IPv6 prefix needs ipv6 in vrfs[0].addressFamilies',
      'vrfs[0].staticRoutes[0].nexthop: must be an IPv4 address like the prefix',
      'vrfs[0].staticRoutes[1].nexthop: give exactly one of nexthop (with optional nextHopVrf), nextHopVrf, or blackhole: true',
      'vrfs[0].bgpPeers[0].addressFamilies: IPv6 needs ipv6 in vrfs[0].addressFamilies',
    ]);
  });
});
