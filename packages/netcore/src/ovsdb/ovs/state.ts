// The declarative side of the OVS operations: a desired state of bridges and ports, planned
// against what the database holds (the client's monitor cache) by a pure function, applied as ONE
// transaction. What the netlink pipeline is for links, for OVS: only rows marked with the
// owner's `fabrik-owner` are changed or deleted; foreign bridges and ports are never touched.
import { InterfaceName, VlanId } from '@fabrik/api';
import { OvsdbInvalidInputError, OvsdbOwnershipError, OvsdbProtocolError } from '../errors.js';
import type { BridgeRow, InterfaceRow, OpenVSwitchRow, PortRow } from '../model/index.js';
import { insert, where, type RowInput } from '../ops/index.js';
import type { MonitorTables } from '../client/index.js';
import type { Operation } from '../wire/index.js';
import { OVS_OWNER_KEY, ownerOf, stillOwned } from './ownership.js';
import type { OvsPortType, OvsVlanMode } from './ports.js';
import { check, checkExternalIds, checkInt, checkOwner } from './validation.js';

/**
 * A port (with its one interface of the same name) the owner wants on a bridge. Optional fields
 * left `undefined` are not managed: a new port gets OVS's default, an existing one keeps its value.
 */
export interface OvsDesiredPort {
  readonly name: string;
  /** Default `system` (an existing kernel device: a NIC, the host end of a veth). */
  readonly type?: OvsPortType;
  /** The other patch port; required for (and only for) `type: 'patch'`. */
  readonly peer?: string;
  /** Access VLAN; `null`: none. */
  readonly tag?: number | null;
  /** VLANs the port trunks; `[]`: every VLAN. */
  readonly trunks?: readonly number[];
  /** `null`: OVS's default (access with a tag, trunk without). */
  readonly vlanMode?: OvsVlanMode | null;
  /** The MTU asked of the interface (`mtu_request`); `null`: none. */
  readonly mtuRequest?: number | null;
  /** Keys ensured in the Port row's external_ids (other keys are kept). */
  readonly externalIds?: Readonly<Record<string, string>>;
}

/** A bridge the owner wants, with the complete list of the owner's ports on it. */
export interface OvsDesiredBridge {
  readonly name: string;
  /** `netdev`: the userspace datapath; OVS's default (`system`) is the kernel datapath. */
  readonly datapathType?: 'system' | 'netdev';
  readonly failMode?: 'standalone' | 'secure' | null;
  /** `mcast_snooping_enable`. */
  readonly mcastSnooping?: boolean;
  /** Keys of `other_config` to set (`hwaddr`: the MAC of the bridge's local port); `null` removes one. */
  readonly otherConfig?: Readonly<Record<string, string | null>>;
  /** Keys ensured in the Bridge row's external_ids (other keys are kept). */
  readonly externalIds?: Readonly<Record<string, string>>;
  /**
   * The owner's ports on this bridge besides its local port (which carries the bridge's name and
   * comes and goes with it). Owned ports not listed are deleted; foreign ports are left alone.
   */
  readonly ports: readonly OvsDesiredPort[];
}

/**
 * Everything `owner` wants in the database: its bridges are complete (owned bridges not listed
 * are deleted, unless a foreign port still hangs on one: then only the owner's ports go).
 */
export interface OvsDesiredState {
  /** Value of `external_ids:fabrik-owner` of every row created, and of every row changed or deleted. */
  readonly owner: string;
  readonly bridges: readonly OvsDesiredBridge[];
}

/** The rows the planner reads: the client's monitor cache (`client.cache`) fits as is. */
export interface OvsObservedState {
  readonly Open_vSwitch: ReadonlyMap<string, OpenVSwitchRow>;
  readonly Bridge: ReadonlyMap<string, BridgeRow>;
  readonly Port: ReadonlyMap<string, PortRow>;
  readonly Interface: ReadonlyMap<string, InterfaceRow>;
}

