import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueName, type OvsInstance, type TempNetns } from '@fabrik/testkit';
import { spawn } from 'node:child_process';
import { hostVethName } from '@fabrik/ovs-attachment';
import { execPlugin, type PluginSandbox, usePluginTestBed } from '../test/harness.js';

// Traffic through OVS (userspace datapath) between Pods attached by the plugin: access ports of the
// same VLAN reach each other, another VLAN in the same IP subnet does not, a trunk port sees both
// VLANs tagged, a Pod coming up announces itself with a gratuitous ARP, and a Pod without a VLAN
// cannot reach another VLAN by tagging its frames.

const bed = usePluginTestBed({ bridgePrefix: 'brv', netnsPrefix: 'fcv-' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));
const SUBNET = '10.100.0.0/24';

interface Pod {
  ns: TempNetns;
  ip: string;
  /** Its OVS port (the host veth). */
  port: string;
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
  const containerId = uniqueName('c');
  const r = await execPlugin(sb, 'ADD', conf, { containerId, netns: ns.path, ifname: 'net1' });
  expect(r.code, JSON.stringify(r.out)).toBe(0);
  const ip = ((r.out?.['ips'] as Array<{ address: string }>)[0]?.address ?? '').split('/')[0] ?? '';
  return { ns, ip, port: hostVethName(containerId, 'net1') };
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

/**
 * Sends one Ethernet frame out of the Pod's net1, 802.1Q-tagged with `vid`, from `srcMac` to the
 * broadcast address (ethertype 0x88b5, local experimental): what a tenant with CAP_NET_RAW in its
 * Pod can always do, VLAN link or not. Through an AF_PACKET socket (the host kernel has no 8021q).
 */
async function sendTagged(from: Pod, vid: number, srcMac: string): Promise<void> {
  const frame = [
    'ff'.repeat(6),
    srcMac.replaceAll(':', ''),
    '8100',
    vid.toString(16).padStart(4, '0'),
    '88b5',
    Buffer.from('fabrik-vlan-hop-test').toString('hex').padEnd(92, '0'),
  ].join('');
  await from.ns.exec('/usr/bin/python3', [
    '-c',
    `import socket; s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind(("net1", 0)); s.send(bytes.fromhex("${frame}"))`,
  ]);
}

describe('a Pod without a VLAN (vlan 0)', () => {
  it('is an untagged access port: a frame it sends tagged with another tenant’s VLAN is dropped, while a trunk of that VLAN delivers it', async () => {
    const untagged = await attach(uniqueName('v0'), {}, '10.100.0.40', '10.100.0.49');
    const victim = await attach(uniqueName('v300'), { vlan: 300 }, '10.100.0.50', '10.100.0.59');
    const trunk = await attach(uniqueName('tr300'), { trunk: [{ id: 300 }] }, '10.100.0.60', '10.100.0.69');
    // The port as OVS has it: VLAN 0, access, no trunks (OVS's default would trunk every VLAN).
    const row = (
      await ovs.vsctl(
        '--format=csv',
        '--no-headings',
        '--columns=tag,vlan_mode,trunks',
        'list',
        'Port',
        untagged.port,
      )
    ).trim();
    expect(row).toBe('0,access,[]');

    const dump = await capture(victim.ns);
    const fromUntagged = '02:fa:b0:00:00:01';
    const fromTrunk = '02:fa:b0:00:00:02';
    await sendTagged(untagged, 300, fromUntagged);
    await sendTagged(trunk, 300, fromTrunk);
    await new Promise((r) => setTimeout(r, 1000));
    const seen = await dump.stop();
    // The trunk's frame shows that the capture sees such frames; the vlan-0 Pod's never arrives.
    expect(seen).toContain(fromTrunk);
    expect(seen).not.toContain(fromUntagged);
  });
});
