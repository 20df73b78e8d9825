// Pieces the bridge and port verbs share: the root row, retries after a concurrent insert.
import type { OvsdbClient } from '../client/index.js';
import { OvsdbProtocolError, isOvsdbConstraintViolation } from '../errors.js';
import { selectedRows, where } from '../ops/index.js';
import type { OperationResult } from '../wire/index.js';

/** Retries `attempt` when another writer created the same name concurrently (index constraint violation at commit). */
export async function retryOnConflict<T>(attempt: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (i >= 4 || !isOvsdbConstraintViolation(e)) throw e;
    }
  }
}

/** The uuid of the single Open_vSwitch row, from a `select _uuid` result. */
export function rootFrom(result: OperationResult | undefined): string {
  const root = selectedRows('Open_vSwitch', result)[0]?._uuid;
  if (!root) {
    throw new OvsdbProtocolError(
      'the Open_vSwitch table has no row (was the database initialised with `ovs-vsctl init`?)',
    );
  }
  return root;
}

export async function rootUuid(client: OvsdbClient): Promise<string> {
  const [res] = await client.transact(where('Open_vSwitch').select('_uuid'));
  return rootFrom(res);
}
