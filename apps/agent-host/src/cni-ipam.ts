import { stat } from 'node:fs/promises';
import type { Logger } from '@fabrik/agent-runtime';
import { connectWithKubeconfig, fabrikIpamPlugin, type IpPoolConnectSettings } from '@fabrik/ipam-plugin';
import { ipPoolClient, type IpPoolClient } from '@fabrik/ippool';
import type { InProcessIpam } from '@fabrik/ovs-attachment';
import type { KubeConfig } from '@kubernetes/client-node';

// fabrik-ipam inside agent-host (issue 15: "the veth, OVS port, IPAM and the Pod's addresses are
// done in the agent"). A network config whose `ipam.type` is fabrik-ipam has its IPAM verbs run
// here, by @fabrik/ipam-plugin, the code the fabrik-ipam binary runs, through the same skeleton and
// with the request's environment (so the node settings, CNI_ARGS and errors are the plugin's). What
// the agent adds is a client of the IPPool API that outlives the call: no Node start, no loading of
// the Kubernetes client, no TLS handshake per verb. Other IPAM types are executed, as the CNI spec
// delegates them (packages/ovs-attachment/src/ipam.ts).

/** Opens the IPPool client of one fabrik-ipam verb, given the node settings' `ipam` section. */
export type ConnectIpPools = (settings: IpPoolConnectSettings) => Promise<IpPoolClient>;

/** The IPAM plugins agent-host runs in-process: fabrik-ipam, over `connect`. */
export function inProcessIpam(connect: ConnectIpPools): InProcessIpam {
  return { 'fabrik-ipam': (env) => fabrikIpamPlugin({ env, connect }) };
}

/**
 * The IPPool clients of in-process fabrik-ipam verbs, kept from call to call (one keep-alive
 * connection each):
 * - with a cluster (`kc`, agent-host's Kubernetes source), agent-host's own credentials, its
 *   ServiceAccount (RBAC: `ippools` get, `ippools/status` update, as fabrik-cni's), one client per
 *   `ipam.timeoutMs` of the node settings. The settings' `ipam.kubeconfig`, fabrik-ipam's own
 *   credentials, is then not read;
 * - without one (a file source), the settings' `ipam.kubeconfig`, as the plugin reads it, loaded
 *   again when the file changes (the installer rewrites it when the token rotates). A file that
 *   cannot be loaded fails the verb as it fails the plugin (code 7 naming `ipam.kubeconfig`).
 */
export function heldIpPoolClients(kc: KubeConfig | undefined, logger: Logger): ConnectIpPools {
  const held = new Map<string, { readonly version: string; readonly client: IpPoolClient }>();
  return async (settings) => {
    const { timeoutMs } = settings;
    const source = kc ? 'agent-host' : settings.kubeconfig;
    logger.debug({ credentials: source }, 'cni: fabrik-ipam in-process');
    const key = `${timeoutMs} ${source}`;
    // A kubeconfig file is current while its inode, size and modification time are.
    const version = kc
      ? ''
      : await stat(settings.kubeconfig).then(
          (s) => `${s.ino} ${s.size} ${s.mtimeMs}`,
          () => undefined,
        );
    if (version === undefined) return connectWithKubeconfig(settings);
    const kept = held.get(key);
    if (kept?.version === version) return kept.client;
    const client = kc ? ipPoolClient(kc, { timeoutMs }) : await connectWithKubeconfig(settings);
    held.set(key, { version, client });
    return client;
  };
}
