import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FrrIntentError, parseFrrIntent, type FrrIntentInput } from './intent.js';
import { toFrrModel } from './model/index.js';
import { FrrTemplateError, frrPartialNames, renderFrrConfig } from './render.js';

const intent: FrrIntentInput = {
  asn: 65000,
  routerId: '10.0.0.1',
  vtepIp: '10.0.0.1',
  underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external', password: 's3cret' }] },
  vrfs: [
    {
      name: 'red',
      vni: 1001,
      importVrfs: ['hbr', 'blue'],
      staticRoutes: [
        { prefix: '10.99.0.0/24', nexthop: '10.10.0.254' },
        { prefix: '10.2.0.0/16', blackhole: true },
      ],
    },
    { name: 'blue', vni: 1002, aggregates: ['10.10.0.0/16', '10.9.0.0/16', '10.10.0.0/16'] },
  ],
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function templatesDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fabrik-frr-templates-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('toFrrModel', () => {
  it('sorts VRFs, leak sources, aggregates and static routes, and dedupes', () => {
    const model = toFrrModel(parseFrrIntent(intent));
    expect(model.vrfs.map((v) => v.name)).toEqual(['blue', 'hbr', 'red']);
    const red = model.vrfs.find((v) => v.name === 'red');
    expect(red?.importVrfs).toEqual(['blue', 'hbr']);
    expect(red?.staticRoutes).toEqual([
      { command: 'ip', prefix: '10.2.0.0/16', target: 'blackhole' },
      { command: 'ip', prefix: '10.99.0.0/24', target: '10.10.0.254' },
    ]);
    expect(model.vrfs.find((v) => v.name === 'blue')?.aggregates).toEqual(['10.9.0.0/16', '10.10.0.0/16']);
    expect(red?.routeTarget).toBe('65000:1001');
  });
  it('gives an undeclared hbrVrf that is leaked from a local BGP instance without EVPN', () => {
    const model = toFrrModel(parseFrrIntent(intent));
    expect(model.vrfs.find((v) => v.name === 'hbr')).toMatchObject({
      vni: null,
      redistribute: ['connected'],
    });
    expect(model.l3Vrfs.map((v) => v.name)).toEqual(['blue', 'red']);
  });
  it('refuses to leak from an undeclared hbrVrf in vrf-ibgp, naming the path', () => {
    expect(() => toFrrModel(parseFrrIntent(intent), { mode: 'vrf-ibgp' })).toThrow(FrrIntentError);
    try {
      toFrrModel(parseFrrIntent(intent), { mode: 'vrf-ibgp' });
    } catch (e) {
      expect((e as FrrIntentError).issues[0]?.path).toBe('vrfs[0].importVrfs[0]');
    }
  });
  it('gives each VRF instance of vrf-ibgp a router ID of its own and the route distinguisher <routerId>:<vni>', () => {
    const vrfs = [
      { name: 'red', vni: 1001 },
      { name: 'blue', vni: 65535 },
    ];
    const model = toFrrModel(parseFrrIntent({ ...intent, vrfs }), { mode: 'vrf-ibgp' });
    const ids = model.vrfs.map((v) => [v.name, v.routerId, v.rd]);
    expect(ids).toEqual([
      ['blue', '0.0.255.255', '10.0.0.1:65535'],
      ['red', '0.0.3.233', '10.0.0.1:1001'],
    ]);
    expect(model.routerId).toBe('10.0.0.1');
    // netns: the node's router ID everywhere, FRR's own route distinguishers.
    const netns = toFrrModel(parseFrrIntent({ ...intent, vrfs }), { mode: 'netns' });
    expect(netns.vrfs.map((v) => [v.routerId, v.rd])).toEqual([
      ['10.0.0.1', null],
      ['10.0.0.1', null],
    ]);
  });
  it('refuses in vrf-ibgp an L3 VNI its route distinguisher cannot hold, and a node router ID a VRF instance takes', () => {
    const refusal = (input: FrrIntentInput) => {
      try {
        toFrrModel(parseFrrIntent(input), { mode: 'vrf-ibgp' });
      } catch (e) {
        return (e as FrrIntentError).issues[0];
      }
      return undefined;
    };
    expect(refusal({ ...intent, vrfs: [{ name: 'red', vni: 65536 }] })).toMatchObject({
      path: 'vrfs[0].vni',
      message: expect.stringContaining('up to 65535'),
    });
    expect(refusal({ ...intent, routerId: '0.0.3.233', vrfs: [{ name: 'red', vni: 1001 }] })).toMatchObject({
      path: 'routerId',
    });
    expect(() =>
      toFrrModel(parseFrrIntent({ ...intent, vrfs: [{ name: 'red', vni: 65536 }] }), { mode: 'netns' }),
    ).not.toThrow();
  });
  it('reports every problem of vrf-ibgp and the hostname at once', () => {
    const input: FrrIntentInput = {
      ...intent,
      routerId: '0.0.3.234',
      vrfs: [
        { name: 'red', vni: 65536 },
        { name: 'blue', vni: 1002, importVrfs: ['hbr'] },
        { name: 'green', vni: 1003, importVrfs: ['red'], addressFamilies: ['ipv4', 'ipv6'] },
      ],
    };
    let issues: readonly { path: string }[] = [];
    try {
      toFrrModel(parseFrrIntent(input), { mode: 'vrf-ibgp', hostname: 'bad host' });
    } catch (e) {
      issues = (e as FrrIntentError).issues;
    }
    expect(issues.map((i) => i.path)).toEqual([
      'hostname',
      'vrfs[0].vni',
      'routerId',
      'vrfs[1].importVrfs[0]',
      'vrfs[2].addressFamilies',
    ]);
  });
  it("leaves out an L2 route-target equal to FRR's automatic one, for 4-byte ASNs the low 2 bytes of the ASN", () => {
    const model = (asn: number, routeTarget: string) =>
      toFrrModel(
        parseFrrIntent({ ...intent, asn, vrfs: [], layer2s: [{ vni: 2100, vlan: 100, routeTarget }] }),
      ).l2RouteTargets;
    expect(model(4_200_000_001, '59905:2100')).toEqual([]);
    expect(model(65000, '65000:2100')).toEqual([]);
    expect(model(4_200_000_001, '4200000001:2100')).toMatchObject([
      { vni: 2100, routeTarget: '4200000001:2100' },
    ]);
  });
  it('rejects an invalid hostname', () => {
    expect(() => renderFrrConfig(intent, { hostname: 'bad host' })).toThrow(
      /hostname: must be a valid host name/,
    );
  });
});

describe('renderFrrConfig', () => {
  it('renders a complete file: defaults, hostname, ! between blocks, one trailing newline', () => {
    const text = renderFrrConfig(intent, { hostname: 'fabrik-lab' });
    expect(text.startsWith('frr defaults datacenter\nhostname fabrik-lab\n!\n')).toBe(true);
    expect(text.endsWith('!\n')).toBe(true);
    expect(text).not.toMatch(/\n\n/);
    expect(text).not.toMatch(/!\n!/);
    expect(text).toContain(
      'vrf red\n vni 1001\n ip route 10.2.0.0/16 blackhole\n ip route 10.99.0.0/24 10.10.0.254\nexit-vrf\n!\n',
    );
    expect(text).toContain('router bgp 65000 vrf red\n');
    expect(text).toContain('  import vrf blue\n  import vrf hbr\n');
  });
  it('takes the mode from the options over the intent', () => {
    const text = renderFrrConfig({ ...intent, vrfs: [{ name: 'red', vni: 1001 }] }, { mode: 'vrf-ibgp' });
    expect(text).toContain(' neighbor ibd1001 interface remote-as internal\n');
    expect(text).not.toContain('import vrf');
  });
  it('lets a templates directory replace one partial by file name', () => {
    const dir = templatesDir({
      'bfd.hbs': ' neighbor {{id}} bfd profile fast\n',
      'neighbor.hbs': ' neighbor {{id}} remote-as {{remoteAs}}\n{{> bfd}}\n',
    });
    const text = renderFrrConfig(intent, { templatesDir: dir });
    expect(text).toContain(' neighbor 192.0.2.2 remote-as external\n neighbor 192.0.2.2 bfd profile fast\n');
    expect(text).not.toContain('password');
    // Without the directory the built-in partials are back (no cache leaking between sets).
    expect(renderFrrConfig(intent)).toContain(' neighbor 192.0.2.2 password s3cret\n');
  });
  it('picks up a changed override file', () => {
    const dir = templatesDir({ 'bfd.hbs': 'one\n' });
    const withBfd = {
      ...intent,
      underlay: { neighbors: [{ address: '192.0.2.2', remoteAs: 'external' as const, bfd: true }] },
    };
    expect(renderFrrConfig(withBfd, { templatesDir: dir })).toContain('\none\n');
    writeFileSync(join(dir, 'bfd.hbs'), 'two\n');
    expect(renderFrrConfig(withBfd, { templatesDir: dir })).toContain('\ntwo\n');
  });
  it('reports a misspelt field of an override (strict templates) and a syntax error by partial name', () => {
    expect(() =>
      renderFrrConfig(intent, { templatesDir: templatesDir({ 'neighbor.hbs': ' neighbor {{adress}}\n' }) }),
    ).toThrow(FrrTemplateError);
    expect(() =>
      renderFrrConfig(intent, { templatesDir: templatesDir({ 'vrf.hbs': '{{#each x}}\n' }) }),
    ).toThrow(/partial vrf\.hbs/);
    expect(() => renderFrrConfig(intent, { templatesDir: '/nonexistent/fabrik' })).toThrow(
      /cannot read templates directory/,
    );
  });
  it('tidies what an override prints: blank lines, trailing blanks, repeated !', () => {
    const dir = templatesDir({ 'header.hbs': '\n\nfrr defaults datacenter   \n!\n\n!\n!\n' });
    const text = renderFrrConfig(intent, { templatesDir: dir });
    expect(text.startsWith('frr defaults datacenter\n!\nvrf blue\n')).toBe(true);
  });
  it('offers the documented helpers', () => {
    const dir = templatesDir({
      'vrf-evpn.hbs':
        ' ! {{join importVrfs ","}} {{#if (eq name "red")}}red{{/if}}{{#if (not vni)}}none{{/if}}\n',
    });
    const text = renderFrrConfig(intent, { templatesDir: dir });
    expect(text).toContain(' ! blue,hbr red\n');
  });
  it('lists the partials of each set', () => {
    expect(frrPartialNames('netns')).toEqual(
      expect.arrayContaining([
        'config',
        'neighbor',
        'bfd',
        'prefix-lists',
        'route-maps',
        'evpn',
        'vrf',
        'static-routes',
        'leaks',
      ]),
    );
    expect(frrPartialNames('vrf-ibgp')).toEqual(frrPartialNames('netns'));
  });
});

describe('import rules without leak sources', () => {
  it('render no prefix-list nobody uses', () => {
    const text = renderFrrConfig({
      asn: 65000,
      routerId: '10.0.0.1',
      vtepIp: '10.0.0.1',
      vrfs: [{ name: 'a', vni: 1, import: [{ cidr: '10.0.0.0/8' }] }],
    });
    expect(text).not.toContain('prefix-list');
  });
});