/** One change of a plan, for people (`formatOvsPlan`) and counts. */
export type OvsChange =
  | { readonly action: 'add-bridge' | 'set-bridge'; readonly bridge: string; readonly settings: string[] }
  | { readonly action: 'del-bridge'; readonly bridge: string }
  | {
      readonly action: 'add-port' | 'set-port';
      readonly bridge: string;
      readonly port: string;
      readonly settings: string[];
    }
  | { readonly action: 'move-port'; readonly from: string; readonly bridge: string; readonly port: string }
  | { readonly action: 'del-port'; readonly bridge: string; readonly port: string };

export interface OvsPlan {
  /** One transaction; empty when the database already matches. */
  readonly ops: Operation[];
  readonly changes: OvsChange[];
  /** Owned bridges that are no longer desired but hold foreign ports: only the owner's ports go. */
  readonly kept: { readonly bridge: string; readonly foreignPorts: string[] }[];
}

/** A desired bridge or port whose name a foreign row holds. */
export interface OvsOwnershipConflict {
  /** `bridges[1]`, `bridges[0].ports[2]` */
  readonly path: string;
  readonly table: 'Bridge' | 'Port';
  readonly name: string;
  /** Its `fabrik-owner`, if any. */
  readonly foundOwner: string | undefined;
}

/**
 * The columns {@link planOvs} reads: `client.monitor(OVS_STATE_COLUMNS)` keeps the cache it plans
 * from without the statistics and status columns ovs-vswitchd rewrites every few seconds.
 */
export const OVS_STATE_COLUMNS = {
  Open_vSwitch: { columns: ['bridges'] },
  Bridge: {
    columns: [
      'name',
      'ports',
      'datapath_type',
      'fail_mode',
      'mcast_snooping_enable',
      'other_config',
      'external_ids',
    ],
  },
  Port: { columns: ['name', 'interfaces', 'tag', 'trunks', 'vlan_mode', 'external_ids'] },
  Interface: { columns: ['name', 'type', 'options', 'mtu_request', 'ofport', 'error', 'external_ids'] },
} as const satisfies MonitorTables;

const INTERFACE_TYPE: Readonly<Record<OvsPortType, string>> = {
  system: '',
  internal: 'internal',
  patch: 'patch',
};

/** Validates a desired state (names, VLANs, MTUs, owner, duplicates); throws OvsdbInvalidInputError naming the field. */
export function validateOvsDesiredState(desired: OvsDesiredState): void {
  const owner = checkOwner(desired.owner);
  const bridges = new Map<string, string>();
  const ports = new Map<string, string>();
  desired.bridges.forEach((b, i) => {
    const at = `bridges[${i}]`;
    check(InterfaceName, b.name, `${at}.name`);
    const other = bridges.get(b.name) ?? ports.get(b.name);
    if (other !== undefined) throw new OvsdbInvalidInputError(`${at}.name`, `"${b.name}" is also ${other}`);
    bridges.set(b.name, at);
    checkExternalIds(b.externalIds, owner, `${at}.externalIds`);
    for (const [k, v] of Object.entries(b.otherConfig ?? {}))
      if (v !== null && typeof v !== 'string')
        throw new OvsdbInvalidInputError(`${at}.otherConfig.${k}`, 'must be a string or null');
    b.ports.forEach((p, j) => {
      const pat = `${at}.ports[${j}]`;
      check(InterfaceName, p.name, `${pat}.name`);
      const taken = ports.get(p.name) ?? bridges.get(p.name);
      if (taken !== undefined)
        throw new OvsdbInvalidInputError(`${pat}.name`, `"${p.name}" is also ${taken} (or its local port)`);
      ports.set(p.name, pat);
      if ((p.type === 'patch') !== (p.peer !== undefined))
        throw new OvsdbInvalidInputError(`${pat}.peer`, 'is required for patch ports and only for them');
      if (p.peer !== undefined) check(InterfaceName, p.peer, `${pat}.peer`);
      if (p.tag !== undefined && p.tag !== null) check(VlanId, p.tag, `${pat}.tag`);
      p.trunks?.forEach((t, k) => check(VlanId, t, `${pat}.trunks[${k}]`));
      if (p.mtuRequest !== undefined && p.mtuRequest !== null)
        checkInt(p.mtuRequest, 68, 65535, `${pat}.mtuRequest`);
      checkExternalIds(p.externalIds, owner, `${pat}.externalIds`);
    });
  });
  // A bridge's local port carries its name: no desired port may take it.
  for (const [name, at] of ports) {
    const bridge = bridges.get(name);
    if (bridge !== undefined)
      throw new OvsdbInvalidInputError(`${at}.name`, `"${name}" is the local port of ${bridge}`);
  }
}

