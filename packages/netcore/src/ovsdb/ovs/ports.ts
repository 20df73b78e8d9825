// Port verbs: addPort(s), setPortVlan, deletePort(s), findPorts.
import { InterfaceName } from '@fabrik/api';
import type { OvsdbClient } from '../client/index.js';
import {
  OvsdbConflictError,
  OvsdbInvalidInputError,
  OvsdbNotFoundError,
  OvsdbProtocolError,
  isOvsdbOperationError,
} from '../errors.js';
import type { InterfaceRow, PortRow } from '../model/index.js';
import { insert, insertedUuid, selectedRows, where, type RowInput } from '../ops/index.js';
import type { Operation } from '../wire/index.js';
import {
  OVS_OWNER_KEY,
  assertOwned,
  mergeExternalIds,
  stillOwned,
  type OvsOwnerOption,
} from './ownership.js';
import { retryOnConflict } from './transactions.js';
import { check, checkOwner, checkPortSpec, checkVlan } from './validation.js';

export type OvsPortType = 'system' | 'internal' | 'patch';
export type OvsVlanMode = 'access' | 'trunk' | 'native-tagged' | 'native-untagged';

/** Desired state of a port (and its single interface) for {@link addPort}. */
export interface PortSpec {
  readonly bridge: string;
  readonly name: string;
  /** Default `system` (an existing kernel device, such as the host end of a veth). */
  readonly type?: OvsPortType;
  /** The other patch port; required for (and only for) `type: 'patch'`. */
  readonly peer?: string;
  /** Access VLAN; 0 with `vlanMode: 'access'`: the untagged frames only (OVS without a tag trunks every VLAN). */
  readonly tag?: number;
  /** VLANs a trunk port carries (empty: all). */
  readonly trunks?: readonly number[];
  readonly vlanMode?: OvsVlanMode;
  readonly mtuRequest?: number;
  readonly ofportRequest?: number;
  /** Merged into the Port row's external_ids. */
  readonly externalIds?: Readonly<Record<string, string>>;
  /** Merged into the Interface row's external_ids. */
  readonly interfaceExternalIds?: Readonly<Record<string, string>>;
  /** Value of external_ids:fabrik-owner on created rows. Default `fabrik`. */
  readonly owner?: string;
}

/** VLAN settings for {@link setPortVlan}: `undefined` keeps the current value, `null` clears it. */
export interface PortVlanSettings {
  readonly tag?: number | null;
  readonly trunks?: readonly number[];
  readonly vlanMode?: OvsVlanMode | null;
}

/** A port as {@link findPorts} reports it. */
export interface PortInfo {
  readonly name: string;
  readonly bridge: string;
  readonly uuid: string;
  readonly tag?: number;
  readonly trunks: readonly number[];
  readonly vlanMode?: string;
  readonly externalIds: Readonly<Record<string, string>>;
  readonly interface: {
    readonly name: string;
    readonly type: string;
    readonly uuid: string;
    readonly ofport?: number;
    readonly error?: string;
    readonly mac?: string;
    readonly externalIds: Readonly<Record<string, string>>;
  };
}

const OVS_INTERFACE_TYPE: Readonly<Record<OvsPortType, string>> = {
  system: '',
  internal: 'internal',
  patch: 'patch',
};
const portTypeOf = (spec: PortSpec): string => OVS_INTERFACE_TYPE[spec.type ?? 'system'];

/** What {@link planAddPorts} needs to know about the database, read in one transaction. */
export interface ObservedForAddPorts {
  /** Bridges by name (absent: no such bridge). */
  readonly bridges: ReadonlyMap<string, { readonly uuid: string; readonly ports: readonly string[] }>;
  /** Ports by name (absent: no such port). */
  readonly ports: ReadonlyMap<
    string,
    {
      readonly uuid: string;
      readonly interfaces: readonly string[];
      readonly externalIds: Readonly<Record<string, string>>;
    }
  >;
}

/** Where the uuids of each port come from once the transaction ran. */
export type PortOutcome =
  | { readonly kind: 'existing'; readonly portUuid: string; readonly interfaceUuid: string }
  | { readonly kind: 'created'; readonly portOp: number; readonly interfaceOp: number };

/**
 * Plans {@link addPorts} (pure): inserts for missing ports (one `ports` mutation per bridge),
 * updates for ones of the same owner already on their bridge, typed errors for everything else.
 */
