import { loadNetConf } from '../config.js';
import { resolveBridge } from '../default-bridge.js';
import { loadNodeSettings, CniError, CniErrorCode, isCniError, type CmdArgs } from '@fabrik/cni-skel';
import type { PluginDeps } from './context.js';

/** STATUS: ready to ADD when OVSDB answers and the bridge exists; code 50 otherwise. */
export async function cmdStatus(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const { settings } = await loadNodeSettings(deps.env);
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
}
