import { describe, expect, it } from 'vitest';
import { multusConfig, reportedAttachments } from './multus.js';

// An annotation of the shape Multus writes: the default network first, then one entry per NAD.
const STATUS = JSON.stringify([
  { name: 'loopback', interface: 'lo', ips: ['127.0.0.1', '::1'], mac: '00:00:00:00:00:00', default: true },
  { name: 'default/vlan100', interface: 'net1', ips: ['10.100.0.10'], mac: '02:00:00:00:00:01', dns: {} },
  { name: 'default/vlan200', interface: 'net2', ips: ['10.200.0.10'], mac: '02:00:00:00:00:02', dns: {} },
]);

describe('reportedAttachments', () => {
  it('gives each NAD asked for its interface and addresses, in the order asked for', () => {
    expect(reportedAttachments('a1', 'default', STATUS, ['vlan200', 'vlan100'])).toEqual([
      { nad: 'vlan200', ifname: 'net2', addresses: ['10.200.0.10'] },
      { nad: 'vlan100', ifname: 'net1', addresses: ['10.100.0.10'] },
    ]);
  });

  it('names the Pod and the NAD the annotation lacks', () => {
    expect(() => reportedAttachments('a1', 'default', STATUS, ['vlan300'])).toThrow(
      'Pod default/a1: annotation k8s.v1.cni.cncf.io/network-status has no entry for default/vlan300',
    );
  });

  it('refuses an entry without addresses, and a missing annotation', () => {
    const noIps = JSON.stringify([{ name: 'default/vlan100', interface: 'net1' }]);
    expect(() => reportedAttachments('a1', 'default', noIps, ['vlan100'])).toThrow(
      'default/vlan100 has no ips',
    );
    expect(() => reportedAttachments('a1', 'default', undefined, ['vlan100'])).toThrow('is missing');
  });
});

describe('multusConfig', () => {
  it('is a Multus config with its kubeconfig, cache and the loopback default network as first delegate', () => {
    const config = multusConfig({ kubeconfig: '/k', cniDir: '/c', logFile: '/l' });
    expect(config).toMatchObject({ type: 'multus', kubeconfig: '/k', cniDir: '/c', logFile: '/l' });
    expect(config['delegates']).toEqual([
      { cniVersion: '1.0.0', name: 'loopback', plugins: [{ type: 'loopback' }] },
    ]);
  });
});
