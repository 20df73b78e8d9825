import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, type TempNetns } from '@fabrik/testkit';
import { spawn } from 'node:child_process';
import { execPlugin, type PluginSandbox, usePluginTestBed } from '../test/harness.js';

// Traffic through OVS (userspace datapath) between Pods attached by the plugin: access ports of the
// same VLAN reach each other, another VLAN in the same IP subnet does not, a trunk port sees both
// VLANs tagged, and a Pod coming up announces itself with a gratuitous ARP.

const bed = usePluginTestBed({ bridgePrefix: 'brv', netnsPrefix: 'fcv-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
beforeAll(() => ({ sb } = bed));
const SUBNET = '10.100.0.0/24';

interface Pod {
  ns: TempNetns;
  ip: string;
}

async function attach(
  net: string,
  vlanConf: Record<string, unknown>,
  rangeStart: string,
  rangeEnd: string,
): Promise<Pod> {
  const ns = await netns();
  const conf = {
    cniVersion: '1.0.0',
    name: net,
    type: 'fabrik-ovs',
    bridge,
    ...vlanConf,
    ipam: {
      type: 'host-local',
      ranges: [[{ subnet: SUBNET, rangeStart, rangeEnd }]],
    },
  };
  const r = await execPlugin(sb, 'ADD', conf, {
    containerId: uniqueName('c'),
    netns: ns.path,
    ifname: 'net1',
  });
  expect(r.code, JSON.stringify(r.out)).toBe(0);
  const ip = ((r.out?.['ips'] as Array<{ address: string }>)[0]?.address ?? '').split('/')[0] ?? '';
  return { ns, ip };
}

const ping = (from: Pod, to: string) => from.ns.exec('ping', ['-c', '2', '-W', '1', '-i', '0.2', to]);

/** Starts tcpdump on net1 of `ns`; `stop()` interrupts exactly that process and returns what it printed. */
async function capture(ns: TempNetns): Promise<{ stop: () => Promise<string> }> {
  // `ip netns exec` execs tcpdump in place, so the child's pid is tcpdump's.
  const child = spawn('ip', ['netns', 'exec', ns.name, 'tcpdump', '-i', 'net1', '-e', '-nn', '-l', '-U'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  // The capture is the test's evidence: without tcpdump listening there is nothing to assert, so
  // a tcpdump that exits or never says it listens fails the test instead of letting it go on.
  await new Promise<void>((resolve, reject) => {
    let listening = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tcpdump on ${ns.name}/net1 did not start listening within 20 s: ${err.trim()}`));
    }, 20_000);
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      if (!listening && err.includes('listening on')) {
        listening = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('close', (code) => {
      if (listening) return;
      clearTimeout(timer);
      reject(new Error(`tcpdump on ${ns.name}/net1 exited (${code}) before listening: ${err.trim()}`));
    });
  });
  return {
    stop: async () => {
      child.kill('SIGINT');
      await exited;
      return out;
    },
  };
}

describe('VLAN isolation on OVS', () => {
  it('two Pods on VLAN 100 ping each other; a VLAN 200 Pod cannot reach them; a trunk port carries both', async () => {
    const trunk = await attach(
      uniqueName('tr'),
      { trunk: [{ id: 100 }, { id: 200 }] },
      '10.100.0.200',
      '10.100.0.210',
    );
    const dump = await capture(trunk.ns);

    const a = await attach(uniqueName('v100'), { vlan: 100 }, '10.100.0.10', '10.100.0.19');
    const b = await attach(uniqueName('v100'), { vlan: 100 }, '10.100.0.20', '10.100.0.29');
    const c = await attach(uniqueName('v200'), { vlan: 200 }, '10.100.0.30', '10.100.0.39');

    await ping(a, b.ip);
    await ping(b, a.ip);
    await expect(ping(c, a.ip)).rejects.toThrow();
    await expect(ping(c, b.ip)).rejects.toThrow();

    const seen = await dump.stop();
    // Gratuitous ARPs of the access Pods (arp_notify when net1 came up), each tagged with its VLAN.
    expect(seen).toMatch(
      new RegExp(
        `vlan 100, .*Request who-has ${a.ip.replaceAll('.', '\\.')} tell ${a.ip.replaceAll('.', '\\.')}`,
      ),
    );
    expect(seen).toMatch(
      new RegExp(
        `vlan 200, .*Request who-has ${c.ip.replaceAll('.', '\\.')} tell ${c.ip.replaceAll('.', '\\.')}`,
      ),
    );
    // The ARP requests of the failed pings of the VLAN 200 Pod reached the trunk, tagged 200.
    expect(seen).toMatch(
      new RegExp(`vlan 200, .*who-has ${a.ip.replaceAll('.', '\\.')} tell ${c.ip.replaceAll('.', '\\.')}`),
    );
  });
});
