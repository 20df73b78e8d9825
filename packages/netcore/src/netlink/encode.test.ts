import { describe, expect, it } from 'vitest';
import { linkAddArgs, needsRecreate, type LinkSpec } from './links/index.js';
import { addrArgs, batchLine, fdbArgs, neighArgs, routeArgs } from './encode.js';
import { checkInterfaceName, parseNetnsTarget, vlanLinkName } from './names.js';
import {
  classifyIpFailure,
  isKernelFeatureMissingError,
  isKernelRejectedError,
  isLinkNotFoundError,
  isObjectExistsError,
  type KernelFeatureMissingError,
} from './errors.js';
import { canonicalIp } from './ip-text.js';
import { decodeLinkDump } from './decode/link.js';
import { decodeRouteDump } from './decode/route.js';
import { routeProtocolNumber } from './objects.js';
import { isOwnedBy, ownershipMark } from './ownership.js';

describe('link encoders', () => {
  it.each<[LinkSpec, string]>([
    [{ kind: 'vrf', name: 'red', table: 1001 }, 'link add name red type vrf table 1001'],
    [
      { kind: 'bridge', name: 'br0', mtu: 1450, mac: '02:00:00:00:00:01', vlanFiltering: false },
      'link add name br0 mtu 1450 address 02:00:00:00:00:01 type bridge vlan_filtering 0',
    ],
    [
      {
        kind: 'vxlan',
        name: 'vx100',
        vni: 100,
        local: '192.0.2.1',
        dstport: 4789,
        learning: false,
        dev: 'eth0',
      },
      'link add name vx100 type vxlan id 100 local 192.0.2.1 dstport 4789 nolearning dev eth0',
    ],
    [
      { kind: 'vlan', name: 'tr.100', parent: 'tr', id: 100 },
      'link add link tr name tr.100 type vlan id 100',
    ],
    [
      { kind: 'veth', name: 'v0', peer: { name: 'eth1', netns: '/proc/42/ns/net' } },
      'link add name v0 type veth peer name eth1 netns /proc/42/ns/net',
    ],
    [
      { kind: 'veth', name: 'v0', peer: { name: 'eth1', netns: '/var/run/netns/cni-1' } },
      'link add name v0 type veth peer name eth1 netns cni-1',
    ],
    [
      { kind: 'macvlan', name: 'mv0', parent: 'eth0', mode: 'bridge' },
      'link add link eth0 name mv0 type macvlan mode bridge',
    ],
    [{ kind: 'dummy', name: 'd0' }, 'link add name d0 type dummy'],
  ])('%j -> %s', (spec, line) => {
    expect(batchLine(linkAddArgs(spec))).toBe(line);
  });

  it('encodes addresses, routes, neighbours and FDB entries', () => {
    expect(addrArgs('add', 'br0', { address: 'fd00::1/64', nodad: true }).join(' ')).toBe(
      'addr add fd00::1/64 dev br0 nodad',
    );
    expect(
      routeArgs('replace', { dst: '10.0.0.0/24', via: '10.1.0.1', table: 100, protocol: 249 }).join(' '),
    ).toBe('route replace 10.0.0.0/24 via 10.1.0.1 table 100 proto 249');
    expect(routeArgs('del', { dst: 'default', type: 'blackhole', family: 'inet6', table: 7 }).join(' ')).toBe(
      'route del blackhole ::/0 table 7',
    );
    expect(
      neighArgs('replace', { dev: 'br0', address: '10.0.0.9', lladdr: '02:00:00:00:00:09' }).join(' '),
    ).toBe('neigh replace 10.0.0.9 lladdr 02:00:00:00:00:09 dev br0 nud permanent');
    expect(fdbArgs('add', { dev: 'vx0', mac: '00:00:00:00:00:00', dst: '192.0.2.2' }).join(' ')).toBe(
      'fdb append 00:00:00:00:00:00 dev vx0 dst 192.0.2.2 self permanent',
    );
    expect(fdbArgs('add', { dev: 'vx0', mac: '02:00:00:00:00:01' }).join(' ')).toBe(
      'fdb replace 02:00:00:00:00:01 dev vx0 master static',
    );
  });

  it('keeps the flags a network manager sets: noprefixroute on addresses, onlink on gateways', () => {
    expect(addrArgs('add', 'br-ex', { address: '10.0.0.2/24', noprefixroute: true }).join(' ')).toBe(
      'addr add 10.0.0.2/24 dev br-ex noprefixroute',
    );
    expect(addrArgs('del', 'eth0', { address: '10.0.0.2/24', noprefixroute: true }).join(' ')).toBe(
      'addr del 10.0.0.2/24 dev eth0',
    );
    const hetzner = { dst: 'default', via: '172.31.1.1', dev: 'br-ex', onlink: true, protocol: 16 } as const;
    expect(routeArgs('replace', hetzner).join(' ')).toBe(
      'route replace default via 172.31.1.1 dev br-ex proto 16 onlink',
    );
    expect(routeArgs('del', hetzner).join(' ')).toBe('route del default via 172.31.1.1 dev br-ex proto 16');
  });

  it('decodes onlink gateways and noprefixroute addresses, and names route protocols by number', () => {
    const [route] = decodeRouteDump(
      JSON.stringify([
        {
          dst: 'default',
          gateway: '10.9.0.1',
          dev: 'd0',
          protocol: 'dhcp',
          metric: 100,
          flags: ['onlink', 'linkdown'],
        },
      ]),
    );
    expect(route).toMatchObject({
      dst: 'default',
      via: '10.9.0.1',
      protocol: 'dhcp',
      onlink: true,
      metric: 100,
    });
    const [link] = decodeLinkDump(
      JSON.stringify([
        {
          ifindex: 3,
          ifname: 'd0',
          flags: ['UP'],
          mtu: 1500,
          addr_info: [
            { family: 'inet', local: '10.9.0.2', prefixlen: 24, scope: 'global', noprefixroute: true },
          ],
        },
      ]),
    );
    expect(link?.addresses).toEqual([
      { address: '10.9.0.2/24', family: 'inet', nodad: false, noprefixroute: true, scope: 'global' },
    ]);
    expect(routeProtocolNumber('dhcp')).toBe(16);
    expect(routeProtocolNumber('boot')).toBe(3);
    expect(routeProtocolNumber('249')).toBe(249);
    expect(routeProtocolNumber('toString')).toBeUndefined();
    expect(routeProtocolNumber('300')).toBeUndefined();
  });

  it('recreates only for kind attributes the kernel cannot change, comparing addresses as the kernel does', () => {
    const vx: LinkSpec = {
      kind: 'vxlan',
      name: 'vx0',
      vni: 10,
      local: 'fd00::1',
      dstport: 4789,
      learning: false,
    };
    expect(needsRecreate({ kind: 'vxlan', name: 'vx0', vni: 10, local: 'FD00:0::1' }, vx)).toBe(false);
    expect(needsRecreate({ kind: 'vxlan', name: 'vx0', vni: 11 }, vx)).toBe(true);
    expect(needsRecreate({ kind: 'vxlan', name: 'vx0', vni: 10, learning: true }, vx)).toBe(true);
    expect(needsRecreate({ kind: 'bridge', name: 'vx0' }, vx)).toBe(true);
    expect(
      needsRecreate(
        { kind: 'vrf', name: 'red', table: 10, mtu: 9000, master: null },
        { kind: 'vrf', name: 'red', table: 10 },
      ),
    ).toBe(false);
    expect(
      needsRecreate({ kind: 'vrf', name: 'red', table: 11 }, { kind: 'vrf', name: 'red', table: 10 }),
    ).toBe(true);
    // A parent in another namespace is absent from the observed spec: not a reason to recreate.
    expect(
      needsRecreate(
        { kind: 'macvlan', name: 'mv0', parent: 'eth0', mode: 'bridge' },
        { kind: 'macvlan', name: 'mv0', mode: 'bridge' },
      ),
    ).toBe(false);
    // An unknown table or VLAN id is not taken for the desired one.
    expect(needsRecreate({ kind: 'vrf', name: 'red', table: 10 }, { kind: 'vrf', name: 'red' })).toBe(true);
    expect(
      needsRecreate(
        { kind: 'vlan', name: 'tr.5', parent: 'tr', id: 5 },
        { kind: 'vlan', name: 'tr.5', parent: 'tr' },
      ),
    ).toBe(true);
    // A bridge's vlan_filtering changes in place.
    expect(
      needsRecreate(
        { kind: 'bridge', name: 'br0', vlanFiltering: true },
        { kind: 'bridge', name: 'br0', vlanFiltering: false },
      ),
    ).toBe(false);
    expect(
      needsRecreate(
        { kind: 'vlan', name: 'tr.5', parent: 'tr', id: 5 },
        { kind: 'vlan', name: 'tr.5', parent: 'other', id: 5 },
      ),
    ).toBe(true);
  });

  it('refuses to write a token the batch reader would split or comment out', () => {
    expect(() => batchLine(['link', 'set', 'dev', 'x', 'alias', 'a b'])).toThrow(/cannot be written/);
    expect(() => batchLine(['link', 'set', 'dev', 'x', 'alias', '#c'])).toThrow(/cannot be written/);
  });
});