/** Desired bridges and ports whose names are held by rows the owner does not own (pure). */
export function ovsOwnershipConflicts(
  desired: OvsDesiredState,
  observed: OvsObservedState,
): OvsOwnershipConflict[] {
  const index = indexObserved(observed);
  const out: OvsOwnershipConflict[] = [];
  desired.bridges.forEach((b, i) => {
    const bridge = index.bridgeByName.get(b.name);
    if (bridge && ownerOf(bridge.external_ids) !== desired.owner)
      out.push({
        path: `bridges[${i}]`,
        table: 'Bridge',
        name: b.name,
        foundOwner: ownerOf(bridge.external_ids),
      });
    b.ports.forEach((p, j) => {
      const port = index.portByName.get(p.name);
      if (port && ownerOf(port.external_ids) !== desired.owner)
        out.push({
          path: `bridges[${i}].ports[${j}]`,
          table: 'Port',
          name: p.name,
          foundOwner: ownerOf(port.external_ids),
        });
    });
  });
  return out;
}

interface ObservedIndex {
  readonly root: string | undefined;
  readonly bridgeByName: Map<string, BridgeRow>;
  readonly portByName: Map<string, PortRow>;
  /** Port uuid -> the bridge that lists it. */
  readonly bridgeOfPort: Map<string, BridgeRow>;
  readonly interfaces: ReadonlyMap<string, InterfaceRow>;
  readonly ports: ReadonlyMap<string, PortRow>;
}

function indexObserved(observed: OvsObservedState): ObservedIndex {
  const bridgeByName = new Map<string, BridgeRow>();
  const bridgeOfPort = new Map<string, BridgeRow>();
  for (const b of observed.Bridge.values()) {
    bridgeByName.set(b.name, b);
    for (const p of b.ports) bridgeOfPort.set(p, b);
  }
  const portByName = new Map<string, PortRow>();
  for (const p of observed.Port.values()) portByName.set(p.name, p);
  return {
    root: [...observed.Open_vSwitch.keys()][0],
    bridgeByName,
    portByName,
    bridgeOfPort,
    interfaces: observed.Interface,
    ports: observed.Port,
  };
}

const sameMembers = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length &&
  [...a].sort((x, y) => x - y).every((v, i) => v === [...b].sort((x, y) => x - y)[i]);

/** Keys of `wanted` whose value differs in `current`: `[set, removed]` (null removes). */
function mapChanges(
  current: Readonly<Record<string, string>>,
  wanted: Readonly<Record<string, string | null>> | undefined,
): [Record<string, string>, string[]] {
  const set: Record<string, string> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(wanted ?? {})) {
    if (v === null) {
      if (k in current) removed.push(k);
    } else if (current[k] !== v) set[k] = v;
  }
  return [set, removed];
}

/** Mutations that set `set` and drop `removed` in a map column (a map insert never overwrites: delete first). */
function mapMutations<C extends string>(
  column: C,
  set: Record<string, string>,
  removed: readonly string[],
): [C, 'delete' | 'insert', string[] | Record<string, string>][] {
  const deleted = [...Object.keys(set), ...removed];
  return [
    ...(deleted.length > 0 ? [[column, 'delete', deleted] as [C, 'delete', string[]]] : []),
    ...(Object.keys(set).length > 0
      ? [[column, 'insert', set] as [C, 'insert', Record<string, string>]]
      : []),
  ];
}

