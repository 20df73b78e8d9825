import { loadNodeSettings, type CmdArgs, type CniResult } from '@fabrik/cni-skel';
import { allocate, type PoolAllocation } from '@fabrik/ippool';
import { loadIpamConf, podOwner, type IpamConf } from '../config.js';
import type { PluginDeps } from '../context.js';
import { toCniError } from '../errors.js';
import { withPoolLocks } from '../node-lock.js';

/**
 * ADD: one address from each pool of the config for the attachment (the address it has when ADD
 * is repeated), recorded in the pools' status. Everything is validated before the API is asked;
 * the processes of one node take turns per pool (node-lock.ts).
 */
export async function cmdAdd(args: CmdArgs, deps: PluginDeps): Promise<CniResult> {
  const start = performance.now();
  const conf = loadIpamConf(args.config, args.args);
  const owner = podOwner(conf, args.args, args.containerId, args.ifname);
  const { settings } = await loadNodeSettings(deps.env);
  try {
    const client = await deps.connect(settings.ipam);
    const allocations = await withPoolLocks(conf.pools, settings.ipam.timeoutMs, start, (deadlineMs) =>
      allocate(client, { pools: conf.pools, owner, requested: conf.requested }, { deadlineMs }),
    );
    return ipamResult(conf, allocations);
  } catch (e) {
    throw toCniError(e, conf, 'ADD');
  }
}

/**
 * The IPAM result: each address with its pool's prefix length and gateway, the config's routes and
 * DNS, the pools' VLAN as `fabrik.vlan` (fabrik-ovs puts the Pod on it when the network config
 * has no VLAN of its own), and `fabrik.heldAlready` when the attachment had an address before this
 * ADD (a repeated ADD: a caller that fails must not release the live attachment's address).
 */
export function ipamResult(conf: IpamConf, allocations: readonly PoolAllocation[]): CniResult {
  const vlan = allocations.find((a) => a.vlan !== undefined)?.vlan;
  const heldAlready = allocations.some((a) => !a.created);
  const fabrik = { ...(vlan !== undefined ? { vlan } : {}), ...(heldAlready ? { heldAlready } : {}) };
  return {
    ips: allocations.map((a) => ({ address: `${a.address}/${a.prefixLength}`, gateway: a.gateway })),
    routes: conf.routes.map((r) => ({ ...r })),
    dns: conf.dns,
    ...(Object.keys(fabrik).length > 0 ? { fabrik } : {}),
  };
}
