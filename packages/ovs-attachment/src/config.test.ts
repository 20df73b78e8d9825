import { describe, expect, it } from 'vitest';
import { CniIpamSettings, CniNodeSettings, CniTimeouts } from '@fabrik/api';
import { NODE_LEVEL_FIELDS, loadNetConf } from './config.js';
import { CniError } from '@fabrik/cni-skel';

const base = { cniVersion: '1.1.0', name: 'vlan100', type: 'fabrik-ovs' };

function codeOf(fn: () => unknown): { code: number; msg: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof CniError) return { code: e.code, msg: e.message };
    throw e;
  }
  throw new Error('did not throw');
}

describe('loadNetConf', () => {
  it('applies defaults', () => {
    const c = loadNetConf(base, '', '1.1.0');
    expect(c).toMatchObject({
      vlan: 0,
      trunks: [],
      networkType: 'vlan',
      ips: [],
    });
    expect(c.bridge).toBeUndefined();
  });

  it('expands trunk ranges into sorted unique ids', () => {
    const c = loadNetConf(
      { ...base, trunk: [{ minID: 20, maxID: 22 }, { id: 10 }, { id: 21 }] },
      '',
      '1.1.0',
    );
    expect(c.trunks).toEqual([10, 20, 21, 22]);
  });

  it.each([
    [{ vlan: 4095 }, 'vlan'],
    [{ vlan: '100' }, 'vlan'],
    [{ trunk: [{ minID: 30, maxID: 20 }] }, 'trunk.0'],
    [{ trunk: [{ id: 0 }] }, 'trunk.0.id'],
    [{ bridge: 'a-bridge-name-too-long' }, 'bridge'],
    [{ mtu: 10 }, 'mtu'],
    [{ ipam: { type: '../x' } }, 'ipam.type'],
    [{ ipam: { type: '.' } }, 'ipam.type'],
    [{ ipam: { type: '..' } }, 'ipam.type'],
    [{ ipam: { type: 'x'.repeat(256) } }, 'ipam.type'],
    [{ runtimeConfig: { mac: '01:00:00:00:00:01' } }, 'runtimeConfig.mac'],
    [{ runtimeConfig: { mac: '00:00:00:00:00:00' } }, 'runtimeConfig.mac'],
    [{ args: { cni: { mac: '33:33:00:00:00:01' } } }, 'args.cni.mac'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(96) }, 'name'],
    [{ networkType: 'bridge', vlan: 5 }, 'networkType'],
    [{ ipam: { type: 'fabrik-ovs' } }, 'ipam.type'],
    [{ ipam: { type: 'host-device', device: 'eth0' } }, 'ipam.type'],
    [{ ipam: { type: 'static', addresses: [{ address: '224.0.0.1/4' }] } }, 'ipam.addresses.0.address'],
    [
      { ipam: { type: 'static', addresses: [{ address: '10.0.0.5/24' }, { address: 'ff02::1/64' }] } },
      'ipam.addresses.1.address',
    ],
    [{ ipam: { type: 'static', addresses: [{ address: '10.0.0.255/24' }] } }, 'ipam.addresses.0.address'],
  ])('rejects %j with code 7 naming %s', (patch, field) => {
    const r = codeOf(() => loadNetConf({ ...base, ...patch }, '', '1.1.0'));
    expect(r.code).toBe(7);
    expect(r.msg).toContain(`${field}:`);
  });

  it('accepts a network name of 95 characters', () => {
    expect(loadNetConf({ ...base, name: 'n'.repeat(95) }, '', '1.1.0').name).toHaveLength(95);
  });

  it.each([
    ['ovsdbSocket', 'tcp:10.0.0.1:6640'],
    ['cacheDir', '/tmp/x'],
    ['agentHostConfig', '/tmp/agent.yaml'],
    ['agentHostSocket', '/tmp/cni.sock'],
    ['timeouts', { ovsdbTimeoutMs: 100 }],
    ['ovsdbTimeoutMs', 100],
    ['ofportTimeoutMs', 100],
    ['kubeconfig', '/root/.kube/config'],
  ])('refuses the node setting %s in a network config with code 7 naming it', (field, value) => {
    const r = codeOf(() => loadNetConf({ ...base, [field]: value }, '', '1.1.0'));
    expect(r.code).toBe(7);
    expect(r.msg).toContain(`${field}: a node setting`);
  });

  it('refuses every node setting, nested ones by their own name too, except the ipam section (a network config has one)', () => {
    const settings = [
      ...Object.keys(CniNodeSettings.shape).filter((k) => k !== 'ipam'),
      ...Object.keys(CniTimeouts.shape),
      ...Object.keys(CniIpamSettings.shape),
    ];
    expect([...NODE_LEVEL_FIELDS].sort()).toEqual(settings.sort());
  });

  it("refuses host-local's dataDir (a directory root writes into) naming the node setting that sets it", () => {
    const ipam = { type: 'host-local', subnet: '10.0.0.0/24', dataDir: '/etc' };
    const r = codeOf(() => loadNetConf({ ...base, ipam }, '', '1.1.0'));
    expect(r).toMatchObject({ code: 7, msg: expect.stringContaining('ipam.dataDir: a node setting') });
    expect(r.msg).toContain('ipam.hostLocalDataDir');
    // Another plugin's dataDir is that plugin's business (the node chose to allow it).
    expect(loadNetConf({ ...base, ipam: { ...ipam, type: 'gated' } }, '', '1.1.0').ipamType).toBe('gated');
    expect(loadNetConf({ ...base, ipam }, '', '1.1.0', { ignoreNodeFields: true }).ipamType).toBe(
      'host-local',
    );
  });

  it.each([
    [{ runtimeConfig: { ips: ['224.0.0.1/4'] } }, 'runtimeConfig.ips.0', ''],
    [{ args: { cni: { ips: ['255.255.255.255'] } } }, 'args.cni.ips.0', ''],
    [{}, 'CNI_ARGS IP', 'IP=127.0.0.1/8'],
  ])('refuses a requested IP that is not unicast: %j %s', (patch, field, cniArgs) => {
    const r = codeOf(() => loadNetConf({ ...base, ...patch }, cniArgs, '1.1.0'));
    expect(r.msg).toContain(field);
    expect(r.msg).toMatch(/not a unicast one/);
  });

  it('ignores node settings when asked to (DEL uses none of them)', () => {
    const c = loadNetConf({ ...base, cacheDir: '/x', ovsdbSocket: 'tcp:h:1' }, '', '1.1.0', {
      ignoreNodeFields: true,
    });
    expect(c.name).toBe('vlan100');
  });

  it('merges MAC and IPs: CNI_ARGS, then args.cni, then runtimeConfig', () => {
    const cniArgs = 'MAC=02:00:00:00:00:01;IP=10.0.0.5/24;K8S_POD_NAME=p;K8S_POD_NAMESPACE=ns';
    expect(loadNetConf(base, cniArgs, '1.1.0')).toMatchObject({
      mac: '02:00:00:00:00:01',
      ips: ['10.0.0.5/24'],
      podName: 'p',
      podNamespace: 'ns',
    });
    const withArgs = { ...base, args: { cni: { mac: '02:00:00:00:00:02', ips: ['10.0.0.6/24'] } } };
    expect(loadNetConf(withArgs, cniArgs, '1.1.0')).toMatchObject({
      mac: '02:00:00:00:00:02',
      ips: ['10.0.0.6/24'],
    });
    const withRuntime = { ...withArgs, runtimeConfig: { mac: '02:00:00:00:00:03', ips: ['10.0.0.7/24'] } };
    expect(loadNetConf(withRuntime, cniArgs, '1.1.0')).toMatchObject({
      mac: '02:00:00:00:00:03',
      ips: ['10.0.0.7/24'],
    });
  });

  it('rejects unknown CNI_ARGS unless IgnoreUnknown is set', () => {
    expect(codeOf(() => loadNetConf(base, 'FOO=1', '1.1.0'))).toMatchObject({ code: 4 });
    expect(loadNetConf(base, 'IgnoreUnknown=1;FOO=1', '1.1.0').ips).toEqual([]);
    expect(codeOf(() => loadNetConf(base, 'MAC=zz', '1.1.0')).msg).toContain('CNI_ARGS MAC');
  });
});