export function planAddPorts(
  specs: readonly PortSpec[],
  observed: ObservedForAddPorts,
): { ops: Operation[]; outcomes: PortOutcome[] } {
  const ops: Operation[] = [];
  const outcomes: PortOutcome[] = [];
  const newPortsByBridge = new Map<string, string[]>();
  specs.forEach((spec, k) => {
    const bridge = observed.bridges.get(spec.bridge);
    if (!bridge) throw new OvsdbNotFoundError('Bridge', spec.bridge);
    const port = observed.ports.get(spec.name);
    const owner = checkOwner(spec.owner);
    const mark = { [OVS_OWNER_KEY]: owner };
    const ifaceRow: RowInput<'Interface'> = {
      type: portTypeOf(spec),
      ...(spec.peer !== undefined ? { options: { peer: spec.peer } } : {}),
      ...(spec.mtuRequest !== undefined ? { mtu_request: spec.mtuRequest } : {}),
      ...(spec.ofportRequest !== undefined ? { ofport_request: spec.ofportRequest } : {}),
    };
    const portRow: RowInput<'Port'> = {
      ...(spec.tag !== undefined ? { tag: spec.tag } : {}),
      ...(spec.trunks !== undefined ? { trunks: spec.trunks } : {}),
      ...(spec.vlanMode !== undefined ? { vlan_mode: spec.vlanMode } : {}),
    };
    if (port) {
      assertOwned('Port', spec.name, port.externalIds, owner);
      if (!bridge.ports.includes(port.uuid)) {
        throw new OvsdbConflictError(
          `port ${JSON.stringify(spec.name)} exists on another bridge than ${JSON.stringify(spec.bridge)}`,
        );
      }
      const interfaceUuid = port.interfaces[0];
      if (!interfaceUuid) throw new OvsdbProtocolError(`Port ${spec.name} has no interface`);
      ops.push(...stillOwned('Port', port.uuid, owner));
      const byPort = where('Port', ['_uuid', '==', port.uuid]);
      if (Object.keys(portRow).length > 0) ops.push(...byPort.update(portRow));
      if (spec.externalIds && Object.keys(spec.externalIds).length > 0) {
        ops.push(...byPort.mutate(...mergeExternalIds(spec.externalIds)));
      }
      const byInterface = where('Interface', ['_uuid', '==', interfaceUuid]);
      ops.push(...byInterface.update(ifaceRow));
      if (spec.interfaceExternalIds && Object.keys(spec.interfaceExternalIds).length > 0) {
        ops.push(...byInterface.mutate(...mergeExternalIds(spec.interfaceExternalIds)));
      }
      outcomes.push({ kind: 'existing', portUuid: port.uuid, interfaceUuid });
      return;
    }
    const ifaceName = `iface${k}`;
    const portName = `port${k}`;
    outcomes.push({ kind: 'created', interfaceOp: ops.length, portOp: ops.length + 1 });
    ops.push(
      ...insert(
        'Interface',
        { name: spec.name, ...ifaceRow, external_ids: { ...spec.interfaceExternalIds, ...mark } },
        ifaceName,
      ),
      ...insert(
        'Port',
        {
          name: spec.name,
          interfaces: [ifaceName],
          ...portRow,
          external_ids: { ...spec.externalIds, ...mark },
        },
        portName,
      ),
    );
    newPortsByBridge.set(spec.bridge, [...(newPortsByBridge.get(spec.bridge) ?? []), portName]);
  });
  for (const [name, ports] of newPortsByBridge) {
    ops.push(
      ...where('Bridge', ['_uuid', '==', observed.bridges.get(name)!.uuid]).mutate([
        'ports',
        'insert',
        ports,
      ]),
    );
  }
  return { ops, outcomes };
}

/**
 * Adds ports in one transaction (after one read): creates missing ones, brings existing
 * ones of the same owner to their spec. Returns the uuids in the order of `specs`.
 */
