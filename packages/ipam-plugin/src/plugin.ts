import type { PluginFuncs } from '@fabrik/cni-skel';
import type { PluginDeps } from './context.js';

export { connectWithKubeconfig } from './context.js';

/**
 * The plugin's verbs. Each command module is imported when its verb runs, so VERSION (called by
 * runtimes before every ADD and DEL) loads neither zod nor the Kubernetes client.
 */
export function fabrikIpamPlugin(deps: PluginDeps): PluginFuncs {
  return {
    add: async (args) => (await import('./commands/add.js')).cmdAdd(args, deps),
    del: async (args) => (await import('./commands/del.js')).cmdDel(args, deps),
    check: async (args) => (await import('./commands/check.js')).cmdCheck(args, deps),
    gc: async (args) => (await import('./commands/gc.js')).cmdGc(args, deps),
    status: async (args) => (await import('./commands/status.js')).cmdStatus(args, deps),
  };
}
