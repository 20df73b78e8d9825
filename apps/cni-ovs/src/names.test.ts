import { describe, expect, it } from 'vitest';
import { hostVethAlias, hostVethName, parseHostVethAlias, randomMac } from './names.js';

describe('names', () => {
  it('derives a stable 15-character host veth name', () => {
    const a = hostVethName('abc', 'net1');
    expect(a).toMatch(/^fovs[0-9a-f]{11}$/);
    expect(hostVethName('abc', 'net1')).toBe(a);
    expect(hostVethName('abc', 'net2')).not.toBe(a);
  });

  it('makes locally administered unicast MACs', () => {
    for (let i = 0; i < 50; i++) expect(parseInt(randomMac().slice(0, 2), 16) & 3).toBe(2);
  });

  it('round-trips the alias', () => {
    expect(parseHostVethAlias(hostVethAlias('n1', 'c.1', 'net1'))).toEqual({
      network: 'n1',
      containerId: 'c.1',
      ifname: 'net1',
    });
    expect(parseHostVethAlias('something else')).toBeUndefined();
  });
});
