// Bridge verbs: ensureBridge, deleteBridge.
import { InterfaceName } from '@fabrik/api';
import type { OvsdbClient } from '../client/index.js';
import { OvsdbProtocolError } from '../errors.js';
import { insert, insertedUuid, selectedRows, where, type RowInput } from '../ops/index.js';
import {
  OVS_OWNER_KEY,
  assertOwned,
  mergeExternalIds,
  stillOwned,
  type OvsOwnerOption,
} from './ownership.js';
import { retryOnConflict, rootFrom } from './transactions.js';
import { check, checkExternalIds, checkOwner } from './validation.js';

/** Desired state of a bridge for {@link ensureBridge}. Optional fields left out keep their current value. */
export interface BridgeSpec {
  readonly name: string;
  /** `netdev` is the userspace datapath; OVS's default (`system`) is the kernel datapath. */
  readonly datapathType?: 'system' | 'netdev';
  readonly failMode?: 'standalone' | 'secure';
  readonly mcastSnooping?: boolean;
  /** Merged into the row's external_ids (keys not given are kept). */
  readonly externalIds?: Readonly<Record<string, string>>;
  /** Value of external_ids:fabrik-owner on created rows. Default `fabrik`. */
  readonly owner?: string;
}

/**
 * Creates the bridge (with its local internal port, as `ovs-vsctl add-br` does) or brings an
 * existing one of the same owner to `spec`. Throws {@link OvsdbOwnershipError} for a bridge of the
 * same name that another owner (or not fabrik) created.
 *
 * Equivalent to: `ovs-vsctl --may-exist add-br NAME -- set bridge NAME datapath_type=... external_ids:fabrik-owner=...`
 */
export async function ensureBridge(
  client: OvsdbClient,
  spec: BridgeSpec,
): Promise<{ uuid: string; created: boolean }> {
  check(InterfaceName, spec.name, 'name');
  const owner = checkOwner(spec.owner);
  checkExternalIds(spec.externalIds, owner, 'externalIds');
  const settings: RowInput<'Bridge'> = {
    ...(spec.datapathType !== undefined ? { datapath_type: spec.datapathType } : {}),
    ...(spec.failMode !== undefined ? { fail_mode: spec.failMode } : {}),
    ...(spec.mcastSnooping !== undefined ? { mcast_snooping_enable: spec.mcastSnooping } : {}),
  };
  return retryOnConflict(async () => {
    const [bridgeRes, rootRes] = await client.transact([
      ...where('Bridge', ['name', '==', spec.name]).select('_uuid', 'external_ids'),
      ...where('Open_vSwitch').select('_uuid'),
    ]);
    const existing = selectedRows('Bridge', bridgeRes)[0];
    if (existing?._uuid) {
      assertOwned('Bridge', spec.name, existing.external_ids, owner);
      const update =
        Object.keys(settings).length > 0
          ? where('Bridge', ['_uuid', '==', existing._uuid]).update(settings)
          : [];
      const ids =
        spec.externalIds && Object.keys(spec.externalIds).length > 0
          ? where('Bridge', ['_uuid', '==', existing._uuid]).mutate(...mergeExternalIds(spec.externalIds))
          : [];
      if (update.length + ids.length > 0)
        await client.transact([...stillOwned('Bridge', existing._uuid, owner), ...update, ...ids]);
      return { uuid: existing._uuid, created: false };
    }
    const root = rootFrom(rootRes);
    const mark = { [OVS_OWNER_KEY]: owner };
    const results = await client.transact([
      ...insert('Interface', { name: spec.name, type: 'internal', external_ids: mark }, 'iface'),
      ...insert('Port', { name: spec.name, interfaces: ['iface'], external_ids: mark }, 'port'),
      ...insert(
        'Bridge',
        { name: spec.name, ports: ['port'], ...settings, external_ids: { ...spec.externalIds, ...mark } },
        'bridge',
      ),
      ...where('Open_vSwitch', ['_uuid', '==', root]).mutate(['bridges', 'insert', ['bridge']]),
    ]);
    const uuid = insertedUuid(results[2]);
    if (!uuid) throw new OvsdbProtocolError('insert Bridge: reply has no uuid');
    return { uuid, created: true };
  });
}

/**
 * Deletes a bridge of `owner` with all its ports and interfaces. Does nothing when it does not
 * exist. Throws {@link OvsdbOwnershipError} for a bridge of another owner, and for a bridge that
 * holds a port of another owner (deleting the bridge would delete that port too); nothing is
 * deleted then.
 *
 * Equivalent to: `ovs-vsctl --if-exists del-br NAME`
 */
export async function deleteBridge(
  client: OvsdbClient,
  name: string,
  options: OvsOwnerOption,
): Promise<void> {
  check(InterfaceName, name, 'name');
  const owner = checkOwner(options.owner);
  const [res] = await client.transact(
    where('Bridge', ['name', '==', name]).select('_uuid', 'external_ids', 'ports'),
  );
  const bridge = selectedRows('Bridge', res)[0];
  if (!bridge?._uuid) return;
  assertOwned('Bridge', name, bridge.external_ids, owner);
  const ports = bridge.ports ?? [];
  const portRows = ports.length
    ? await client.transact(
        ports.flatMap((p) => where('Port', ['_uuid', '==', p]).select('name', 'external_ids')),
      )
    : [];
  for (const r of portRows) {
    const port = selectedRows('Port', r)[0];
    if (port) assertOwned('Port', port.name ?? '', port.external_ids, owner);
  }
  // Bridge, Port and Interface are not root tables: dropping the reference deletes them all. The
  // waits make sure that no port was added, and the mark not changed, since the read.
  await client.transact([
    ...stillOwned('Bridge', bridge._uuid, owner),
    ...where('Bridge', ['_uuid', '==', bridge._uuid]).wait({
      columns: ['ports'],
      until: '==',
      rows: [{ ports }],
      timeoutMs: 0,
    }),
    ...where('Open_vSwitch').mutate(['bridges', 'delete', [bridge._uuid]]),
  ]);
}
