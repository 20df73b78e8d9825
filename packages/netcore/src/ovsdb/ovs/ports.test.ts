import { describe, expect, it } from 'vitest';
import { OVS_OWNER_KEY, planAddPorts, type ObservedForAddPorts } from './index.js';
import { checkPortSpec } from './validation.js';

const BR = '11111111-1111-1111-1111-111111111111';
const P = '22222222-2222-2222-2222-222222222222';
const I = '33333333-3333-3333-3333-333333333333';

const observed = (
  ports: ObservedForAddPorts['ports'] = new Map(),
  bridgePorts: string[] = [],
): ObservedForAddPorts => ({
  bridges: new Map([['br0', { uuid: BR, ports: bridgePorts }]]),
  ports,
});

describe('planAddPorts', () => {
  it('inserts interface and port marked with the owner, and adds every new port to its bridge in one mutation', () => {
    const { ops, outcomes } = planAddPorts(
      [
        { bridge: 'br0', name: 'p1', tag: 100, externalIds: { pod: 'a' } },
        {
          bridge: 'br0',
          name: 'p2',
          type: 'patch',
          peer: 'p1',
          trunks: [1, 2],
          vlanMode: 'trunk',
          owner: 'cni',
        },
      ],
      observed(),
    );
    expect(outcomes).toEqual([
      { kind: 'created', interfaceOp: 0, portOp: 1 },
      { kind: 'created', interfaceOp: 2, portOp: 3 },
    ]);
    expect(ops).toEqual([
      {
        op: 'insert',
        table: 'Interface',
        'uuid-name': 'iface0',
        row: { name: 'p1', type: '', external_ids: ['map', [[OVS_OWNER_KEY, 'fabrik']]] },
      },
      {
        op: 'insert',
        table: 'Port',
        'uuid-name': 'port0',
        row: {
          name: 'p1',
          interfaces: ['set', [['named-uuid', 'iface0']]],
          tag: 100,
          external_ids: [
            'map',
            [
              ['pod', 'a'],
              [OVS_OWNER_KEY, 'fabrik'],
            ],
          ],
        },
      },
      {
        op: 'insert',
        table: 'Interface',
        'uuid-name': 'iface1',
        row: {
          name: 'p2',
          type: 'patch',
          options: ['map', [['peer', 'p1']]],
          external_ids: ['map', [[OVS_OWNER_KEY, 'cni']]],
        },
      },
      {
        op: 'insert',
        table: 'Port',
        'uuid-name': 'port1',
        row: {
          name: 'p2',
          interfaces: ['set', [['named-uuid', 'iface1']]],
          trunks: ['set', [1, 2]],
          vlan_mode: 'trunk',
          external_ids: ['map', [[OVS_OWNER_KEY, 'cni']]],
        },
      },
      {
        op: 'mutate',
        table: 'Bridge',
        where: [['_uuid', '==', ['uuid', BR]]],
        mutations: [
          [
            'ports',
            'insert',
            [
              'set',
              [
                ['named-uuid', 'port0'],
                ['named-uuid', 'port1'],
              ],
            ],
          ],
        ],
      },
    ]);
  });

  it('an owned port already on the bridge is updated in place, guarded by its owner mark', () => {
    const ports = new Map([['p1', { uuid: P, interfaces: [I], externalIds: { [OVS_OWNER_KEY]: 'cni' } }]]);
    const { ops, outcomes } = planAddPorts(
      [{ bridge: 'br0', name: 'p1', tag: 7, externalIds: { pod: 'b' }, owner: 'cni' }],
      observed(ports, [P]),
    );
    expect(outcomes).toEqual([{ kind: 'existing', portUuid: P, interfaceUuid: I }]);
    expect(ops.map((o) => [o.op, 'table' in o ? o.table : ''])).toEqual([
      ['wait', 'Port'],
      ['update', 'Port'],
      ['mutate', 'Port'],
      ['update', 'Interface'],
    ]);
    expect(ops[0]).toMatchObject({
      where: [
        ['_uuid', '==', ['uuid', P]],
        ['external_ids', 'includes', ['map', [[OVS_OWNER_KEY, 'cni']]]],
      ],
      until: '!=',
      rows: [],
      timeout: 0,
    });
    // external_ids: delete the keys, then insert them (map insert does not overwrite).
    expect(ops[2]).toMatchObject({
      mutations: [
        ['external_ids', 'delete', ['set', ['pod']]],
        ['external_ids', 'insert', ['map', [['pod', 'b']]]],
      ],
    });
  });

  it('refuses foreign ports, ports on another bridge and unknown bridges with typed errors', () => {
    const foreign = new Map([['p1', { uuid: P, interfaces: [I], externalIds: {} }]]);
    expect(() => planAddPorts([{ bridge: 'br0', name: 'p1' }], observed(foreign, [P]))).toThrow(
      expect.objectContaining({ code: 'OVSDB_NOT_OWNED' }),
    );
    const othersPort = new Map([
      ['p1', { uuid: P, interfaces: [I], externalIds: { [OVS_OWNER_KEY]: 'cni' } }],
    ]);
    expect(() =>
      planAddPorts([{ bridge: 'br0', name: 'p1', owner: 'agent-host' }], observed(othersPort, [P])),
    ).toThrow(expect.objectContaining({ code: 'OVSDB_NOT_OWNED', owner: 'agent-host', foundOwner: 'cni' }));
    const elsewhere = new Map([
      ['p1', { uuid: P, interfaces: [I], externalIds: { [OVS_OWNER_KEY]: 'fabrik' } }],
    ]);
    expect(() => planAddPorts([{ bridge: 'br0', name: 'p1' }], observed(elsewhere, []))).toThrow(
      expect.objectContaining({ code: 'OVSDB_CONFLICT' }),
    );
    expect(() => planAddPorts([{ bridge: 'nope', name: 'p1' }], observed())).toThrow(
      expect.objectContaining({ code: 'OVSDB_NOT_FOUND', table: 'Bridge', rowName: 'nope' }),
    );
  });
});

describe('checkPortSpec: VLAN 0', () => {
  it('takes tag 0 on an access port (the untagged frames only), and refuses it anywhere else naming the field', () => {
    expect(() =>
      checkPortSpec({ bridge: 'br0', name: 'p1', tag: 0, vlanMode: 'access' }, 'ports[0]'),
    ).not.toThrow();
    expect(() => checkPortSpec({ bridge: 'br0', name: 'p1', tag: 0 }, 'ports[0]')).toThrow(/ports\[0\]\.tag/);
    expect(() =>
      checkPortSpec({ bridge: 'br0', name: 'p1', tag: 0, vlanMode: 'native-untagged' }, 'ports[0]'),
    ).toThrow(/ports\[0\]\.tag/);
  });
});
