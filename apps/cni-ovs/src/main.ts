import { runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { fabrikOvsPlugin } from './plugin.js';

// Entry point of the bundled `fabrik-ovs` binary: a CNI plugin, or `fabrik-ovs install --dir DIR`.
runCniMain({
  name: 'fabrik-ovs',
  versions: SPEC_VERSIONS,
  plugin: (env) =>
    fabrikOvsPlugin(async () => ({ env, openOvs: (await import('./ovs-session.js')).openOvsSession })),
});
