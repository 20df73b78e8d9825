import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isOvsdbInvalidInputError, isOvsdbOwnershipError } from '../errors.js';
import { vswitchColumns, type BridgeRow, type InterfaceRow, type PortRow } from '../model/index.js';
import { defaultValue } from '../wire/index.js';
import {
  OVS_OWNER_KEY,
  formatOvsPlan,
  ovsOwnershipConflicts,
  planOvs,
  type OvsDesiredState,
  type OvsObservedState,
} from './index.js';

// The planner against hand-built database contents. The round trip against a real ovsdb-server
// (the plan of an applied state is empty, foreign rows untouched) is in ovsdb.host.test.ts.

const OWNER = 'agent-host';

interface PortFixture {
  readonly name: string;
  readonly owner?: string;
  readonly type?: string;
  readonly tag?: number;
  readonly trunks?: number[];
  readonly mtuRequest?: number;
}
interface BridgeFixture {
  readonly name: string;
  readonly owner?: string;
  readonly datapathType?: string;
  readonly otherConfig?: Record<string, string>;
  /** Besides the local port (same owner as the bridge). */
  readonly ports?: PortFixture[];
}

function row<T>(table: 'Bridge' | 'Port' | 'Interface', fields: Record<string, unknown>): T {
  const columns = vswitchColumns[table] as Record<string, Parameters<typeof defaultValue>[0]>;
  const base = Object.fromEntries(Object.entries(columns).map(([k, t]) => [k, defaultValue(t)]));
  return { ...base, ...fields } as T;
}

