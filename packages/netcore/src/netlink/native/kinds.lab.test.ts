import { describe, expect, it } from 'vitest';
import { createTempNetns } from '@fabrik/testkit';
import { createIprouteNetlink, createNetlink } from '../handle.js';
import { createRunner } from '../exec.js';
import { decodeDumps, dumpNamespace } from '../observe.js';
import type { DesiredState } from '../desired.js';
import { observeNative } from './observe.js';
import { openSocketIn } from './namespace.js';
import { oracleView } from './oracle.testing.js';

// The link kinds the host kernel lacks (vrf, vlan, dummy), and a bridge with VLAN filtering, on
// the lab kernel: the native observe equals iproute2's, and the same state applied through both
// backends reads back the same.

const hbr: DesiredState = {
  owner: 'diff',
  links: [
    { kind: 'dummy', name: 'tr', mac: '02:00:00:00:20:00', mtu: 9000, up: true },
    { kind: 'vrf', name: 'red', table: 1001, mac: '02:00:00:00:20:09', up: true },
    { kind: 'bridge', name: 'br100', mac: '02:00:00:00:20:01', master: 'red', vlanFiltering: true, up: true },
    { kind: 'vlan', name: 'tr.100', parent: 'tr', id: 100, mtu: 1500, master: 'br100', up: true },
    { kind: 'vlan', name: 'tr.200', parent: 'tr', id: 200, protocol: '802.1ad', mac: '02:00:00:00:20:02' },
    {
      kind: 'vxlan',
      name: 'vx100',
      vni: 100,
      local: '192.0.2.1',
      dstport: 4789,
      learning: false,
      master: 'br100',
      mac: '02:00:00:00:20:03',
      up: true,
    },
  ],
  routes: [{ dst: 'default', type: 'unreachable', table: 1001, metric: 4278198272 }],
};

describe('vrf, vlan, dummy through rtnetlink and iproute2 (lab kernel)', () => {
  it('observes as iproute2 does and applies to the same state', async () => {
    const [a, b] = await Promise.all([createTempNetns('fabrik-kn-'), createTempNetns('fabrik-ki-')]);
    try {
      await Promise.all([
        createNetlink({ netns: a.name }).reconcile(hbr),
        createIprouteNetlink({ netns: b.name }).reconcile(hbr),
      ]);
      const viewA = await oracleView(a, hbr);
      expect(viewA.links.map((l) => l.spec.kind).sort()).toEqual([
        'bridge',
        'dummy',
        'generic',
        'vlan',
        'vlan',
        'vrf',
        'vxlan',
      ]);
      expect(viewA).toEqual(await oracleView(b, hbr));
      const scope = { routes: true, fdb: true };
      const viaIp = decodeDumps(await dumpNamespace(createRunner(a.name), scope), scope);
      const sock = openSocketIn(a.name);
      try {
        const native = observeNative(sock, a.name, scope);
        expect(native.links).toEqual(viaIp.links);
        expect(native.routes).toEqual(viaIp.routes);
      } finally {
        sock.close();
      }
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
    }
  });
});
