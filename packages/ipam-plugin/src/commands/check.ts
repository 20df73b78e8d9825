import { CniError, CniErrorCode, loadNodeSettings, parseCniResult, type CmdArgs } from '@fabrik/cni-skel';
import { findAllocations } from '@fabrik/ippool';
import { loadIpamConf, poolField } from '../config.js';
import type { PluginDeps } from '../context.js';
import { IpamErrorCode, toCniError } from '../errors.js';

/**
 * CHECK: every pool of the config holds an address for the attachment, and prevResult lists it
 * with the pool's prefix length. A difference is code 101 naming the pool; a missing or malformed
 * prevResult is code 7.
 */
export async function cmdCheck(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadIpamConf(args.config, args.args);
  if (conf.prevResult === undefined)
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: prevResult: required for CHECK',
    );
  const prev = parseCniResult(conf.prevResult);
  if (!prev.ok)
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      `invalid network config: prevResult.${prev.field}: ${prev.message}`,
    );
  const { settings } = await loadNodeSettings(deps.env);
  let found;
  try {
    const client = await deps.connect(settings.ipam);
    found = await findAllocations(client, conf.pools, { containerID: args.containerId, ifName: args.ifname });
  } catch (e) {
    throw toCniError(e, conf, 'CHECK');
  }
  const listed = new Set((prev.result.ips ?? []).map((ip) => ip.address));
  conf.pools.forEach((pool, i) => {
    const allocation = found[i];
    const fail = (msg: string) =>
      new CniError(IpamErrorCode.checkFailed, `CHECK failed: ${poolField(conf, i)}: ${msg}`);
    if (!allocation) throw fail(`IPPool ${pool} holds no address for this attachment`);
    const address = `${allocation.address}/${allocation.prefixLength}`;
    if (!listed.has(address)) throw fail(`prevResult does not list ${address} from IPPool ${pool}`);
  });
}