/** A fixed UUID per row, so tests can name it: `id('port', 'eth1')`. */
const id = (kind: string, name: string): string => {
  const h = createHash('md5').update(`${kind}-${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

/** Database contents; each row's uuid is `id(<table>, <name>)`. */
function observed(bridges: BridgeFixture[]): OvsObservedState {
  const Bridge = new Map<string, BridgeRow>();
  const Port = new Map<string, PortRow>();
  const Interface = new Map<string, InterfaceRow>();
  const mark = (owner?: string) => (owner === undefined ? {} : { [OVS_OWNER_KEY]: owner });
  for (const b of bridges) {
    const ports = [{ name: b.name, owner: b.owner, type: 'internal' }, ...(b.ports ?? [])];
    for (const p of ports) {
      Interface.set(
        id('iface', p.name),
        row('Interface', {
          _uuid: id('iface', p.name),
          name: p.name,
          type: p.type ?? '',
          mtu_request: p.mtuRequest,
          external_ids: mark(p.owner),
        }),
      );
      Port.set(
        id('port', p.name),
        row('Port', {
          _uuid: id('port', p.name),
          name: p.name,
          interfaces: [id('iface', p.name)],
          tag: p.tag,
          trunks: p.trunks ?? [],
          external_ids: mark(p.owner),
        }),
      );
    }
    Bridge.set(
      id('bridge', b.name),
      row('Bridge', {
        _uuid: id('bridge', b.name),
        name: b.name,
        datapath_type: b.datapathType ?? '',
        ports: ports.map((p) => id('port', p.name)),
        other_config: b.otherConfig ?? {},
        external_ids: mark(b.owner),
      }),
    );
  }
  return {
    Open_vSwitch: new Map([[id('root', ''), row('Bridge', { _uuid: id('root', '') })]]) as never,
    Bridge,
    Port,
    Interface,
  };
}

const desired = (bridges: OvsDesiredState['bridges']): OvsDesiredState => ({ owner: OWNER, bridges });

describe('planOvs', () => {
  it('creates a bridge with its local port and uplinks in one transaction, marked with the owner', () => {
    const plan = planOvs(
      desired([
        {
          name: 'br-sec',
          datapathType: 'netdev',
          mcastSnooping: true,
          ports: [
            { name: 'eth1', tag: null, trunks: [200, 100] },
            { name: 'tr.100', type: 'internal', tag: 100, mtuRequest: 9000 },
          ],
        },
      ]),
      observed([]),
    );
    expect(formatOvsPlan(plan)).toEqual([
      'add-br br-sec datapath_type=netdev mcast_snooping_enable=true',
      'add-port br-sec eth1 trunks=100,200',
      'add-port br-sec tr.100 type=internal tag=100 mtu_request=9000',
    ]);
    const bridge = plan.ops.find((o) => o.op === 'insert' && o.table === 'Bridge');
    expect(bridge).toMatchObject({
      row: {
        name: 'br-sec',
        ports: [
          'set',
          [
            ['named-uuid', 'port2'],
            ['named-uuid', 'port0'],
            ['named-uuid', 'port1'],
          ],
        ],
        external_ids: ['map', [[OVS_OWNER_KEY, OWNER]]],
      },
    });
    expect(plan.ops.at(-1)).toMatchObject({
      op: 'mutate',
      table: 'Open_vSwitch',
      mutations: [['bridges', 'insert', expect.anything()]],
    });
  });

  it('plans nothing when the database matches', () => {
    const db = observed([
      {
        name: 'br-sec',
        owner: OWNER,
        datapathType: 'netdev',
        otherConfig: { hwaddr: '02:00:00:00:00:01' },
        ports: [{ name: 'eth1', owner: OWNER, trunks: [100, 200] }],
      },
    ]);
    const plan = planOvs(
      desired([
        {
          name: 'br-sec',
          datapathType: 'netdev',
          otherConfig: { hwaddr: '02:00:00:00:00:01', 'some-key': null },
          ports: [{ name: 'eth1', tag: null, trunks: [200, 100], vlanMode: null }],
        },
      ]),
      db,
    );
    expect(plan).toEqual({ ops: [], changes: [], kept: [] });
  });

  it('changes an owned port in place behind a wait on its owner mark', () => {
    const db = observed([
      { name: 'br-sec', owner: OWNER, ports: [{ name: 'eth1', owner: OWNER, trunks: [100], tag: 5 }] },
    ]);
    const plan = planOvs(
      desired([{ name: 'br-sec', ports: [{ name: 'eth1', tag: null, trunks: [100, 300] }] }]),
      db,
    );
    expect(formatOvsPlan(plan)).toEqual(['set port eth1 tag=[] trunks=[100,300]']);
    expect(plan.ops[0]).toMatchObject({
      op: 'wait',
      table: 'Port',
      where: [
        ['_uuid', '==', ['uuid', id('port', 'eth1')]],
        ['external_ids', 'includes', ['map', [[OVS_OWNER_KEY, OWNER]]]],
      ],
      until: '!=',
    });
    expect(plan.ops[1]).toMatchObject({
      op: 'update',
      table: 'Port',
      row: { tag: ['set', []], trunks: ['set', [100, 300]] },
    });
  });

  it('sets and removes other_config keys (the local port MAC of a single-NIC bridge)', () => {
    const db = observed([{ name: 'br-ex', owner: OWNER, otherConfig: { hwaddr: '02:00:00:00:00:01' } }]);
    expect(
      formatOvsPlan(planOvs(desired([{ name: 'br-ex', otherConfig: { hwaddr: null }, ports: [] }]), db)),
    ).toEqual(['set bridge br-ex other_config:hwaddr=[]']);
    expect(
      formatOvsPlan(
        planOvs(desired([{ name: 'br-ex', otherConfig: { hwaddr: '02:00:00:00:00:02' }, ports: [] }]), db),
      ),
    ).toEqual(['set bridge br-ex other_config:hwaddr=02:00:00:00:00:02']);
  });

  it('deletes owned ports that are no longer desired and leaves foreign ports on the same bridge', () => {
    const db = observed([
      {
        name: 'br-sec',
        owner: OWNER,
        ports: [
          { name: 'eth1', owner: OWNER },
          { name: 'eth2', owner: OWNER },
          { name: 'veth-pod', owner: 'cni-ovs' },
          { name: 'by-hand' },
        ],
      },
    ]);
    const plan = planOvs(desired([{ name: 'br-sec', ports: [{ name: 'eth1' }] }]), db);
    expect(formatOvsPlan(plan)).toEqual(['del-port br-sec eth2']);
    expect(plan.ops.at(-1)).toMatchObject({
      op: 'mutate',
      table: 'Bridge',
      mutations: [['ports', 'delete', ['set', [['uuid', id('port', 'eth2')]]]]],
    });
  });

  it('deletes an owned bridge that is no longer desired, guarded by its port list', () => {
    const db = observed([
      { name: 'br-old', owner: OWNER, ports: [{ name: 'eth3', owner: OWNER }] },
      { name: 'br-foreign', ports: [{ name: 'eth4' }] },
    ]);
    const plan = planOvs(desired([]), db);
    expect(formatOvsPlan(plan)).toEqual(['del-br br-old']);
    expect(plan.ops).toContainEqual(
      expect.objectContaining({ op: 'wait', table: 'Bridge', columns: ['ports'], until: '==', timeout: 0 }),
    );
    expect(JSON.stringify(plan.ops)).not.toContain('br-foreign');
  });

  it("keeps an owned bridge that holds foreign ports and removes only the owner's ports from it", () => {
    const db = observed([
      {
        name: 'br-old',
        owner: OWNER,
        ports: [
          { name: 'eth3', owner: OWNER },
          { name: 'veth-pod', owner: 'cni-ovs' },
        ],
      },
    ]);
    const plan = planOvs(desired([]), db);
    expect(formatOvsPlan(plan)).toEqual([
      'del-port br-old eth3',
      '# bridge br-old is kept: it holds ports of others (veth-pod)',
    ]);
    expect(plan.kept).toEqual([{ bridge: 'br-old', foreignPorts: ['veth-pod'] }]);
  });

  it('moves an owned port to the bridge that now wants it, in the same transaction', () => {
    const db = observed([
      { name: 'br-a', owner: OWNER, ports: [{ name: 'eth1', owner: OWNER }] },
      { name: 'br-b', owner: OWNER },
    ]);
    const plan = planOvs(
      desired([
        { name: 'br-a', ports: [] },
        { name: 'br-b', ports: [{ name: 'eth1' }] },
      ]),
      db,
    );
    expect(formatOvsPlan(plan)).toEqual(['move-port eth1 br-a -> br-b']);
    expect(plan.ops.slice(-2)).toMatchObject([
      {
        op: 'mutate',
        table: 'Bridge',
        where: [['_uuid', '==', ['uuid', id('bridge', 'br-a')]]],
        mutations: [['ports', 'delete', expect.anything()]],
      },
      {
        op: 'mutate',
        table: 'Bridge',
        where: [['_uuid', '==', ['uuid', id('bridge', 'br-b')]]],
        mutations: [['ports', 'insert', expect.anything()]],
      },
    ]);
  });

  it('refuses desired names held by foreign rows, and lists them for callers that skip them', () => {
    const db = observed([
      { name: 'br-sec', owner: 'someone-else' },
      { name: 'br-mine', owner: OWNER, ports: [] },
      { name: 'br-x', ports: [{ name: 'eth9' }] },
    ]);
    const want = desired([
      { name: 'br-sec', ports: [] },
      { name: 'br-mine', ports: [{ name: 'eth9' }] },
    ]);
    expect(ovsOwnershipConflicts(want, db)).toEqual([
      { path: 'bridges[0]', table: 'Bridge', name: 'br-sec', foundOwner: 'someone-else' },
      { path: 'bridges[1].ports[0]', table: 'Port', name: 'eth9', foundOwner: undefined },
    ]);
    expect(() => planOvs(want, db)).toThrow(
      expect.objectContaining({ code: 'OVSDB_NOT_OWNED', rowName: 'br-sec' }),
    );
    try {
      planOvs(want, db);
    } catch (e) {
      expect(isOvsdbOwnershipError(e)).toBe(true);
    }
  });

  it('names the field of invalid input', () => {
    const bad = (bridges: OvsDesiredState['bridges']) => {
      try {
        planOvs(desired(bridges), observed([]));
      } catch (e) {
        if (isOvsdbInvalidInputError(e)) return e.field;
        throw e;
      }
      return 'accepted';
    };
    expect(bad([{ name: 'a-name-that-is-too-long', ports: [] }])).toBe('bridges[0].name');
    expect(bad([{ name: 'br0', ports: [{ name: 'eth1', trunks: [1, 4095] }] }])).toBe(
      'bridges[0].ports[0].trunks[1]',
    );
    expect(bad([{ name: 'br0', ports: [{ name: 'eth1', tag: 0 }] }])).toBe('bridges[0].ports[0].tag');
    expect(bad([{ name: 'br0', ports: [{ name: 'p', type: 'patch' }] }])).toBe('bridges[0].ports[0].peer');
    expect(
      bad([
        { name: 'br0', ports: [{ name: 'eth1' }] },
        { name: 'br1', ports: [{ name: 'eth1' }] },
      ]),
    ).toBe('bridges[1].ports[0].name');
    expect(
      bad([
        { name: 'br0', ports: [] },
        { name: 'br1', ports: [{ name: 'br0' }] },
      ]),
    ).toBe('bridges[1].ports[0].name');
    expect(bad([{ name: 'br0', ports: [{ name: 'eth1', externalIds: { [OVS_OWNER_KEY]: 'x' } }] }])).toBe(
      `bridges[0].ports[0].externalIds.${OVS_OWNER_KEY}`,
    );
  });
});
