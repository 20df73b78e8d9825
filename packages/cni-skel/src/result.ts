import { compareVersions } from './versions.js';

// A CNI result in the newest format (1.1.0); `toVersionedResult` writes it for older configs.

export interface CniInterface {
  name: string;
  mac?: string;
  mtu?: number;
  sandbox?: string;
  socketPath?: string;
  pciID?: string;
}

export interface CniIpConfig {
  address: string;
  gateway?: string;
  /** Index into `interfaces`. */
  interface?: number;
}

export interface CniRoute {
  dst: string;
  gw?: string;
  mtu?: number;
  advmss?: number;
  priority?: number;
  table?: number;
  scope?: number;
}

export interface CniDns {
  nameservers?: string[];
  domain?: string;
  search?: string[];
  options?: string[];
}

/**
 * fabrik's own result field, from an IPAM plugin to the plugin that called it: `vlan` is the VLAN
 * of the addresses' subnet (fabrik-ipam: the IPPool's `subnetInfo.vlan`), which fabrik-ovs uses
 * when the network config sets none; `heldAlready` says that the attachment had (some of) these
 * addresses before this ADD (a repeated ADD), so a caller whose ADD fails must not release them:
 * they are a live attachment's. Other plugins ignore unknown fields (libcni's result types drop
 * them).
 */
export interface FabrikResultField {
  vlan?: number;
  heldAlready?: boolean;
}

export interface CniResult {
  interfaces?: CniInterface[];
  ips?: CniIpConfig[];
  routes?: CniRoute[];
  dns?: CniDns;
  fabrik?: FabrikResultField;
}

const is11 = (v: string) => compareVersions(v, '1.1.0') >= 0;

/**
 * The result as the given spec version spells it: 0.3.x/0.4.0 want `ips[].version`; 1.1.0 adds
 * interface `mtu`/`socketPath`/`pciID` and route `mtu`/`advmss`/`priority`/`table`/`scope`.
 */
export function toVersionedResult(result: CniResult, cniVersion: string): Record<string, unknown> {
  const modern = compareVersions(cniVersion, '1.0.0') >= 0;
  const interfaces = result.interfaces?.map((i) =>
    is11(cniVersion) ? i : pick(i, ['name', 'mac', 'sandbox']),
  );
  const ips = result.ips?.map((ip) => ({
    ...(modern ? {} : { version: ip.address.includes(':') ? '6' : '4' }),
    ...ip,
  }));
  const routes = result.routes?.map((r) => (is11(cniVersion) ? r : pick(r, ['dst', 'gw'])));
  return {
    cniVersion,
    ...(interfaces ? { interfaces } : {}),
    ...(ips ? { ips } : {}),
    ...(routes ? { routes } : {}),
    dns: result.dns ?? {},
    ...(result.fabrik ? { fabrik: result.fabrik } : {}),
  };
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
