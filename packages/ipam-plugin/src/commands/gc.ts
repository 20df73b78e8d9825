import { CniError, CniErrorCode, loadNodeSettings, type CmdArgs } from '@fabrik/cni-skel';
import { collectGarbage } from '@fabrik/ippool';
import { loadIpamConf } from '../config.js';
import type { PluginDeps } from '../context.js';
import { toCniError } from '../errors.js';
import { withPoolLocks } from '../node-lock.js';

/**
 * GC (CNI 1.1): releases every address this network holds in the pools of the config for an
 * attachment that is not in `cni.dev/valid-attachments`. Addresses of other networks sharing a
 * pool, and Reserved ones, stay.
 */
export async function cmdGc(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const start = performance.now();
  const conf = loadIpamConf(args.config, args.args);
  if (!conf.validAttachments)
    throw new CniError(
      CniErrorCode.invalidNetworkConfig,
      'invalid network config: cni.dev/valid-attachments: required for GC',
    );
  const { settings } = await loadNodeSettings(deps.env);
  const valid = conf.validAttachments.map((a) => ({ containerID: a.containerID, ifName: a.ifname }));
  try {
    const client = await deps.connect(settings.ipam);
    await withPoolLocks(conf.pools, settings.ipam.timeoutMs, start, (deadlineMs) =>
      collectGarbage(client, { pools: conf.pools, network: conf.network, valid }, { deadlineMs }),
    );
  } catch (e) {
    throw toCniError(e, conf, 'GC');
  }
}
