// Waits for ovs-vswitchd: an interface's OpenFlow port, a configuration applied (cur_cfg).
import { InterfaceName } from '@fabrik/api';
import type { OvsdbClient } from '../client/index.js';
import {
  OvsInterfaceError,
  OvsdbConnectionError,
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
 * {@link waitForOfport} for a client that holds a monitor of the Interface table's `name`, `ofport`
 * and `error` columns (agent-host's `OVS_STATE_COLUMNS`): waits in the client's cache, which the
 * server's updates keep current, instead of a server-side `wait` per interface, so that many
 * waits cost the server nothing. The interface may appear in the cache after the call (the
 * transaction that created it and the update that reports it arrive in either order). Throws
 * {@link OvsInterfaceError} with the Interface `error` column when vswitchd could not set it up,
 * {@link OvsdbTimeoutError} after `timeoutMs` (also when it never appeared), and
 * {@link OvsdbConnectionError} when the client closes meanwhile.
 */
export async function waitForOfportInCache(
  client: OvsdbClient,
  interfaceName: string,
  options: { timeoutMs: number },
): Promise<number> {
  check(InterfaceName, interfaceName, 'interfaceName');
  checkInt(options.timeoutMs, 0, 2 ** 31 - 1, 'timeoutMs');
  // The first ofport vswitchd writes decides, as with the server-side wait: -1 means it failed.
  const settled = (): { ofport: number } | { error: string | undefined } | undefined => {
    if (!client.cache.synced) return undefined;
    for (const row of client.cache.Interface.values()) {
      if (row.name !== interfaceName || row.ofport === undefined) continue;
      return row.ofport >= 0 && row.error === undefined ? { ofport: row.ofport } : { error: row.error };
    }
    return undefined;
  };
  return new Promise<number>((resolve, reject) => {
    const finish = (outcome: ReturnType<typeof settled>): boolean => {
      if (outcome === undefined) return false;
      stop();
      if ('ofport' in outcome) resolve(outcome.ofport);
      else reject(new OvsInterfaceError(interfaceName, outcome.error));
      return true;
    };
    const timer = setTimeout(() => {
      stop();
      reject(
        new OvsdbTimeoutError(
          `interface ${JSON.stringify(interfaceName)} got no ofport from ovs-vswitchd`,
          options.timeoutMs,
        ),
      );
    }, options.timeoutMs);
    const offUpdate = client.onCacheUpdate(() => finish(settled()));
    const offState = client.onStateChange((state) => {
      if (state !== 'closed') return;
      stop();
      reject(new OvsdbConnectionError(client.endpoint, 'closed while waiting for an ofport'));
    });
    function stop(): void {
      clearTimeout(timer);
      offUpdate();
      offState();
    }
    finish(settled());
  });
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