export async function addPorts(
  client: OvsdbClient,
  specs: readonly PortSpec[],
): Promise<{ portUuid: string; interfaceUuid: string }[]> {
  specs.forEach((s, i) => checkPortSpec(s, `ports[${i}]`));
  const names = new Set<string>();
  for (const [i, s] of specs.entries()) {
    if (names.has(s.name)) {
      throw new OvsdbInvalidInputError(`ports[${i}].name`, `${JSON.stringify(s.name)} is given twice`);
    }
    names.add(s.name);
  }
  if (specs.length === 0) return [];
  const bridgeNames = [...new Set(specs.map((s) => s.bridge))];
  return retryOnConflict(async () => {
    const read = await client.transact([
      ...bridgeNames.flatMap((b) => where('Bridge', ['name', '==', b]).select('_uuid', 'ports')),
      ...specs.flatMap((s) =>
        where('Port', ['name', '==', s.name]).select('_uuid', 'interfaces', 'external_ids'),
      ),
    ]);
    const bridges = new Map<string, { uuid: string; ports: readonly string[] }>();
    bridgeNames.forEach((name, i) => {
      const row = selectedRows('Bridge', read[i])[0];
      if (row?._uuid) bridges.set(name, { uuid: row._uuid, ports: row.ports ?? [] });
    });
    const ports = new Map<
      string,
      { uuid: string; interfaces: readonly string[]; externalIds: Readonly<Record<string, string>> }
    >();
    specs.forEach((spec, k) => {
      const row = selectedRows('Port', read[bridgeNames.length + k])[0];
      if (row?._uuid) {
        ports.set(spec.name, {
          uuid: row._uuid,
          interfaces: row.interfaces ?? [],
          externalIds: row.external_ids ?? {},
        });
      }
    });
    const { ops, outcomes } = planAddPorts(specs, { bridges, ports });
    const results = ops.length > 0 ? await client.transact(ops) : [];
    return outcomes.map((o) => {
      if (o.kind === 'existing') return { portUuid: o.portUuid, interfaceUuid: o.interfaceUuid };
      const portUuid = insertedUuid(results[o.portOp]);
      const interfaceUuid = insertedUuid(results[o.interfaceOp]);
      if (!portUuid || !interfaceUuid)
        throw new OvsdbProtocolError('insert Port/Interface: reply has no uuid');
      return { portUuid, interfaceUuid };
    });
  });
}

/**
 * Adds a port with one interface to a bridge, marked with `spec.owner`; when a port of that name
 * and owner already is on the bridge, brings it to `spec` instead (the same spec twice gives one
 * port). Throws {@link OvsdbNotFoundError} for an unknown bridge, {@link OvsdbOwnershipError}
 * for a port of the same name of another owner, {@link OvsdbConflictError} when it is on another
 * bridge.
 *
 * Equivalent to: `ovs-vsctl --may-exist add-port BRIDGE NAME tag=... -- set interface NAME type=...`
 */
export async function addPort(
  client: OvsdbClient,
  spec: PortSpec,
): Promise<{ portUuid: string; interfaceUuid: string }> {
  const [result] = await addPorts(client, [spec]);
  return result!;
}

/**
 * Changes the VLAN settings of a port of `owner`. Throws {@link OvsdbNotFoundError} when it
 * does not exist, {@link OvsdbOwnershipError} when it is another owner's.
 *
 * Equivalent to: `ovs-vsctl set port NAME tag=... trunks=... vlan_mode=...`
 */
export async function setPortVlan(
  client: OvsdbClient,
  name: string,
  settings: PortVlanSettings,
  options: OvsOwnerOption,
): Promise<void> {
  check(InterfaceName, name, 'name');
  checkVlan(settings, 'settings');
  const owner = checkOwner(options.owner);
  const [res] = await client.transact(where('Port', ['name', '==', name]).select('_uuid', 'external_ids'));
  const port = selectedRows('Port', res)[0];
  if (!port?._uuid) throw new OvsdbNotFoundError('Port', name);
  assertOwned('Port', name, port.external_ids, owner);
  const row: RowInput<'Port'> = {
    ...(settings.tag !== undefined ? { tag: settings.tag } : {}),
    ...(settings.trunks !== undefined ? { trunks: settings.trunks } : {}),
    ...(settings.vlanMode !== undefined ? { vlan_mode: settings.vlanMode } : {}),
  };
  if (Object.keys(row).length === 0) return;
  await client.transact([
    ...stillOwned('Port', port._uuid, owner),
    ...where('Port', ['_uuid', '==', port._uuid]).update(row),
  ]);
}

/**
 * Deletes ports of `owner` (and their interfaces) in one transaction. Returns, per name, whether
 * it existed. Throws {@link OvsdbOwnershipError} (deleting nothing) if any is another owner's.
 */