describe('names', () => {
  it('accepts kernel-valid names and rejects the rest without truncating', () => {
    expect(checkInterfaceName('tr.4094')).toBe('tr.4094');
    expect(checkInterfaceName('a'.repeat(15))).toBe('a'.repeat(15));
    expect(() => checkInterfaceName('a'.repeat(16), 'links[0].name')).toThrow(/links\[0\]\.name/);
    for (const bad of ['', '.', '..', 'a/b', 'a b', 'a:b']) expect(() => checkInterfaceName(bad)).toThrow();
  });

  it('derives tr.<vid> names and refuses ones that do not fit', () => {
    expect(vlanLinkName('tr', 100)).toBe('tr.100');
    expect(() => vlanLinkName('trunk-eleven', 1000)).toThrow(/15/);
  });

  it('parses netns references: names, /run/netns paths, other absolute paths', () => {
    expect(parseNetnsTarget('hbr')).toEqual({ kind: 'name', name: 'hbr' });
    expect(parseNetnsTarget('/var/run/netns/cni-1234')).toEqual({ kind: 'name', name: 'cni-1234' });
    expect(parseNetnsTarget('/proc/42/ns/net')).toEqual({ kind: 'path', path: '/proc/42/ns/net' });
    expect(() => parseNetnsTarget('/run/netns/../../etc/passwd')).toThrow();
    expect(() => parseNetnsTarget('relative/path')).toThrow();
  });
});

