import {
  connectOvsdb,
  addPort,
  deletePort,
  deletePorts,
  findPorts,
  waitForOfport,
  waitForOfportInCache,
  where,
  selectedRows,
  isOvsdbConnectionError,
  isOvsdbTimeoutError,
  isOvsInterfaceError,
  isOvsdbOwnershipError,
  isOvsdbNotFoundError,
  type OvsdbClient,
} from '@fabrik/netcore/ovsdb';
import type { CniNodeSettings } from '@fabrik/api';
import { PluginErrorCode } from './codes.js';
import { CNI_OVS_OWNER, PortIds } from '@fabrik/api';
import type { AttachedPort, OvsSession } from './ovs.js';
import { CniError, CniErrorCode } from '@fabrik/cni-skel';

/**
 * Opens a session on the OVSDB of `settings.ovsdbSocket` with netcore's RFC 7047 client (one
 * connection per invocation, no monitor: the plugin only reads what it needs; the ofport is
 * awaited with a server-side `wait`). Closing the session closes the connection.
 */
export async function openOvsSession(settings: CniNodeSettings): Promise<OvsSession> {
  const endpoint = settings.ovsdbSocket;
  const client = await mapOvsErrors(endpoint, () =>
    connectOvsdb(endpoint, { timeoutMs: settings.timeouts.ovsdbTimeoutMs, reconnect: false }),
  );
  return sessionOver(client, waitForOfport, () => void client.close());
}

/**
 * A session on a connection someone else holds (agent-host's), whose monitor keeps the Interface
 * table's `ofport` and `error` in its cache: the ofport is awaited there, with no request per
 * port. Closing the session leaves the connection open.
 */
export function monitoredOvsSession(client: OvsdbClient): OvsSession {
  return sessionOver(client, waitForOfportInCache, () => undefined);
}

/**
 * The session's operations over `client`. Rows are created with `fabrik-owner=cni-ovs`; netcore
 * refuses to change or delete rows without an owner mark. Errors become the plugin's CNI errors.
 */
function sessionOver(client: OvsdbClient, ofportWait: typeof waitForOfport, close: () => void): OvsSession {
  const endpoint = client.endpoint;
  const call = <T>(fn: () => Promise<T>) => mapOvsErrors(endpoint, fn);
  return {
    addPort: async ({ bridge, name, vlan, externalIds }) => {
      await call(() =>
        addPort(client, {
          bridge,
          name,
          owner: CNI_OVS_OWNER,
          ...(vlan.tag !== undefined ? { tag: vlan.tag } : {}),
          ...(vlan.trunks !== undefined ? { trunks: [...vlan.trunks] } : {}),
          ...(vlan.vlanMode !== undefined ? { vlanMode: vlan.vlanMode } : {}),
          externalIds,
          interfaceExternalIds: {
            [PortIds.containerId]: externalIds[PortIds.containerId] ?? '',
            [PortIds.ifname]: externalIds[PortIds.ifname] ?? '',
          },
        }),
      );
    },
    waitForOfport: async (name, timeoutMs) => {
      try {
        return await call(() => ofportWait(client, name, { timeoutMs }));
      } catch (e) {
        // The database answered; ovs-vswitchd did not attach the interface in time (busy or down).
        if (e instanceof CniError && e.code === CniErrorCode.tryAgainLater && isOvsdbTimeoutError(e.cause)) {
          throw new CniError(
            CniErrorCode.tryAgainLater,
            `ovs-vswitchd gave interface ${name} no ofport within ${timeoutMs} ms (is it running?)`,
            undefined,
            { cause: e.cause },
          );
        }
        throw e;
      }
    },
    deletePort: (name) => call(() => deletePort(client, name, { owner: CNI_OVS_OWNER })),
    deleteAttachmentPorts: async (containerId, ifname) => {
      const ports = await call(() =>
        findPorts(client, {
          [PortIds.owner]: CNI_OVS_OWNER,
          [PortIds.containerId]: containerId,
          [PortIds.ifname]: ifname,
        }),
      );
      const names = ports.map((p) => p.name);
      await call(() => deletePorts(client, names, { owner: CNI_OVS_OWNER }));
      return names;
    },
    findPorts: async (network) => {
      const ports = await call(() =>
        findPorts(client, { [PortIds.owner]: CNI_OVS_OWNER, [PortIds.network]: network }),
      );
      return ports.map((p): AttachedPort => ({
        name: p.name,
        bridge: p.bridge,
        ...(p.tag !== undefined ? { tag: p.tag } : {}),
        trunks: p.trunks,
        ...(p.vlanMode !== undefined ? { vlanMode: p.vlanMode } : {}),
        externalIds: p.externalIds,
        ...(p.interface.ofport !== undefined ? { ofport: p.interface.ofport } : {}),
        ...(p.interface.error !== undefined ? { error: p.interface.error } : {}),
      }));
    },
    bridgeExists: async (name) => {
      const [res] = await call(() => client.transact(where('Bridge', ['name', '==', name]).select('_uuid')));
      return selectedRows('Bridge', res).length > 0;
    },
    close,
  };
}

async function mapOvsErrors<T>(endpoint: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    if (isOvsdbConnectionError(e) || isOvsdbTimeoutError(e)) {
      throw new CniError(
        CniErrorCode.tryAgainLater,
        `OVSDB ${endpoint} is not reachable: ${why}`,
        undefined,
        { cause: e },
      );
    }
    if (isOvsInterfaceError(e))
      throw new CniError(PluginErrorCode.ovsInterface, `OVS rejected the interface: ${why}`, undefined, {
        cause: e,
      });
    if (isOvsdbNotFoundError(e) && e.table === 'Bridge')
      throw new CniError(
        CniErrorCode.invalidNetworkConfig,
        `invalid network config: bridge: ${why} on this node`,
        undefined,
        { cause: e },
      );
    if (isOvsdbOwnershipError(e))
      throw new CniError(
        CniErrorCode.internal,
        `refusing to touch an OVS row fabrik-ovs did not create: ${why}`,
        undefined,
        { cause: e },
      );
    throw e;
  }
}
