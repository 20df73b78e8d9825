// Which rows are fabrik's: every Bridge, Port and Interface row fabrik creates carries
// external_ids:fabrik-owner=<owner>, and nothing without it is changed or deleted.
import { where } from '../ops/index.js';
import type { Operation } from '../wire/index.js';

/** The external_ids key that marks rows fabrik created; its value names the creator. */
export const OVS_OWNER_KEY = 'fabrik-owner';
/** The owner value written when the caller does not pass one. */
export const DEFAULT_OVS_OWNER = 'fabrik';

export const isOwned = (externalIds: Readonly<Record<string, string>> | undefined): boolean =>
  externalIds?.[OVS_OWNER_KEY] !== undefined;

/**
 * A `wait` that fails the transaction unless the row still carries the owner mark read before
 * (so a row that changed hands between the read and the write is never touched).
 */
export function stillOwned(
  table: 'Bridge' | 'Port',
  uuid: string,
  externalIds: Readonly<Record<string, string>>,
): Operation[] {
  const owner = externalIds[OVS_OWNER_KEY] ?? '';
  return where(table, ['_uuid', '==', uuid], ['external_ids', 'includes', { [OVS_OWNER_KEY]: owner }]).wait({
    columns: ['name'],
    until: '!=',
    rows: [],
    timeoutMs: 0,
  });
}

/** Mutations that make `external_ids` contain `ids` (map insert does not overwrite: delete the keys first). */
export function mergeExternalIds(
  ids: Readonly<Record<string, string>>,
): [['external_ids', 'delete', string[]], ['external_ids', 'insert', Record<string, string>]] {
  return [
    ['external_ids', 'delete', Object.keys(ids)],
    ['external_ids', 'insert', { ...ids }],
  ];
}
