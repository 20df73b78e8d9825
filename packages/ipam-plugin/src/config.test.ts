import { CniError } from '@fabrik/cni-skel';
import { PoolExhaustedError, PoolNotFoundError, PoolSetError } from '@fabrik/ippool';
import { UnreachableError } from '@fabrik/kube';
import { describe, expect, it } from 'vitest';
import { ipamResult } from './commands/add.js';
import { loadIpamConf, podOwner } from './config.js';
import { toCniError } from './errors.js';

const base = {
  cniVersion: '1.1.0',
  name: 'red-web',
  type: 'fabrik-ovs',
  ipam: { type: 'fabrik-ipam', ippools: ['red-v4'] },
};
const withIpam = (ipam: Record<string, unknown>) => ({ ...base, ipam: { type: 'fabrik-ipam', ...ipam } });

function refusal(fn: () => unknown): { code: number; msg: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof CniError) return { code: e.code, msg: e.message };
    throw e;
  }
  throw new Error('not refused');
}

describe('loadIpamConf', () => {
  it("reads Antrea's shape and the single-pool form, with routes and DNS", () => {
    expect(
      loadIpamConf(
        withIpam({
          ippools: ['red-v4', 'red-v6'],
          routes: [{ dst: '10.20.0.0/16', gw: '10.10.1.1' }],
          dns: { nameservers: ['10.10.1.53'] },
        }),
        '',
      ),
    ).toEqual({
      network: 'red-web',
      pools: ['red-v4', 'red-v6'],
      poolsField: 'ipam.ippools',
      routes: [{ dst: '10.20.0.0/16', gw: '10.10.1.1' }],
      dns: { nameservers: ['10.10.1.53'] },
      requested: [],
    });
    expect(loadIpamConf(withIpam({ ippool: 'hbr-mgmt-v4' }), '')).toMatchObject({
      pools: ['hbr-mgmt-v4'],
      poolsField: 'ipam.ippool',
    });
  });

  it.each([
    [
      withIpam({ ippools: ['a'], kubeconfig: '/etc/kubernetes/admin.conf' }),
      'ipam.kubeconfig: a node setting',
    ],
    [withIpam({ ippools: ['a'], timeoutMs: 1 }), 'ipam.timeoutMs: a node setting'],
    [withIpam({ ippools: ['a'], kubernetes: { kubeconfig: '/x' } }), 'ipam.kubernetes: a node setting'],
    [withIpam({}), 'ipam.ippools: give either ippools'],
    [withIpam({ ippools: ['a'], ippool: 'b' }), 'ipam.ippools: give either ippools'],
    [withIpam({ ippools: [] }), 'ipam.ippools:'],
    [withIpam({ ippools: ['a', 'b', 'c'] }), 'ipam.ippools:'],
    [withIpam({ ippools: ['a', 'a'] }), 'ipam.ippools: names a pool twice'],
    [withIpam({ ippools: ['Not_A_Name'] }), 'ipam.ippools.0:'],
    [withIpam({ ippools: ['a'], routes: [{ dst: '10.0.0.1/8' }] }), 'ipam.routes.0.dst:'],
    [
      withIpam({ ippools: ['a'], routes: [{ dst: '10.0.0.0/8', via: '10.0.0.1' }] }),
      'ipam.routes.0.via: unknown field',
    ],
    [withIpam({ ippools: ['a'], subnet: '10.0.0.0/24' }), 'ipam.subnet: unknown field'],
    [withIpam({ ippools: ['a'], dns: { nameservers: ['dns.example'] } }), 'ipam.dns.nameservers.0:'],
    [{ ...base, ipam: undefined }, 'ipam:'],
    [{ ...base, name: '-x' }, 'name:'],
    [{ ...base, runtimeConfig: { ips: ['10.0.0.300'] } }, 'runtimeConfig.ips.0:'],
  ])('refuses %j with code 7 naming %s', (config, field) => {
    const r = refusal(() => loadIpamConf(config as Record<string, unknown>, ''));
    expect(r.code).toBe(7);
    expect(r.msg).toContain(`invalid network config: ${field}`);
  });

  it('requested addresses: CNI_ARGS IP, then args.cni.ips, then runtimeConfig.ips; prefix lengths dropped', () => {
    expect(loadIpamConf(base, 'IP=10.0.0.5').requested).toEqual(['10.0.0.5']);
    const args = { ...base, args: { cni: { ips: ['10.0.0.6/24'] } } };
    expect(loadIpamConf(args, 'IP=10.0.0.5').requested).toEqual(['10.0.0.6']);
    expect(
      loadIpamConf({ ...args, runtimeConfig: { ips: ['2001:db8::7/64'] } }, 'IP=10.0.0.5').requested,
    ).toEqual(['2001:db8::7']);
  });

  it('refuses CNI_ARGS it does not know (code 4) unless IgnoreUnknown', () => {
    expect(refusal(() => loadIpamConf(base, 'FOO=1')).code).toBe(4);
    expect(loadIpamConf(base, 'IgnoreUnknown=1;FOO=1').pools).toEqual(['red-v4']);
  });
});

