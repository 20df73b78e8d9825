import { loadNodeSettings, type CmdArgs } from '@fabrik/cni-skel';
import { loadIpamConf } from '../config.js';
import type { PluginDeps } from '../context.js';
import { toCniError } from '../errors.js';

/**
 * STATUS (CNI 1.1): the plugin can serve ADD when the API server answers with every pool of the
 * config. Code 50 otherwise (unreachable, credentials refused, a pool missing or invalid).
 */
export async function cmdStatus(args: CmdArgs, deps: PluginDeps): Promise<void> {
  const conf = loadIpamConf(args.config, args.args);
  const { settings } = await loadNodeSettings(deps.env);
  try {
    const client = await deps.connect(settings.ipam);
    await Promise.all(conf.pools.map((pool) => client.get(pool)));
  } catch (e) {
    throw toCniError(e, conf, 'STATUS');
  }
}