const describeMap = (name: string, set: Record<string, string>, removed: readonly string[]): string[] => [
  ...Object.entries(set).map(([k, v]) => `${name}:${k}=${v}`),
  ...removed.map((k) => `${name}:${k}=[]`),
];

/** The Port and Interface columns a desired port manages, and their descriptions (pure). */
function portColumns(p: OvsDesiredPort): {
  port: RowInput<'Port'>;
  iface: RowInput<'Interface'>;
  settings: string[];
} {
  const port: Record<string, unknown> = {};
  const iface: Record<string, unknown> = {};
  const settings: string[] = [];
  if (p.type !== undefined && p.type !== 'system') settings.push(`type=${p.type}`);
  if (p.peer !== undefined) settings.push(`options:peer=${p.peer}`);
  if (p.tag !== undefined) {
    port.tag = p.tag;
    if (p.tag !== null) settings.push(`tag=${p.tag}`);
  }
  if (p.trunks !== undefined) {
    port.trunks = [...p.trunks].sort((a, b) => a - b);
    if (p.trunks.length > 0) settings.push(`trunks=${(port.trunks as number[]).join(',')}`);
  }
  if (p.vlanMode !== undefined) {
    port.vlan_mode = p.vlanMode;
    if (p.vlanMode !== null) settings.push(`vlan_mode=${p.vlanMode}`);
  }
  if (p.mtuRequest !== undefined) {
    iface.mtu_request = p.mtuRequest;
    if (p.mtuRequest !== null) settings.push(`mtu_request=${p.mtuRequest}`);
  }
  iface.type = INTERFACE_TYPE[p.type ?? 'system'];
  if (p.peer !== undefined) iface.options = { peer: p.peer };
  return { port: port as RowInput<'Port'>, iface: iface as RowInput<'Interface'>, settings };
}

/**
 * Computes the one transaction that turns `observed` into `desired` for `desired.owner` (pure).
 * Throws OvsdbInvalidInputError for bad input and OvsdbOwnershipError when a desired name is held
 * by a foreign row (filter those out first with {@link ovsOwnershipConflicts} to go on without
 * them). Every existing row the transaction changes or deletes is guarded by a `wait` on the
 * owner's mark, so a row that changed hands since `observed` was read fails the transaction
 * instead of being touched. The plan of an applied state is empty.
 */
