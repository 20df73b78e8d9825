import { describe, expect, it } from 'vitest';
import { parseFrrStatus } from './status.js';

describe('parseFrrStatus', () => {
  it('decodes vtysh JSON (FRR 8.4 shapes)', () => {
    const status = parseFrrStatus({
      bgpSummary: {
        default: {
          ipv4Unicast: {
            as: 65000,
            peers: { '192.0.2.2': { remoteAs: 65001, state: 'Established', pfxRcd: 3 } },
          },
          l2VpnEvpn: { as: 65000, peers: { '192.0.2.2': { remoteAs: 0, state: 'Active' } } },
        },
        red: { ipv4Unicast: { as: 65000, peers: {} } },
      },
      evpnVni: {
        '2100': { vni: 2100, type: 'L2', vxlanIf: 'vx2100', numRemoteVteps: 1, tenantVrf: 'red' },
        '1001': { vni: 1001, type: 'L3', vxlanIf: 'None', tenantVrf: 'Unknown' },
      },
      vrfVni: { vrfs: [{ vrf: 'red', vni: 1001, vxlanIntf: 'None', state: 'Down' }] },
    });
    expect(status).toEqual({
      bgpSessions: [
        {
          vrf: 'default',
          addressFamily: 'ipv4Unicast',
          neighbor: '192.0.2.2',
          state: 'Established',
          remoteAs: 65001,
          prefixesReceived: 3,
        },
        {
          vrf: 'default',
          addressFamily: 'l2VpnEvpn',
          neighbor: '192.0.2.2',
          state: 'Active',
          remoteAs: 0,
          prefixesReceived: null,
        },
      ],
      evpnVnis: [
        { vni: 1001, type: 'L3', vxlanInterface: null, vrf: null, remoteVteps: null },
        { vni: 2100, type: 'L2', vxlanInterface: 'vx2100', vrf: 'red', remoteVteps: 1 },
      ],
      vrfVnis: [{ vrf: 'red', vni: 1001, state: 'Down', vxlanInterface: null }],
    });
  });
  it('accepts the empty output FRR prints without VNIs or VRFs', () => {
    expect(parseFrrStatus({ bgpSummary: {}, evpnVni: {}, vrfVni: {} })).toEqual({
      bgpSessions: [],
      evpnVnis: [],
      vrfVnis: [],
    });
  });
});
