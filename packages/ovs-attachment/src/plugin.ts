import type { PluginFuncs } from '@fabrik/cni-skel';
import type { PluginDeps } from './commands/context.js';

/**
 * The plugin's verbs. Each command module is imported when its verb runs, so VERSION (called by
 * runtimes before every ADD and DEL) loads neither zod nor the OVSDB client.
 */
export function fabrikOvsPlugin(deps: () => Promise<PluginDeps>): PluginFuncs {
  return {
    add: async (args) => (await import('./commands/add.js')).cmdAdd(args, await deps()),
    del: async (args) => (await import('./commands/del.js')).cmdDel(args, await deps()),
    check: async (args) => (await import('./commands/check.js')).cmdCheck(args, await deps()),
    gc: async (args) => (await import('./commands/gc.js')).cmdGc(args, await deps()),
    status: async (args) => (await import('./commands/status.js')).cmdStatus(args, await deps()),
  };
}

/** The verbs as the fabrik-ovs process runs them by itself: one OVSDB connection per call. */
export function standalonePlugin(env: PluginDeps['env']): PluginFuncs {
  return fabrikOvsPlugin(async () => ({
    env,
    openOvs: (await import('./ovs-session.js')).openOvsSession,
    stderr: (text) => process.stderr.write(text),
  }));
}