export function planOvs(desired: OvsDesiredState, observed: OvsObservedState): OvsPlan {
  validateOvsDesiredState(desired);
  const owner = desired.owner;
  const conflicts = ovsOwnershipConflicts(desired, observed);
  if (conflicts.length > 0) {
    const c = conflicts[0]!;
    throw new OvsdbOwnershipError(c.table, c.name, owner, c.foundOwner);
  }
  const index = indexObserved(observed);
  const mark = { [OVS_OWNER_KEY]: owner };
  const owned = (ids: Readonly<Record<string, string>>) => ownerOf(ids) === owner;
  const guards: Operation[] = [];
  const guarded = new Set<string>();
  const guard = (table: 'Bridge' | 'Port', uuid: string) => {
    if (guarded.has(uuid)) return;
    guarded.add(uuid);
    guards.push(...stillOwned(table, uuid, owner));
  };
  const ops: Operation[] = [];
  const changes: OvsChange[] = [];
  const kept: { bridge: string; foreignPorts: string[] }[] = [];
  /** Ports added to / removed from each existing bridge (uuid -> named uuids or uuids). */
  const portInserts = new Map<string, string[]>();
  const portDeletes = new Map<string, string[]>();
  const push = (m: Map<string, string[]>, bridge: string, port: string) =>
    m.set(bridge, [...(m.get(bridge) ?? []), port]);
  const desiredPortNames = new Set(desired.bridges.flatMap((b) => b.ports.map((p) => p.name)));
  let named = 0;

  for (const b of desired.bridges) {
    const existing = index.bridgeByName.get(b.name);
    const newPorts: string[] = [];
    // The bridge's own change is listed before those of its ports.
    const bridgeChangeAt = changes.length;
    for (const p of b.ports) {
      const cols = portColumns(p);
      const port = index.portByName.get(p.name);
      if (!port) {
        const ifaceName = `iface${named}`;
        const portName = `port${named++}`;
        ops.push(
          ...insert('Interface', { name: p.name, ...cols.iface, external_ids: mark }, ifaceName),
          ...insert(
            'Port',
            {
              name: p.name,
              interfaces: [ifaceName],
              ...cols.port,
              external_ids: { ...p.externalIds, ...mark },
            },
            portName,
          ),
        );
        newPorts.push(portName);
        changes.push({ action: 'add-port', bridge: b.name, port: p.name, settings: cols.settings });
        continue;
      }
      // An owned port of this name: bring it to the spec, and onto this bridge.
      const from = index.bridgeOfPort.get(port._uuid);
      if (from?.name !== b.name) {
        if (from) push(portDeletes, from._uuid, port._uuid);
        newPorts.push(port._uuid);
        guard('Port', port._uuid);
        changes.push({ action: 'move-port', from: from?.name ?? '(none)', bridge: b.name, port: p.name });
      }
      const diff = portDiff(p, cols, port, index.interfaces.get(port.interfaces[0] ?? ''));
      if (diff.ops.length > 0) {
        guard('Port', port._uuid);
        ops.push(...diff.ops);
        changes.push({ action: 'set-port', bridge: b.name, port: p.name, settings: diff.settings });
      }
    }
    // The owner's ports on this bridge that are not desired anywhere (desired elsewhere: moved above).
    if (existing) {
      for (const uuid of existing.ports) {
        const port = index.ports.get(uuid);
        if (!port || port.name === b.name || !owned(port.external_ids) || desiredPortNames.has(port.name))
          continue;
        guard('Port', uuid);
        push(portDeletes, existing._uuid, uuid);
        changes.push({ action: 'del-port', bridge: b.name, port: port.name });
      }
    }

    const settings: RowInput<'Bridge'> = {
      ...(b.datapathType !== undefined ? { datapath_type: b.datapathType } : {}),
      ...(b.failMode !== undefined ? { fail_mode: b.failMode } : {}),
      ...(b.mcastSnooping !== undefined ? { mcast_snooping_enable: b.mcastSnooping } : {}),
    };
    if (!existing) {
      if (index.root === undefined)
        throw new OvsdbProtocolError('the Open_vSwitch table has no row (was the database initialised?)');
      const [otherConfig] = mapChanges({}, b.otherConfig);
      const ifaceName = `iface${named}`;
      const portName = `port${named}`;
      const bridgeName = `bridge${named++}`;
      ops.push(
        ...insert('Interface', { name: b.name, type: 'internal', external_ids: mark }, ifaceName),
        ...insert('Port', { name: b.name, interfaces: [ifaceName], external_ids: mark }, portName),
        ...insert(
          'Bridge',
          {
            name: b.name,
            ports: [portName, ...newPorts],
            ...settings,
            other_config: otherConfig,
            external_ids: { ...b.externalIds, ...mark },
          },
          bridgeName,
        ),
        ...where('Open_vSwitch', ['_uuid', '==', index.root]).mutate(['bridges', 'insert', [bridgeName]]),
      );
      changes.splice(bridgeChangeAt, 0, {
        action: 'add-bridge',
        bridge: b.name,
        settings: bridgeSettings(settings, otherConfig, []),
      });
      continue;
    }
    for (const p of newPorts) push(portInserts, existing._uuid, p);
    const update: Record<string, unknown> = {};
    if (b.datapathType !== undefined && existing.datapath_type !== b.datapathType)
      update.datapath_type = b.datapathType;
    if (b.failMode !== undefined && (existing.fail_mode ?? null) !== b.failMode)
      update.fail_mode = b.failMode;
    if (b.mcastSnooping !== undefined && existing.mcast_snooping_enable !== b.mcastSnooping)
      update.mcast_snooping_enable = b.mcastSnooping;
    const [otherSet, otherRemoved] = mapChanges(existing.other_config, b.otherConfig);
    const [idsSet] = mapChanges(existing.external_ids, b.externalIds);
    const mutations = [
      ...mapMutations('other_config', otherSet, otherRemoved),
      ...mapMutations('external_ids', idsSet, []),
    ];
    if (Object.keys(update).length > 0 || mutations.length > 0) {
      guard('Bridge', existing._uuid);
      const byUuid = where('Bridge', ['_uuid', '==', existing._uuid]);
      if (Object.keys(update).length > 0) ops.push(...byUuid.update(update as RowInput<'Bridge'>));
      if (mutations.length > 0) ops.push(...byUuid.mutate(...mutations));
      changes.splice(bridgeChangeAt, 0, {
        action: 'set-bridge',
        bridge: b.name,
        settings: [
          ...bridgeSettings(update as RowInput<'Bridge'>, otherSet, otherRemoved),
          ...describeMap('external_ids', idsSet, []),
        ],
      });
    }
  }

  // Owned bridges no longer desired; owned ports elsewhere that are not desired.
  const desiredBridges = new Set(desired.bridges.map((b) => b.name));
  for (const bridge of index.bridgeByName.values()) {
    if (desiredBridges.has(bridge.name)) continue;
    const ports = bridge.ports.map((u) => index.ports.get(u)).filter((p): p is PortRow => p !== undefined);
    const ownedPorts = ports.filter((p) => owned(p.external_ids) && !desiredPortNames.has(p.name));
    const foreign = ports.filter((p) => !owned(p.external_ids)).map((p) => p.name);
    if (owned(bridge.external_ids) && foreign.length === 0) {
      guard('Bridge', bridge._uuid);
      // Dropping the root reference deletes the bridge with its ports and interfaces; the wait
      // makes sure no port joined it since it was read.
      ops.push(
        ...where('Bridge', ['_uuid', '==', bridge._uuid]).wait({
          columns: ['ports'],
          until: '==',
          rows: [{ ports: bridge.ports }],
          timeoutMs: 0,
        }),
        ...where('Open_vSwitch').mutate(['bridges', 'delete', [bridge._uuid]]),
      );
      changes.push({ action: 'del-bridge', bridge: bridge.name });
      continue;
    }
    if (owned(bridge.external_ids)) kept.push({ bridge: bridge.name, foreignPorts: foreign.sort() });
    for (const p of ownedPorts) {
      // A bridge's local port goes only with its bridge.
      if (p.name === bridge.name) continue;
      guard('Port', p._uuid);
      push(portDeletes, bridge._uuid, p._uuid);
      changes.push({ action: 'del-port', bridge: bridge.name, port: p.name });
    }
  }

  for (const [bridge, ports] of portDeletes)
    ops.push(...where('Bridge', ['_uuid', '==', bridge]).mutate(['ports', 'delete', ports]));
  for (const [bridge, ports] of portInserts)
    ops.push(...where('Bridge', ['_uuid', '==', bridge]).mutate(['ports', 'insert', ports]));
  return { ops: ops.length > 0 ? [...guards, ...ops] : [], changes, kept };
}

