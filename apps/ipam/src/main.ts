import { runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { connectWithKubeconfig } from './context.js';
import { fabrikIpamPlugin } from './plugin.js';

// Entry point of the bundled `fabrik-ipam` binary: a CNI IPAM plugin, or `fabrik-ipam install --dir DIR`.
runCniMain({
  name: 'fabrik-ipam',
  versions: SPEC_VERSIONS,
  plugin: (env) => fabrikIpamPlugin({ env, connect: connectWithKubeconfig }),
});
