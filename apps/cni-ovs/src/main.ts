import { agentHostSocketOf, runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { standalonePlugin } from '@fabrik/ovs-attachment/plugin';
import { VERSION } from './version.js';

// Entry point of the bundled `fabrik-ovs` binary: a CNI plugin, `fabrik-ovs install --dir DIR`, or
// `fabrik-ovs install-node ...`, the fabrik-cni image's node installer (@fabrik/cni-skel).
// When the node settings name agent-host's CNI socket and it answers, agent-host does the work (the
// fast path); otherwise this process does it all itself. Only these entries are loaded at start;
// the verbs' modules (zod, the OVSDB client) load when this process runs a verb itself.
runCniMain({
  name: 'fabrik-ovs',
  version: VERSION,
  versions: SPEC_VERSIONS,
  plugin: standalonePlugin,
  agentSocket: agentHostSocketOf,
});
