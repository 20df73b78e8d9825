import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import { createTempNetns, uniqueName, type TempNetns } from '@fabrik/testkit';
import { hostVethAlias, hostVethName } from './names.js';
import { attachmentVethDel, configurePodInterface, enableArpNotify } from './pod-interface.js';

// The Pod end's kernel configuration in a throwaway netns given by path (as CNI_NETNS is), read
// back with raw `ip -j` and sysctl.

let ns: TempNetns | undefined;
afterEach(async () => {
  await ns?.destroy();
  ns = undefined;
});

const json = async (n: TempNetns, ...args: string[]): Promise<Array<Record<string, unknown>>> =>
  JSON.parse((await n.ip('-j', ...args)) || '[]') as Array<Record<string, unknown>>;

describe('Pod interface configuration (host kernel)', () => {
  it('sets arp_notify, then addresses, link up and routes with the 1.1.0 attributes', async () => {
    ns = await createTempNetns('fabrik-cnipod-');
    await ns.ip('link', 'add', 'net1', 'type', 'veth', 'peer', 'name', 'peer1');
    await enableArpNotify(ns.path, 'net1');
    expect((await ns.exec('sysctl', ['-n', 'net.ipv4.conf.net1.arp_notify'])).stdout.trim()).toBe('1');

    await configurePodInterface(
      ns.path,
      'net1',
      [
        { cidr: '10.41.0.5/24', gateway: '10.41.0.1' },
        { cidr: 'fd41::5/64', gateway: 'fd41::1' },
      ],
      [
        { dst: '10.42.0.0/16', mtu: 1400, advmss: 1360, priority: 9 },
        { dst: '10.43.0.0/24', gw: '10.41.0.254', table: 100, scope: 0 },
        { dst: '::/0' },
      ],
    );
    const [link] = await json(ns, 'addr', 'show', 'net1');
    expect(link?.['flags']).toContain('UP');
    expect(link?.['addr_info']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ local: '10.41.0.5' }),
        expect.objectContaining({ local: 'fd41::5', nodad: true }),
      ]),
    );
    expect(await json(ns, '-4', 'route', 'show', '10.42.0.0/16')).toEqual([
      expect.objectContaining({ gateway: '10.41.0.1', metric: 9, metrics: [{ mtu: 1400, advmss: 1360 }] }),
    ]);
    expect(await json(ns, '-4', 'route', 'show', 'table', '100')).toEqual([
      expect.objectContaining({ dst: '10.43.0.0/24', gateway: '10.41.0.254', dev: 'net1' }),
    ]);
    expect(await json(ns, '-6', 'route', 'show', 'default')).toEqual([
      expect.objectContaining({ gateway: 'fd41::1', dev: 'net1' }),
    ]);
  });
});

describe("DEL's host veth (host kernel, this machine's namespace)", () => {
  it('deletes the veth only when its mark names the attachment; a foreign or unmarked one stays', async () => {
    const containerId = uniqueName('c');
    const name = hostVethName(containerId, 'net1');
    const exists = async () =>
      (await runCommand('ip', ['link', 'show', 'dev', name]).then(
        () => true,
        () => false,
      )) as boolean;
    const mark = (id: string) => hostVethAlias({ network: 'n', containerId: id, ifname: 'net1' });
    try {
      await runCommand('ip', [
        'link',
        'add',
        name,
        'type',
        'veth',
        'peer',
        'name',
        name.replace(/^fovs/, 'fovp'),
      ]);
      expect(await attachmentVethDel(name, containerId, 'net1')).toBe('foreign'); // no mark at all
      await runCommand('ip', ['link', 'set', 'dev', name, 'alias', mark(`${containerId}x`)]);
      expect(await attachmentVethDel(name, containerId, 'net1')).toBe('foreign');
      expect(await attachmentVethDel(name, containerId, 'net2')).toBe('foreign');
      expect(await exists()).toBe(true);

      await runCommand('ip', ['link', 'set', 'dev', name, 'alias', mark(containerId)]);
      expect(await attachmentVethDel(name, containerId, 'net1')).toBe('deleted');
      expect(await exists()).toBe(false);
      expect(await attachmentVethDel(name, containerId, 'net1')).toBe('absent');
    } finally {
      await runCommand('ip', ['link', 'del', name]).catch(() => undefined);
    }
  });
});