describe('podOwner', () => {
  const conf = loadIpamConf(base, '');
  it('records the Pod, the attachment and the network', () => {
    expect(podOwner(conf, 'K8S_POD_NAME=web-0;K8S_POD_NAMESPACE=shop', 'c1', 'net1')).toEqual({
      name: 'web-0',
      namespace: 'shop',
      containerID: 'c1',
      ifName: 'net1',
      network: 'red-web',
    });
  });
  it.each([
    ['', 'K8S_POD_NAME and K8S_POD_NAMESPACE are required'],
    ['K8S_POD_NAME=web-0', 'K8S_POD_NAME and K8S_POD_NAMESPACE are required'],
    [`K8S_POD_NAME=web-0;K8S_POD_NAMESPACE=${'n'.repeat(64)}`, 'CNI_ARGS K8S_POD_NAMESPACE:'],
  ])('CNI_ARGS %j: code 4, %s', (args, msg) => {
    const r = refusal(() => podOwner(conf, args, 'c1', 'net1'));
    expect(r).toMatchObject({ code: 4 });
    expect(r.msg).toContain(msg);
  });
});

describe('toCniError', () => {
  const conf = loadIpamConf(withIpam({ ippools: ['red-v4', 'red-v6'] }), '');
  it.each([
    [
      new UnreachableError('GET /x', 'ECONNREFUSED'),
      'ADD',
      11,
      'IPPool API: GET /x: API server unreachable (ECONNREFUSED)',
    ],
    [new UnreachableError('GET /x', 'ECONNREFUSED'), 'STATUS', 50, 'IPPool API:'],
    [
      new PoolNotFoundError('red-v6'),
      'ADD',
      7,
      'invalid network config: ipam.ippools.1: IPPool red-v6 does not exist',
    ],
    [new PoolNotFoundError('red-v6'), 'STATUS', 50, 'IPPool red-v6 does not exist'],
    [new PoolSetError(1, 'both IPv4'), 'ADD', 7, 'invalid network config: ipam.ippools.1: both IPv4'],
    [
      new PoolExhaustedError('red-v4', 3),
      'ADD',
      100,
      'IPPool red-v4 is exhausted: all 3 of its addresses are in use',
    ],
  ] as const)('%s on %s: code %i', (error, command, code, msg) => {
    const e = toCniError(error, conf, command) as CniError;
    expect(e.code).toBe(code);
    expect(e.message).toContain(msg);
  });
});

describe('ipamResult', () => {
  it('addresses with the pool prefix and gateway, routes, DNS and the VLAN for fabrik-ovs', () => {
    const conf = loadIpamConf(withIpam({ ippools: ['a', 'b'], routes: [{ dst: '0.0.0.0/0' }] }), '');
    const common = { created: true } as const;
    expect(
      ipamResult(conf, [
        {
          ...common,
          pool: 'a',
          family: 4,
          address: '10.0.0.2',
          prefixLength: 24,
          gateway: '10.0.0.1',
          vlan: 120,
        },
        {
          ...common,
          pool: 'b',
          family: 6,
          address: '2001:db8::2',
          prefixLength: 64,
          gateway: '2001:db8::1',
          vlan: undefined,
        },
      ]),
    ).toEqual({
      ips: [
        { address: '10.0.0.2/24', gateway: '10.0.0.1' },
        { address: '2001:db8::2/64', gateway: '2001:db8::1' },
      ],
      routes: [{ dst: '0.0.0.0/0' }],
      dns: {},
      fabrik: { vlan: 120 },
    });
  });

  it('says heldAlready when the attachment had an address before this ADD (a repeated ADD)', () => {
    const conf = loadIpamConf(withIpam({ ippools: ['a'] }), '');
    const allocation = {
      pool: 'a',
      family: 4,
      address: '10.0.0.2',
      prefixLength: 24,
      gateway: '10.0.0.1',
      vlan: undefined,
    } as const;
    expect(ipamResult(conf, [{ ...allocation, created: false }]).fabrik).toEqual({ heldAlready: true });
    expect(ipamResult(conf, [{ ...allocation, created: true }]).fabrik).toBeUndefined();
  });
});
