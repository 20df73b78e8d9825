import { describe, expect, it } from 'vitest';
import { OvsdbAddress } from './agent-host-config.js';
import { CniNodeSettings, NodeLocalPath, parseCniNodeSettings } from './cni-settings.js';

const firstIssue = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
  r.error?.issues[0]?.path.map(String).join('.');

describe('CniNodeSettings', () => {
  it('an empty file means every default', () => {
    expect(CniNodeSettings.parse({})).toEqual({
      ovsdbSocket: 'unix:/var/run/openvswitch/db.sock',
      cacheDir: '/var/lib/cni/fabrik-ovs',
      agentHostConfig: '/etc/fabrik/agent-host.yaml',
      ipam: {
        allowedTypes: ['fabrik-ipam', 'host-local', 'static', 'dhcp'],
        hostLocalDataDir: '/var/lib/cni/networks',
        kubeconfig: '/etc/cni/net.d/fabrik.d/fabrik-ipam.kubeconfig',
        timeoutMs: 10_000,
      },
      timeouts: { ovsdbTimeoutMs: 5000, ofportTimeoutMs: 10_000, ipamTimeoutMs: 60_000 },
    });
  });

  it('keeps given values and fills the rest of a section', () => {
    const s = CniNodeSettings.parse({
      ovsdbSocket: 'tcp:[fd00::1]:6640',
      agentHostSocket: '/run/fabrik/cni.sock',
      timeouts: { ofportTimeoutMs: 30_000 },
    });
    expect(s.ovsdbSocket).toBe('tcp:[fd00::1]:6640');
    expect(s.agentHostSocket).toBe('/run/fabrik/cni.sock');
    expect(s.timeouts).toEqual({ ovsdbTimeoutMs: 5000, ofportTimeoutMs: 30_000, ipamTimeoutMs: 60_000 });
  });

  it.each([
    [{ cachedir: '/x' }, ''],
    [{ timeouts: { ovsdbTimeout: 5 } }, 'timeouts'],
    [{ ipam: { kubeconfig: 'relative' } }, 'ipam.kubeconfig'],
    [{ ipam: { timeoutMs: 99 } }, 'ipam.timeoutMs'],
    [{ timeouts: { ofportTimeoutMs: 50 } }, 'timeouts.ofportTimeoutMs'],
    [{ ovsdbSocket: 'tcp:10.0.0.1:70000' }, 'ovsdbSocket'],
    [{ cacheDir: '/proc/self/cache' }, 'cacheDir'],
    [{ ipam: { allowedTypes: ['host-local', 'fabrik-ovs'] } }, 'ipam.allowedTypes.1'],
    [{ ipam: { allowedTypes: ['host-device'] } }, 'ipam.allowedTypes.0'],
    [{ ipam: { allowedTypes: ['../bin/sh'] } }, 'ipam.allowedTypes.0'],
    [{ ipam: { hostLocalDataDir: 'var/lib' } }, 'ipam.hostLocalDataDir'],
    [{ timeouts: { ipamTimeoutMs: 99 } }, 'timeouts.ipamTimeoutMs'],
  ])('refuses %j at %s', (input, path) => {
    const r = CniNodeSettings.safeParse(input);
    expect(r.success).toBe(false);
    expect(firstIssue(r)).toBe(path);
  });
});

describe('parseCniNodeSettings', () => {
  it('names an unknown field at the field itself', () => {
    const r = parseCniNodeSettings({ timeouts: { ovsdbTimeout: 5 } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.issues).toEqual([{ path: 'timeouts.ovsdbTimeout', message: 'unknown field' }]);
  });
});

describe('NodeLocalPath', () => {
  it.each(['/var/lib/cni/fabrik-ovs', '/', '/srv/é'])('accepts %s', (p) => {
    expect(NodeLocalPath.safeParse(p).success).toBe(true);
  });
  it.each([
    'var/lib',
    '/var/../etc',
    '/var/./lib',
    '/var//lib',
    '/var/lib/',
    '/a\0b',
    '/proc',
    '/proc/1/root/tmp',
    '/sys/fs',
    '/dev/shm/x',
    `/${'é'.repeat(512)}`,
  ])('refuses %j', (p) => {
    expect(NodeLocalPath.safeParse(p).success).toBe(false);
  });
  it('allows directories that only start like a pseudo file system', () => {
    expect(NodeLocalPath.safeParse('/procedures').success).toBe(true);
  });
});

describe('OvsdbAddress (the ovsdbSocket rule)', () => {
  it.each(['unix:/run/openvswitch/db.sock', 'tcp:127.0.0.1:6640', 'tcp:ovsdb.local:1', 'tcp:[::1]:65535'])(
    'accepts %s',
    (e) => expect(OvsdbAddress.safeParse(e).success).toBe(true),
  );
  it.each([
    'db.sock',
    'unix:relative',
    'tcp:host',
    'tcp:host:0',
    'tcp:host:65536',
    'tcp:[::1]:99999',
    'ssl:h:1',
  ])('refuses %s', (e) => expect(OvsdbAddress.safeParse(e).success).toBe(false));
});
