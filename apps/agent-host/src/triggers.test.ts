import { describe, expect, it } from 'vitest';
import type { RowChange } from '@fabrik/netcore/ovsdb';
import { hostDriftReason, ovsChangeReason } from './triggers.js';

const watched = { links: new Set(['br-ex', 'eth0', 'tr.100']), addressed: new Set(['br-ex', 'eth0']) };

describe('drift triggers', () => {
  it('wake up for the links, addresses and routes agent-host keeps, and only for them', () => {
    expect(hostDriftReason({ object: 'link', deleted: true, name: 'tr.100', up: false }, watched)).toBe(
      'link tr.100 deleted',
    );
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
    const row = (name: string, owner?: string) =>
      ({ name, external_ids: owner ? { 'fabrik-owner': owner } : {} }) as never;
    const change = (table: 'Port' | 'Bridge', kind: RowChange['kind'], r: unknown) =>
      ({ table, uuid: 'u', kind, ...(kind === 'delete' ? { old: r } : { new: r }) }) as RowChange;
    expect(ovsChangeReason([change('Port', 'delete', row('eth1', 'agent-host'))], watched)).toBe(
      'ovsdb Port eth1 deleted',
    );
    expect(ovsChangeReason([change('Bridge', 'insert', row('br-ex'))], watched)).toBe(
      'ovsdb Bridge br-ex created',
    );
    expect(ovsChangeReason([change('Port', 'insert', row('veth1234', 'cni-ovs'))], watched)).toBeUndefined();
  });
});
