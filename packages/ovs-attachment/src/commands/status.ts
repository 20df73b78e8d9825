import { loadNetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import { execIpam, ipamCallOf, ipamRulesOf } from '../ipam.js';
import { loadNodeSettings, CniError, CniErrorCode, isCniError, type CmdArgs } from '@fabrik/cni-skel';
import type { PluginDeps } from './context.js';

/**
 * STATUS: ready to ADD when OVSDB answers and the bridge exists (code 50 otherwise), and the IPAM
 * plugin, asked in turn (CNI 1.1; when it speaks 1.1.0), is ready too: its error is passed on
 * with its own code. An IPAM type the node does not allow is code 7 naming `ipam.type`, as for ADD.
 */
export async function cmdStatus(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const node = await loadNodeSettings(deps.env);
  const { settings } = node;
  const conf = loadNetConf(args.config, args.args, args.cniVersion);
  const bridge = await resolveBridge(conf.bridge, settings.agentHostConfig);
  let exists: boolean;
  try {
    const ovs = await deps.openOvs(settings);
    try {
      exists = await ovs.bridgeExists(bridge);
    } finally {
      ovs.close();
    }
  } catch (e) {
    const why = isCniError(e) || e instanceof Error ? e.message : String(e);
    throw new CniError(
      CniErrorCode.pluginNotAvailable,
      `OVSDB ${settings.ovsdbSocket} is not available`,
      why,
      {
        cause: e,
      },
    );
  }
  if (!exists) throw new CniError(CniErrorCode.pluginNotAvailable, `OVS bridge ${bridge} does not exist`);
  if (conf.ipamType)
    await execIpam(
      ipamCallOf(conf.ipamType, 'STATUS', args, deps.env, ipamRulesOf(node)),
      deps.inProcessIpam,
    );
}
