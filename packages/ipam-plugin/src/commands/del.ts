import { loadNodeSettings, type CmdArgs } from '@fabrik/cni-skel';
import { release } from '@fabrik/ippool';
import { loadIpamConf, type IpamConf } from '../config.js';
import type { PluginDeps } from '../context.js';
import { toCniError } from '../errors.js';
import { withPoolLocks } from '../node-lock.js';

/**
 * DEL: releases the attachment's addresses from the pools of the config. Idempotent: a missing pool
 * or a pool without an address for the attachment is success, and so is a config ADD refuses (it
 * can have allocated nothing). An unreachable API server is code 11: the runtime retries DEL.
 */
export async function cmdDel(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const start = performance.now();
  let conf: IpamConf;
  try {
    conf = loadIpamConf(args.config, args.args);
  } catch {
    return;
  }
  const { settings } = await loadNodeSettings(deps.env);
  const attachment = { containerID: args.containerId, ifName: args.ifname };
  try {
    const client = await deps.connect(settings.ipam);
    await withPoolLocks(conf.pools, settings.ipam.timeoutMs, start, (deadlineMs) =>
      release(client, { pools: conf.pools, attachment }, { deadlineMs }),
    );
  } catch (e) {
    throw toCniError(e, conf, 'DEL');
  }
}
