import { describe, expect, it } from 'vitest';
import type { RowChange } from '@fabrik/netcore/ovsdb';
import { hostDriftReason, ovsChangeReason } from './triggers.js';

const watched = {
  links: new Set(['br-ex', 'eth0', 'tr.100', 'tr.200']),
  addressed: new Set(['br-ex', 'eth0']),
  present: new Set(['br-ex', 'eth0', 'tr.100']),
  up: new Set(['tr.100', 'tr.200']),
};

describe('drift triggers', () => {
  it('wake up for what contradicts the links, addresses and routes agent-host keeps, and only for that', () => {
    expect(hostDriftReason({ object: 'link', deleted: true, name: 'tr.100', up: false }, watched)).toBe(
      'link tr.100 deleted',
    );
    expect(hostDriftReason({ object: 'link', deleted: false, name: 'tr.100', up: false }, watched)).toBe(
      'link tr.100 set down',
    );
    // tr.200 was not there when the last pass ended (ovs-vswitchd had not made it, or it was deleted).
    expect(hostDriftReason({ object: 'link', deleted: false, name: 'tr.200', up: false }, watched)).toBe(
      'link tr.200 appeared',
    );
    // As the pass left it: a carrier or master change (ovs-vswitchd attaching it), nothing to do.
    expect(
      hostDriftReason(
        { object: 'link', deleted: false, name: 'tr.100', up: true, master: 'ovs-system' },
        watched,
      ),
    ).toBeUndefined();
    expect(
      hostDriftReason(
        { object: 'link', deleted: false, name: 'eth0', up: false, master: 'ovs-system' },
        watched,
      ),
    ).toBeUndefined();
    expect(
      hostDriftReason({ object: 'link', deleted: false, name: 'veth-pod', up: true }, watched),
    ).toBeUndefined();
    expect(
      hostDriftReason({ object: 'address', deleted: false, dev: 'eth0', address: '10.0.0.2/24' }, watched),
    ).toBe('address 10.0.0.2/24 on eth0 changed');
    expect(
      hostDriftReason({ object: 'address', deleted: false, dev: 'tr.100', address: '10.1.0.1/24' }, watched),
    ).toBeUndefined();
    expect(hostDriftReason({ object: 'route', deleted: false, dst: 'default', dev: 'eth0' }, watched)).toBe(
      'route default dev eth0 changed',
    );
    expect(
      hostDriftReason({ object: 'route', deleted: false, dst: 'default', dev: 'wlan0' }, watched),
    ).toBeUndefined();
  });

  it("wake up for OVSDB changes of agent-host's rows or of rows with the names it wants", () => {
    const row = (name: string, owner?: string, more: Record<string, unknown> = {}) =>
      ({ name, external_ids: owner ? { 'fabrik-owner': owner } : {}, ...more }) as never;
    const change = (table: 'Port' | 'Bridge', kind: RowChange['kind'], r: unknown) =>
      ({ table, uuid: 'u', kind, ...(kind === 'delete' ? { old: r } : { new: r }) }) as RowChange;
    const modify = (old: unknown, next: unknown) =>
      ({ table: 'Interface', uuid: 'u', kind: 'modify', old, new: next }) as RowChange;
    expect(ovsChangeReason([change('Port', 'delete', row('eth1', 'agent-host'))], watched)).toBe(
      'ovsdb Port eth1 deleted',
    );
    expect(ovsChangeReason([change('Bridge', 'insert', row('br-ex'))], watched)).toBe(
      'ovsdb Bridge br-ex created',
    );
    expect(ovsChangeReason([change('Port', 'insert', row('veth1234', 'cni-ovs'))], watched)).toBeUndefined();
    // ovs-vswitchd numbering an interface the pass added: its doing, not a change to follow.
    const tr100 = (more: Record<string, unknown>) =>
      row('tr.100', 'agent-host', { type: 'internal', ...more });
    expect(ovsChangeReason([modify(tr100({ ofport: [] }), tr100({ ofport: 3 }))], watched)).toBeUndefined();
    expect(
      ovsChangeReason(
        [modify(tr100({ ofport: 3 }), tr100({ ofport: -1, error: 'could not open' }))],
        watched,
      ),
    ).toBe('ovsdb Interface tr.100 changed [error ofport]');
    // A port added to or removed from agent-host's bridge: the Port row's change tells whose it is.
    const bridge = (ports: string[], more: Record<string, unknown> = {}) =>
      row('br-ex', 'agent-host', { ports: ['set', ports.map((p) => ['uuid', p])], ...more });
    const bridgeModify = (old: unknown, next: unknown) =>
      ({ table: 'Bridge', uuid: 'b', kind: 'modify', old, new: next }) as RowChange;
    expect(ovsChangeReason([bridgeModify(bridge(['p1']), bridge(['p1', 'p2']))], watched)).toBeUndefined();
    expect(
      ovsChangeReason(
        [
          bridgeModify(bridge(['p1']), bridge(['p1', 'p2'])),
          change('Port', 'insert', row('veth1234', 'cni-ovs')),
        ],
        watched,
      ),
    ).toBeUndefined();
    expect(
      ovsChangeReason([bridgeModify(bridge(['p1']), bridge([], { fail_mode: 'secure' }))], watched),
    ).toBe('ovsdb Bridge br-ex changed [fail_mode ports]');
  });
});