export async function deletePorts(
  client: OvsdbClient,
  names: readonly string[],
  options: OvsOwnerOption,
): Promise<boolean[]> {
  names.forEach((n, i) => check(InterfaceName, n, `names[${i}]`));
  const owner = checkOwner(options.owner);
  if (names.length === 0) return [];
  return deletePortsAttempt(client, names, owner, 0);
}

async function deletePortsAttempt(
  client: OvsdbClient,
  names: readonly string[],
  owner: string,
  attempt: number,
): Promise<boolean[]> {
  const read = await client.transact(
    names.flatMap((n) => where('Port', ['name', '==', n]).select('_uuid', 'external_ids')),
  );
  const ops: Operation[] = [];
  const found = names.map((n, i) => {
    const port = selectedRows('Port', read[i])[0];
    if (!port?._uuid) return false;
    assertOwned('Port', n, port.external_ids, owner);
    ops.push(...stillOwned('Port', port._uuid, owner));
    ops.push(
      ...where('Bridge', ['ports', 'includes', [port._uuid]]).mutate(['ports', 'delete', [port._uuid]]),
    );
    return true;
  });
  if (ops.length === 0) return found;
  try {
    await client.transact(ops);
  } catch (e) {
    // A port deleted by someone else between the read and the write fails its `wait`: read again.
    if (isOvsdbOperationError(e) && e.kind === 'timed-out' && attempt < 4)
      return deletePortsAttempt(client, names, owner, attempt + 1);
    throw e;
  }
  return found;
}

/**
 * Deletes a port of `owner` and its interface. Resolves false when it does not exist; throws
 * {@link OvsdbOwnershipError} for a port of another owner (or not fabrik's).
 *
 * Equivalent to: `ovs-vsctl --if-exists del-port NAME`
 */
export async function deletePort(
  client: OvsdbClient,
  name: string,
  options: OvsOwnerOption,
): Promise<boolean> {
  const [deleted] = await deletePorts(client, [name], options);
  return deleted!;
}

/**
 * Ports whose external_ids contain every pair of `externalIds` (`{}`: every port), with their
 * bridge and first interface.
 */
export async function findPorts(
  client: OvsdbClient,
  externalIds: Readonly<Record<string, string>>,
): Promise<PortInfo[]> {
  const [portRes, bridgeRes] = await client.transact([
    ...where('Port', ['external_ids', 'includes', externalIds]).select(
      '_uuid',
      'name',
      'interfaces',
      'tag',
      'trunks',
      'vlan_mode',
      'external_ids',
    ),
    ...where('Bridge').select('name', 'ports'),
  ]);
  const ports = selectedRows('Port', portRes);
  if (ports.length === 0) return [];
  const bridgeOfPort = new Map<string, string>();
  for (const b of selectedRows('Bridge', bridgeRes))
    for (const p of b.ports ?? []) bridgeOfPort.set(p, b.name ?? '');
  const ifaceRes = await client.transact(
    ports.flatMap((p) =>
      where('Interface', ['_uuid', '==', p.interfaces?.[0] ?? '00000000-0000-0000-0000-000000000000']).select(
        '_uuid',
        'name',
        'type',
        'ofport',
        'error',
        'mac_in_use',
        'external_ids',
      ),
    ),
  );
  const out: PortInfo[] = [];
  ports.forEach((p, i) => {
    const iface = selectedRows('Interface', ifaceRes[i])[0] as Partial<InterfaceRow> | undefined;
    const bridge = bridgeOfPort.get(p._uuid!);
    if (!iface || bridge === undefined) return; // deleted between the two reads
    out.push(toPortInfo(p, bridge, iface));
  });
  return out;
}

function toPortInfo(p: Partial<PortRow>, bridge: string, i: Partial<InterfaceRow>): PortInfo {
  return {
    name: p.name!,
    bridge,
    uuid: p._uuid!,
    ...(p.tag !== undefined ? { tag: p.tag } : {}),
    trunks: p.trunks ?? [],
    ...(p.vlan_mode !== undefined ? { vlanMode: p.vlan_mode } : {}),
    externalIds: p.external_ids ?? {},
    interface: {
      name: i.name!,
      type: i.type || 'system',
      uuid: i._uuid!,
      ...(i.ofport !== undefined ? { ofport: i.ofport } : {}),
      ...(i.error !== undefined ? { error: i.error } : {}),
      ...(i.mac_in_use !== undefined ? { mac: i.mac_in_use } : {}),
      externalIds: i.external_ids ?? {},
    },
  };
}
