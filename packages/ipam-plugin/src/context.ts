import type { CniIpamSettings } from '@fabrik/api';
import type { IpPoolClient } from '@fabrik/ippool';

/** The node settings' `ipam` fields that reach the IPPool API: fabrik-ipam's credentials and request timeout. */
export type IpPoolConnectSettings = Pick<CniIpamSettings, 'kubeconfig' | 'timeoutMs'>;

/** What the commands need from outside: the process environment and a client of the IPPool API. */
export interface PluginDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A client for the node's `ipam` settings (kubeconfig, request timeout). */
  readonly connect: (settings: IpPoolConnectSettings) => Promise<IpPoolClient>;
}

/**
 * The client of the plugin process: the node settings' kubeconfig, each request bounded by
 * `timeoutMs`. The Kubernetes client is loaded here, not at start-up: VERSION needs none of it.
 */
export async function connectWithKubeconfig(settings: IpPoolConnectSettings): Promise<IpPoolClient> {
  const [{ loadKubeConfig }, { ipPoolClient }] = await Promise.all([
    import('@fabrik/kube'),
    import('@fabrik/ippool'),
  ]);
  return ipPoolClient(loadKubeConfig({ kubeconfig: settings.kubeconfig }).kc, {
    timeoutMs: settings.timeoutMs,
  });
}
