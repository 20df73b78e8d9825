import { describe, expect, it } from 'vitest';
import { decodeLinkDump } from './link.js';

// Decoders report what iproute2 printed: a field it left out stays absent, never 0 or ''.

const link = (ifname: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  ifindex: 7,
  ifname,
  flags: ['BROADCAST', 'MULTICAST'],
  mtu: 1500,
  address: '02:00:00:00:00:07',
  ...extra,
});
const decode = (...links: Record<string, unknown>[]) =>
  decodeLinkDump(JSON.stringify(links)).map((l) => l.spec);

describe('decodeLinkDump leaves out what the dump leaves out', () => {
  it('a vrf without a table has no table', () => {
    const [vrf] = decode(link('red', { linkinfo: { info_kind: 'vrf', info_data: {} } }));
    expect(vrf).toMatchObject({ kind: 'vrf', name: 'red' });
    expect(vrf).not.toHaveProperty('table');
  });
  it('a vlan whose parent lives in another namespace has no parent; one without an id has no id', () => {
    const [vlan] = decode(
      link('tr.100', { link_netnsid: 0, linkinfo: { info_kind: 'vlan', info_data: { protocol: '802.1Q' } } }),
    );
    expect(vlan).toMatchObject({ kind: 'vlan', name: 'tr.100', protocol: '802.1Q' });
    expect(vlan).not.toHaveProperty('parent');
    expect(vlan).not.toHaveProperty('id');
  });
  it('a vxlan without an id has no vni', () => {
    const [vx] = decode(link('vx0', { linkinfo: { info_kind: 'vxlan', info_data: { port: 4789 } } }));
    expect(vx).toMatchObject({ kind: 'vxlan', dstport: 4789 });
    expect(vx).not.toHaveProperty('vni');
  });
  it('a macvlan of a mode this layer does not know, in another namespace, has neither mode nor parent', () => {
    const [mv] = decode(
      link('mv0', { link_netnsid: 1, linkinfo: { info_kind: 'macvlan', info_data: { mode: 'future' } } }),
    );
    expect(mv).toMatchObject({ kind: 'macvlan' });
    expect(mv).not.toHaveProperty('mode');
    expect(mv).not.toHaveProperty('parent');
  });
  it('a veth whose peer is in another namespace has a peer without a name', () => {
    const [veth] = decode(link('v0', { link_netnsid: 2, linkinfo: { info_kind: 'veth' } }));
    expect(veth).toMatchObject({ kind: 'veth', peer: {} });
    expect(veth).not.toHaveProperty('peer.name');
  });
  it('what is there is decoded', () => {
    expect(
      decode(
        link('red', { linkinfo: { info_kind: 'vrf', info_data: { table: 1001 } } }),
        link('tr.100', { link: 'tr', linkinfo: { info_kind: 'vlan', info_data: { id: 100 } } }),
        link('mv0', { link: 'eth0', linkinfo: { info_kind: 'macvlan', info_data: { mode: 'bridge' } } }),
        link('v0', { link: 'v1', linkinfo: { info_kind: 'veth' } }),
      ),
    ).toMatchObject([
      { kind: 'vrf', table: 1001 },
      { kind: 'vlan', parent: 'tr', id: 100 },
      { kind: 'macvlan', parent: 'eth0', mode: 'bridge' },
      { kind: 'veth', peer: { name: 'v1' } },
    ]);
  });
});