function bridgeSettings(
  update: RowInput<'Bridge'>,
  otherSet: Record<string, string>,
  otherRemoved: readonly string[],
): string[] {
  return [
    ...(update.datapath_type !== undefined ? [`datapath_type=${update.datapath_type}`] : []),
    ...(update.fail_mode !== undefined ? [`fail_mode=${update.fail_mode ?? '[]'}`] : []),
    ...(update.mcast_snooping_enable !== undefined
      ? [`mcast_snooping_enable=${update.mcast_snooping_enable}`]
      : []),
    ...describeMap('other_config', otherSet, otherRemoved),
  ];
}

/** What differs between an existing port (and its interface) and its desired columns. */
function portDiff(
  p: OvsDesiredPort,
  cols: ReturnType<typeof portColumns>,
  port: PortRow,
  iface: InterfaceRow | undefined,
): { ops: Operation[]; settings: string[] } {
  const portUpdate: Record<string, unknown> = {};
  const settings: string[] = [];
  if (p.tag !== undefined && (port.tag ?? null) !== p.tag) {
    portUpdate.tag = p.tag;
    settings.push(`tag=${p.tag ?? '[]'}`);
  }
  if (p.trunks !== undefined && !sameMembers(port.trunks, p.trunks)) {
    portUpdate.trunks = cols.port.trunks;
    settings.push(`trunks=[${(cols.port.trunks ?? []).join(',')}]`);
  }
  if (p.vlanMode !== undefined && (port.vlan_mode ?? null) !== p.vlanMode) {
    portUpdate.vlan_mode = p.vlanMode;
    settings.push(`vlan_mode=${p.vlanMode ?? '[]'}`);
  }
  const ops: Operation[] = [];
  if (Object.keys(portUpdate).length > 0)
    ops.push(...where('Port', ['_uuid', '==', port._uuid]).update(portUpdate as RowInput<'Port'>));
  const [idsSet] = mapChanges(port.external_ids, p.externalIds);
  if (Object.keys(idsSet).length > 0) {
    ops.push(
      ...where('Port', ['_uuid', '==', port._uuid]).mutate(...mapMutations('external_ids', idsSet, [])),
    );
    settings.push(...describeMap('external_ids', idsSet, []));
  }
  if (iface) {
    const ifaceUpdate: Record<string, unknown> = {};
    if (iface.type !== cols.iface.type) {
      ifaceUpdate.type = cols.iface.type;
      settings.push(`type=${p.type ?? 'system'}`);
    }
    if (p.peer !== undefined && iface.options.peer !== p.peer) {
      ifaceUpdate.options = { ...iface.options, peer: p.peer };
      settings.push(`options:peer=${p.peer}`);
    }
    if (p.mtuRequest !== undefined && (iface.mtu_request ?? null) !== p.mtuRequest) {
      ifaceUpdate.mtu_request = p.mtuRequest;
      settings.push(`mtu_request=${p.mtuRequest ?? '[]'}`);
    }
    if (Object.keys(ifaceUpdate).length > 0)
      ops.push(
        ...where('Interface', ['_uuid', '==', iface._uuid]).update(ifaceUpdate as RowInput<'Interface'>),
      );
  }
  return { ops, settings };
}

/** A plan as ovs-vsctl-like lines, one per change (a dry run). */
export function formatOvsPlan(plan: OvsPlan): string[] {
  const lines = plan.changes.map((c) => {
    const s = 'settings' in c && c.settings.length > 0 ? ` ${c.settings.join(' ')}` : '';
    switch (c.action) {
      case 'add-bridge':
        return `add-br ${c.bridge}${s}`;
      case 'set-bridge':
        return `set bridge ${c.bridge}${s}`;
      case 'del-bridge':
        return `del-br ${c.bridge}`;
      case 'add-port':
        return `add-port ${c.bridge} ${c.port}${s}`;
      case 'set-port':
        return `set port ${c.port}${s}`;
      case 'move-port':
        return `move-port ${c.port} ${c.from} -> ${c.bridge}`;
      case 'del-port':
        return `del-port ${c.bridge} ${c.port}`;
    }
  });
  for (const k of plan.kept)
    lines.push(`# bridge ${k.bridge} is kept: it holds ports of others (${k.foreignPorts.join(', ')})`);
  return lines;
}
