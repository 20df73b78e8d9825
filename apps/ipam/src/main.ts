import { runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { connectWithKubeconfig, fabrikIpamPlugin } from '@fabrik/ipam-plugin/plugin';

// Entry point of the bundled `fabrik-ipam` binary: a CNI IPAM plugin, or `fabrik-ipam install --dir DIR`.
// The verbs are @fabrik/ipam-plugin's (agent-host runs the same ones in-process); this process
// connects to the API server with the node settings' kubeconfig for each call.
runCniMain({
  name: 'fabrik-ipam',
  versions: SPEC_VERSIONS,
  plugin: (env) => fabrikIpamPlugin({ env, connect: connectWithKubeconfig }),
});
