import { describe, expect, it } from 'vitest';
import { parseCniResult } from './parse-result.js';

describe('parseCniResult', () => {
  it('reads a 0.4.0 result into the 1.1.0 form (ips[].version dropped, unknown fields ignored)', () => {
    expect(
      parseCniResult({
        cniVersion: '0.4.0',
        interfaces: [{ name: 'net1', mac: '02:00:00:00:00:01', sandbox: '/run/netns/x', extra: 1 }],
        ips: [{ version: '4', address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 0 }],
        routes: [{ dst: '0.0.0.0/0' }],
        dns: { nameservers: ['10.0.0.53'] },
      }),
    ).toEqual({
      ok: true,
      result: {
        interfaces: [{ name: 'net1', mac: '02:00:00:00:00:01', sandbox: '/run/netns/x' }],
        ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1', interface: 0 }],
        routes: [{ dst: '0.0.0.0/0' }],
        dns: { nameservers: ['10.0.0.53'] },
      },
    });
  });

  it("keeps fabrik's own field (the VLAN an IPAM plugin reports) and drops what it does not know of it", () => {
    expect(parseCniResult({ ips: [], fabrik: { vlan: 120, other: true } })).toEqual({
      ok: true,
      result: { ips: [], fabrik: { vlan: 120 } },
    });
  });

  it.each([
    [null, '(result)'],
    [{ interfaces: [null] }, 'interfaces.0'],
    [{ interfaces: null }, 'interfaces'],
    [{ ips: [{ address: 5 }] }, 'ips.0.address'],
    [{ ips: [{ address: '10.0.0.2/24', interface: -1 }] }, 'ips.0.interface'],
    [{ routes: [{ dst: '10.0.0.0/8', priority: 'high' }] }, 'routes.0.priority'],
    [{ dns: { nameservers: 'x' } }, 'dns.nameservers'],
    [{ fabrik: { vlan: 0 } }, 'fabrik.vlan'],
    [{ fabrik: { vlan: 4095 } }, 'fabrik.vlan'],
  ])('%j: names %s', (raw, field) => {
    expect(parseCniResult(raw)).toMatchObject({ ok: false, field });
  });
});
