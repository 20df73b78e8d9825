// Waits for ovs-vswitchd: an interface's OpenFlow port, a configuration applied (cur_cfg).
import { InterfaceName } from '@fabrik/api';
import type { OvsdbClient } from '../client/index.js';
import {
  OvsInterfaceError,
  OvsdbNotFoundError,
  OvsdbProtocolError,
  OvsdbTimeoutError,
  isOvsdbOperationError,
} from '../errors.js';
import type { InterfaceRow } from '../model/index.js';
import { selectedRows, where } from '../ops/index.js';
import { rootUuid } from './transactions.js';
import { check, checkInt } from './validation.js';

/** Extra time the transaction gets beyond the server-side wait, for the round trip. */
const WAIT_SLACK_MS = 5_000;

/**
 * Waits until ovs-vswitchd has assigned the interface an OpenFlow port number and returns it
 * (a server-side `wait`, no polling). Throws {@link OvsInterfaceError} with the Interface
 * `error` column when vswitchd could not set it up, {@link OvsdbNotFoundError} when it does not
 * exist, {@link OvsdbTimeoutError} after `timeoutMs`.
 */
export async function waitForOfport(
  client: OvsdbClient,
  interfaceName: string,
  options: { timeoutMs: number },
): Promise<number> {
  check(InterfaceName, interfaceName, 'interfaceName');
  checkInt(options.timeoutMs, 0, 2 ** 31 - 1, 'timeoutMs');
  const byName = () => where('Interface', ['name', '==', interfaceName]);
  let rows: Partial<InterfaceRow>[];
  try {
    const res = await client.transact(
      [
        ...byName().wait({
          columns: ['ofport'],
          until: '!=',
          rows: [{ ofport: null }],
          timeoutMs: options.timeoutMs,
        }),
        ...byName().select('ofport', 'error'),
      ],
      {
        timeoutMs: options.timeoutMs + WAIT_SLACK_MS,
      },
    );
    rows = selectedRows('Interface', res[1]);
  } catch (e) {
    if (!isOvsdbOperationError(e) || e.kind !== 'timed-out') throw e;
    const [res] = await client.transact(byName().select('error'));
    const error = selectedRows('Interface', res)[0]?.error;
    if (error !== undefined) throw new OvsInterfaceError(interfaceName, error);
    throw new OvsdbTimeoutError(
      `interface ${JSON.stringify(interfaceName)} got no ofport from ovs-vswitchd`,
      options.timeoutMs,
      { cause: e },
    );
  }
  const iface = rows[0];
  if (!iface) throw new OvsdbNotFoundError('Interface', interfaceName);
  if (iface.error !== undefined || iface.ofport === undefined || iface.ofport < 0)
    throw new OvsInterfaceError(interfaceName, iface.error);
  return iface.ofport;
}

/**
 * Increments `next_cfg` and waits until ovs-vswitchd reports (`cur_cfg`) that it has applied
 * the configuration, like ovs-vsctl does without `--no-wait`. Throws {@link OvsdbTimeoutError}
 * when vswitchd does not catch up in time (for example because it is not running).
 */
export async function waitForVswitchd(client: OvsdbClient, options: { timeoutMs: number }): Promise<void> {
  checkInt(options.timeoutMs, 0, 2 ** 31 - 1, 'timeoutMs');
  const root = await rootUuid(client);
  const self = () => where('Open_vSwitch', ['_uuid', '==', root]);
  const [, res] = await client.transact([
    ...self().mutate(['next_cfg', '+=', 1]),
    ...self().select('next_cfg'),
  ]);
  const nextCfg = selectedRows('Open_vSwitch', res)[0]?.next_cfg;
  if (nextCfg === undefined) throw new OvsdbProtocolError('select Open_vSwitch.next_cfg returned no row');
  try {
    await client.transact(
      where('Open_vSwitch', ['_uuid', '==', root], ['cur_cfg', '>=', nextCfg]).wait({
        columns: ['cur_cfg'],
        until: '!=',
        rows: [],
        timeoutMs: options.timeoutMs,
      }),
      {
        timeoutMs: options.timeoutMs + WAIT_SLACK_MS,
      },
    );
  } catch (e) {
    if (isOvsdbOperationError(e) && e.kind === 'timed-out') {
      throw new OvsdbTimeoutError(
        `ovs-vswitchd did not apply configuration ${nextCfg} (is it running?)`,
        options.timeoutMs,
        { cause: e },
      );
    }
    throw e;
  }
}
