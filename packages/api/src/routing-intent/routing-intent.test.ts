import { describe, expect, it } from 'vitest';
import { FrrIntentError, frrIntentJsonSchema, parseFrrIntent, redactIntent } from './parse.js';
import type { FrrIntentInput } from './schema.js';

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

describe('parseFrrIntent', () => {
  it('applies defaults', () => {
    const intent = parseFrrIntent(base);
    expect(intent).toMatchObject({
      mode: 'netns',
      hbrVrf: 'hbr',
      vrfs: [],
      layer2s: [],
      underlay: { neighbors: [] },
    });
  });

  it('names the full path of a ge/le problem', () => {
    const issues = issuesOf({
      ...base,
      vrfs: [
        { name: 'a', vni: 1 },
        { name: 'b', vni: 2, import: [{ cidr: '10.20.0.0/16', le: 12 }] },
      ],
    });
    expect(issues).toEqual(['vrfs[1].import[0].le: must be greater than the prefix length 16']);
  });

  it('rejects le below ge and ge not above the prefix length', () => {
    expect(
      issuesOf({ ...base, vrfs: [{ name: 'a', vni: 1, export: [{ cidr: '10.0.0.0/8', ge: 24, le: 20 }] }] }),
    ).toEqual(['vrfs[0].export[0].le: must not be less than ge (24)']);
    expect(
      issuesOf({ ...base, vrfs: [{ name: 'a', vni: 1, export: [{ cidr: '10.0.0.0/8', ge: 8 }] }] }),
    ).toEqual(['vrfs[0].export[0].ge: must be greater than the prefix length 8']);
  });

  it('rejects the AS numbers BGP reserves wherever an AS number goes, naming the field', () => {
    expect(
      issuesOf({
        ...base,
        asn: 65535,
        underlay: {
          neighbors: [
            { address: '192.0.2.1', remoteAs: 23456 },
            { address: '192.0.2.2', remoteAs: 4_294_967_295 },
            { address: '192.0.2.3', remoteAs: 'external', localAs: { asn: 0 } },
          ],
        },
      }),
    ).toEqual([
      'asn: must not be 23456 (AS_TRANS, RFC 6793) or 65535 (reserved, RFC 7300)',
      'underlay.neighbors[0].remoteAs: must not be 23456 (AS_TRANS, RFC 6793) or 65535 (reserved, RFC 7300)',
      'underlay.neighbors[1].remoteAs: must be an AS number up to 4294967294 (4294967295 is reserved, RFC 7300)',
      'underlay.neighbors[2].localAs.asn: must be an AS number from 1 (0 is reserved, RFC 7607)',
    ]);
    expect(() => parseFrrIntent({ ...base, asn: 4_294_967_294 })).not.toThrow();
  });

  it('rejects communities of the reserved well-known range (FRR prints them by name), naming the field', () => {
    const filter = (community: string) => ({ items: [{ community }] });
    const issues = issuesOf({
      ...base,
      fabricLoopGuard: { community: '65535:65535' },
      vrfs: [
        {
          name: 'a',
          vni: 1,
          export: filter('0:0'),
          bgpPeers: [
            {
              address: '10.0.0.2',
              remoteAs: 65001,
              import: { items: [{ addCommunities: ['65535:65281'] }] },
            },
          ],
        },
      ],
    });
    expect(issues).toEqual([
      expect.stringMatching(/^fabricLoopGuard\.community: must be AA:NN \(AA 0-65534/),
      expect.stringMatching(/^vrfs\[0\]\.export\.items\[0\]\.community: must be AA:NN/),
      expect.stringMatching(
        /^vrfs\[0\]\.bgpPeers\[0\]\.import\.items\[0\]\.addCommunities\[0\]: must be AA:NN/,
      ),
    ]);
    expect(() =>
      parseFrrIntent({
        ...base,
        fabricLoopGuard: { community: '0:1' },
        vrfs: [{ name: 'a', vni: 1, export: filter('65534:65535') }],
      }),
    ).not.toThrow();
  });

  it('checks the set actions of filter items, every problem with its field', () => {
    const items = [
      { prefix: { cidr: '10.1.0.0/16' }, action: 'reject', setLocalPreference: 50 },
      { prefix: { cidr: '10.2.0.0/16' }, setNextHop: 'fd00::1' },
      { addLargeCommunities: ['1:2'], prependAsPath: [65535], setMed: -1 },
    ];
    expect(issuesOf({ ...base, vrfs: [{ name: 'a', vni: 1, export: { items } }] })).toEqual([
      'vrfs[0].export.items[2].addLargeCommunities[0]: must be A:B:C, three numbers 0-4294967295',
      expect.stringMatching(/^vrfs\[0\]\.export\.items\[2\]\.setMed: /),
      'vrfs[0].export.items[2].prependAsPath[0]: must not be 23456 (AS_TRANS, RFC 6793) or 65535 (reserved, RFC 7300)',
      'vrfs[0].export.items[0].action: a rejected route cannot be modified (remove the changes or accept)',
      'vrfs[0].export.items[1].setNextHop: must be of the family of prefix.cidr',
    ]);
  });

  it('refuses maxPrefixes options without maxPrefixes or both at once', () => {
    const peer = { address: '10.0.0.2', remoteAs: 65001 };
    expect(
      issuesOf({
        ...base,
        vrfs: [
          {
            name: 'a',
            vni: 1,
            bgpPeers: [
              { ...peer, maxPrefixesRestart: 5 },
              {
                ...peer,
                address: '10.0.0.3',
                maxPrefixes: 10,
                maxPrefixesRestart: 5,
                maxPrefixesWarningOnly: true,
              },
            ],
          },
        ],
      }),
    ).toEqual([
      'vrfs[0].bgpPeers[0].maxPrefixesRestart: needs maxPrefixes',
      'vrfs[0].bgpPeers[1].maxPrefixesRestart: not together with maxPrefixesWarningOnly (a warning never closes the session)',
    ]);
  });

  it('rejects CIDRs with host bits, VNIs and VLANs out of range', () => {
    const issues = issuesOf({
      ...base,
      vrfs: [{ name: 'a', vni: 16_777_216, aggregates: ['10.1.0.1/16'] }],
      layer2s: [{ vni: 0, vlan: 4095 }],
    });
    expect(issues).toEqual([
      expect.stringMatching(/^vrfs\[0\]\.vni: /),
      expect.stringMatching(/^vrfs\[0\]\.aggregates\[0\]: must be a network without host bits/),
      expect.stringMatching(/^layer2s\[0\]\.vni: /),
      expect.stringMatching(/^layer2s\[0\]\.vlan: /),
    ]);
  });

  it('rejects duplicate VRF names, VNIs and VLANs', () => {
    const issues = issuesOf({
      ...base,
      vrfs: [
        { name: 'red', vni: 10 },
        { name: 'red', vni: 11 },
      ],
      layer2s: [
        { vni: 11, vlan: 5 },
        { vni: 12, vlan: 5 },
      ],
    });
    expect(issues).toEqual([
      'vrfs[1].name: duplicate VRF name "red" (also vrfs[0])',
      'layer2s[0].vni: VNI 11 is already used by vrfs[1].vni',
      'layer2s[1].vlan: VLAN 5 is already used by layer2s[0]',
    ]);
  });

  it('checks references to VRFs, allowing hbrVrf', () => {
    expect(
      issuesOf({
        ...base,
        vrfs: [{ name: 'red', vni: 10, importVrfs: ['hbr', 'blue', 'red'] }],
        layer2s: [
          { vni: 20, vlan: 2, vrf: 'hbr' },
          { vni: 21, vlan: 3, vrf: 'green' },
        ],
      }),
    ).toEqual([
      'vrfs[0].importVrfs[1]: unknown VRF "blue" (not in vrfs and not hbrVrf)',
      'vrfs[0].importVrfs[2]: a VRF cannot import from itself',
      'layer2s[1].vrf: unknown VRF "green" (not in vrfs and not hbrVrf)',
    ]);
  });

  it('rejects VRF names over 15 characters, unknown fields and both/neither of address and interface', () => {
    const issues = issuesOf({
      ...base,
      extra: 1,
      vrfs: [{ name: 'a'.repeat(16), vni: 1 }],
      underlay: {
        neighbors: [{ remoteAs: 'external' }, { address: '192.0.2.1', interface: 'eth0', remoteAs: 65001 }],
      },
    });
    expect(issues).toContain('underlay.neighbors[0].address: give exactly one of address or interface');
    expect(issues).toContain('underlay.neighbors[1].address: give exactly one of address or interface');
    expect(issues.some((i) => i.startsWith('vrfs[0].name: must be 1-15 characters'))).toBe(true);
    expect(issues.some((i) => i.startsWith('(root): ') && i.includes('extra'))).toBe(true);
  });

  it('validates route-targets and requires one when asn:vni does not fit', () => {
    expect(issuesOf({ ...base, vrfs: [{ name: 'a', vni: 1, routeTarget: '65000' }] })).toEqual([
      'vrfs[0].routeTarget: must be ASN:NN or A.B.C.D:NN (for example 65000:1001)',
    ]);
    expect(issuesOf({ ...base, asn: 4_200_000_000, layer2s: [{ vni: 70_000, vlan: 1 }] })).toEqual([
      'layer2s[0].routeTarget: required when both asn and vni exceed 65535 (the default asn:vni does not fit)',
    ]);
    expect(() =>
      parseFrrIntent({ ...base, vrfs: [{ name: 'a', vni: 1, routeTarget: '10.0.0.1:7' }] }),
    ).not.toThrow();
  });

  it('never puts a password into an error', () => {
    const secret = 'hunter2 with spaces';
    let message = '';
    try {
      parseFrrIntent({
        ...base,
        underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external', password: secret }] },
      });
    } catch (e) {
      message = `${String(e)} ${JSON.stringify(e)} ${String((e as Error).cause ?? '')}`;
    }
    expect(message).toContain(
      'underlay.neighbors[0].password: must be 1-80 printable ASCII characters without spaces',
    );
    expect(message).not.toContain('hunter2');
  });
});

describe('redaction', () => {
  it('redactIntent replaces passwords and leaves the input alone', () => {
    const input = {
      ...base,
      underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external' as const, password: 's3cret' }] },
    };
    const safe = redactIntent(input);
    expect(JSON.stringify(safe)).not.toContain('s3cret');
    expect(safe.underlay?.neighbors?.[0]?.password).toBe('<redacted>');
    expect(input.underlay.neighbors[0]?.password).toBe('s3cret');
  });
});

describe('frrIntentJsonSchema', () => {
  it('describes the contract fields', () => {
    const schema = frrIntentJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual([
      'mode',
      'asn',
      'routerId',
      'vtepIp',
      'hbrVrf',
      'fabricLoopGuard',
      'underlay',
      'bfdProfiles',
      'gracefulRestart',
      'gracefulShutdown',
      'vrfs',
      'layer2s',
    ]);
    expect(schema.required).toEqual(['asn', 'routerId', 'vtepIp']);
  });
  it('documents every field (fabrik-frr schema is the reference)', () => {
    type Node = {
      $ref?: string;
      description?: string;
      properties?: Record<string, Node>;
      items?: Node;
      anyOf?: Node[];
    };
    const schema = frrIntentJsonSchema() as Node & { $defs: Record<string, Node> };
    const resolve = (n: Node): Node => (n.$ref ? (schema.$defs[n.$ref.split('/').pop() ?? ''] ?? n) : n);
    const undocumented: string[] = [];
    const seen = new Set<Node>();
    const walk = (node: Node, path: string): void => {
      const n = resolve(node);
      if (seen.has(n)) return;
      seen.add(n);
      for (const [key, child] of Object.entries(n.properties ?? {})) {
        if (!child.description && !resolve(child).description) undocumented.push(`${path}.${key}`);
        walk(child, `${path}.${key}`);
      }
      if (n.items) walk(n.items, `${path}[]`);
      for (const branch of n.anyOf ?? []) walk(branch, path);
    };
    walk(schema, '');
    expect(undocumented).toEqual([]);
    expect(Object.keys(schema.$defs)).toEqual(
      expect.arrayContaining(['Network', 'VrfIntent', 'BgpPeer', 'Filter']),
    );
  });
});
