import { runCniMain, SPEC_VERSIONS } from '@fabrik/cni-skel/main';
import { standalonePlugin } from '@fabrik/ovs-attachment/plugin';
import { VERSION } from './version.js';

// Entry point of the bundled `fabrik-ovs` binary: a CNI plugin, `fabrik-ovs install --dir DIR`, or
// `fabrik-ovs install-node ...`, the fabrik-cni image's node installer (@fabrik/cni-skel).
runCniMain({ name: 'fabrik-ovs', version: VERSION, versions: SPEC_VERSIONS, plugin: standalonePlugin });
