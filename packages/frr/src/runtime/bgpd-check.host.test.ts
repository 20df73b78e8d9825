import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bgpdPart, checkBgpdConfig } from './bgpd-check.js';
import { checkFrrConfig } from './check.js';

const config = (body: string) =>
  `frr defaults datacenter\n!\nvrf red\n vni 1001\n ip route 10.9.0.0/24 blackhole\nexit-vrf\n!\nrouter bgp 65000\n${body}exit\n!\n`;

async function bgpdCrashDirs(): Promise<string[]> {
  return (await readdir('/var/tmp/frr').catch(() => [])).filter((n) => n.startsWith('bgpd.'));
}

describe('checkBgpdConfig (bgpd -C)', () => {
  it('accepts a valid configuration with blocks of other daemons', async () => {
    expect(await checkBgpdConfig(config(' bgp router-id 10.0.0.1\n'))).toEqual({ ok: true });
  });

  it('refuses what vtysh -C lets through, naming the line and keeping secrets out', async () => {
    const text = config(
      ' neighbor 192.0.2.1 remote-as external\n neighbor 192.0.2.1 password s3cret\n neighbor 192.0.2.1 peer-group NOPE\n !\n address-family ipv4 unicast\n  aggregate-address 10.0.0.1/32\n exit-address-family\n',
    );
    expect(await checkFrrConfig(text)).toEqual({ ok: true });
    const result = await checkBgpdConfig(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.line)).toEqual([11, 14]);
    expect(result.message).toContain('Configure the peer-group first');
    expect(result.message).toContain('will not result in any useful aggregation');
    expect(result.message).not.toContain('s3cret');
  });

  it('refuses a command bgpd rejects without a line number (% message)', async () => {
    const text = `frr defaults datacenter\n!\nrouter bgp 65000 vrf red\n address-family ipv4 unicast\n  import vrf route-map\n exit-address-family\nexit\n!\n`;
    const result = await checkBgpdConfig(text);
    expect(result).toMatchObject({
      ok: false,
      problems: [{ line: null, message: '% Must include route-map name' }],
    });
  });

  it('leaves no crash-log directory behind', async () => {
    // Other test files run bgpd -C at the same time, and their directories exist until their own
    // check has cleaned up: count, do not expect none. Without the cleanup all 20 would remain.
    const before = await bgpdCrashDirs();
    for (let i = 0; i < 20; i++) await checkBgpdConfig(config(''));
    const left = (await bgpdCrashDirs()).filter((d) => !before.includes(d));
    expect(left.length).toBeLessThan(5);
  });
});

describe('bgpdPart', () => {
  it('blanks vrf, bfd and static route lines and keeps the line count', () => {
    const text =
      'vrf a\n vni 1\nexit-vrf\nbfd\n profile x\n exit\nexit\nip route 1.0.0.0/8 blackhole\nrouter bgp 1\nexit\n';
    const part = bgpdPart(text);
    expect(part.split('\n')).toHaveLength(text.split('\n').length);
    expect(part.trim()).toBe('router bgp 1\nexit');
  });
});
