// Which rows are whose: every Bridge, Port and Interface row fabrik creates carries
// external_ids:fabrik-owner=<owner> (agent-host, cni-ovs, ...). A verb changes or deletes a row only
// when that value is the caller's owner: rows of other owners are as foreign as rows without a mark.
import { OvsdbOwnershipError } from '../errors.js';
import { where } from '../ops/index.js';
import type { Operation } from '../wire/index.js';

/** The external_ids key that marks rows fabrik created; its value names the creator. */
export const OVS_OWNER_KEY = 'fabrik-owner';
/** The owner value written when the caller does not pass one. */
export const DEFAULT_OVS_OWNER = 'fabrik';

/** Whose rows a changing or deleting verb may touch: those marked `fabrik-owner=<owner>`. */
export interface OvsOwnerOption {
  readonly owner: string;
}

type ExternalIds = Readonly<Record<string, string>> | undefined;

/** The owner a row is marked with, if any. */
export const ownerOf = (externalIds: ExternalIds): string | undefined => externalIds?.[OVS_OWNER_KEY];

/** Throws {@link OvsdbOwnershipError} unless the row is marked as `owner`'s. */
export function assertOwned(table: string, name: string, externalIds: ExternalIds, owner: string): void {
  const found = ownerOf(externalIds);
  if (found !== owner) throw new OvsdbOwnershipError(table, name, owner, found);
}

/**
 * A `wait` that fails the transaction unless the row still carries `owner`'s mark (so a row that
 * changed hands between the read and the write is never touched).
 */
export function stillOwned(table: 'Bridge' | 'Port', uuid: string, owner: string): Operation[] {
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