describe('ownership marks', () => {
  it('matches only the owner, with or without a label', () => {
    expect(ownershipMark('hbr')).toBe('fabrik:hbr');
    expect(isOwnedBy('fabrik:hbr', 'hbr')).toBe(true);
    expect(isOwnedBy('fabrik:hbr:l2:blue', 'hbr')).toBe(true);
    expect(isOwnedBy('fabrik:hbr2', 'hbr')).toBe(false);
    expect(isOwnedBy('fabrik:host', 'hbr')).toBe(false);
    expect(isOwnedBy(undefined, 'hbr')).toBe(false);
  });
  it('canonicalises IPv6 text as iproute2 prints it', () => {
    expect(canonicalIp('FD00:0:0::1')).toBe('fd00::1');
    expect(canonicalIp('10.0.0.1')).toBe('10.0.0.1');
  });
});

describe('iproute2 failures become typed errors', () => {
  it.each([
    ['vrf', 'vrf'],
    ['vlan', '8021q'],
    ['dummy', 'dummy'],
  ])('"Unknown device type" for %s names module %s', (kind, module) => {
    const e = classifyIpFailure(
      `ip link add x type ${kind}`,
      'Error: Unknown device type.\nCommand failed -:3\n',
      { linkKind: kind },
    );
    expect(isKernelFeatureMissingError(e)).toBe(true);
    expect((e as KernelFeatureMissingError).module).toBe(module);
  });
  it('maps missing devices, existing objects and other refusals', () => {
    expect(isLinkNotFoundError(classifyIpFailure('ip link del dev x', 'Cannot find device "x"\n', {}))).toBe(
      true,
    );
    expect(
      isLinkNotFoundError(classifyIpFailure('ip addr show dev x', 'Device "x" does not exist.\n', {})),
    ).toBe(true);
    expect(
      classifyIpFailure(
        'ip link set dev y master m',
        'Error: argument "m" is wrong: Device does not exist\n',
        {},
      ),
    ).toMatchObject({ code: 'LINK_NOT_FOUND', linkName: 'm' });
    expect(
      isObjectExistsError(classifyIpFailure('ip link add', 'RTNETLINK answers: File exists\n', {})),
    ).toBe(true);
    const rejected = classifyIpFailure(
      'ip route replace 10.0.0.0/24 via 10.9.9.9',
      'Error: Nexthop has invalid gateway.\nCommand failed -:4\n',
      { op: { op: 'route-replace', route: { dst: '10.0.0.0/24', via: '10.9.9.9' } } },
    );
    expect(isKernelRejectedError(rejected)).toBe(true);
    expect(rejected).toMatchObject({
      kernelMessage: 'Error: Nexthop has invalid gateway.',
      op: { op: 'route-replace' },
    });
  });
});
