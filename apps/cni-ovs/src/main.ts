import { runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { fabrikOvsPlugin } from './plugin.js';
import { VERSION } from './version.js';

// Entry point of the bundled `fabrik-ovs` binary: a CNI plugin, `fabrik-ovs install --dir DIR`, or
// `fabrik-ovs install-node ...`, the fabrik-cni image's node installer (@fabrik/cni-skel).
runCniMain({
  name: 'fabrik-ovs',
  version: VERSION,
  versions: SPEC_VERSIONS,
  plugin: (env) =>
    fabrikOvsPlugin(async () => ({ env, openOvs: (await import('./ovs-session.js')).openOvsSession })),
});
