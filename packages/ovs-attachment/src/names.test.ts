import { describe, expect, it } from 'vitest';
import { MAX_CONTAINER_ID_LENGTH } from '@fabrik/cni-skel';
import {
  MAX_NETWORK_NAME_LENGTH,
  hostVethAlias,
  hostVethName,
  marksAttachment,
  parseHostVethAlias,
  randomMac,
} from './names.js';

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
    const id = { network: 'n1', containerId: 'c.1', ifname: 'net1' };
    expect(parseHostVethAlias(hostVethAlias(id))).toEqual(id);
    expect(parseHostVethAlias('something else')).toBeUndefined();
    expect(parseHostVethAlias('fabrik:cni-ovs:n1:c1')).toBeUndefined();
    expect(parseHostVethAlias('fabrik:agent-host:n1:c1:net1')).toBeUndefined();
  });

  it('the longest accepted names still fit the kernel ifalias (255 bytes)', () => {
    const alias = hostVethAlias({
      network: 'n'.repeat(MAX_NETWORK_NAME_LENGTH),
      containerId: 'c'.repeat(MAX_CONTAINER_ID_LENGTH),
      ifname: 'i'.repeat(15),
    });
    expect(Buffer.byteLength(alias)).toBe(255);
  });

  it('an alias marks an attachment only when container id and ifname both match', () => {
    const alias = hostVethAlias({ network: 'n1', containerId: 'c1', ifname: 'net1' });
    expect(marksAttachment(alias, 'c1', 'net1')).toBe(true);
    expect(marksAttachment(alias, 'c1', 'net2')).toBe(false);
    expect(marksAttachment(alias, 'c2', 'net1')).toBe(false);
    expect(marksAttachment(undefined, 'c1', 'net1')).toBe(false);
    expect(marksAttachment('fabrik:agent-host:n1:c1:net1', 'c1', 'net1')).toBe(false);
  });
});
