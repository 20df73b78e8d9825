import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@fabrik/netcore';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';
import { kubeClient, type KubeClient } from './kube-client.js';
import { API_ADDRESS } from './topology.js';

// The cluster's control plane in the lab: the real kube-apiserver and etcd (@fabrik/testkit's
// startKubeApiServer) on the host side of the lab's routed link, reached by the nodes at
// API_ADDRESS, and kubectl as users run it.

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/**
 * kubectl 1.32 as tools/ci/ensure-deps.sh unpacks it on every machine: a plain kubectl. (A machine's
 * own may be a dispatcher, such as the Cloud SDK's, which asks the server for /version before every
 * command: one more TLS round trip per call in the lab kernel.)
 */
export const KUBECTL = join(REPO, 'node_modules/.cache/fabrik/kubectl-1.32/kubectl');

export interface ControlPlane {
  readonly api: KubeApiServer;
  /** The lab's own client (admin). */
  readonly kube: KubeClient;
  /** `kubectl ARGS...` as the admin; resolves with its standard output. */
  kubectl(...args: string[]): Promise<string>;
  /** A kubeconfig for the ServiceAccount's token, as a Pod of it would mount. */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /**
   * The same for a node agent: its token is bound to a Pod of the ServiceAccount on `nodeName`, so it
   * carries the node claim deploy/base's policy fabrik-agent-node-scope requires.
   */
  nodeAgentKubeconfig(namespace: string, name: string, nodeName: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startControlPlane(dir: string): Promise<ControlPlane> {
  // No CRDs at start: `kubectl apply` installs them, as on a real cluster.
  const api = await startKubeApiServer({
    dir: join(dir, 'apiserver'),
    host: API_ADDRESS,
    crdDirs: [],
  });
  const kube = kubeClient({ url: api.url, token: api.token, ca: api.caPem });
  // kubectl's discovery cache in the run's directory: fresh per run, shared by its calls.
  const cacheDir = join(dir, 'kubectl-cache');
  const kubectl = async (...args: string[]) =>
    (
      await runCommand(KUBECTL, ['--kubeconfig', api.kubeconfigPath, '--cache-dir', cacheDir, ...args], {
        cwd: REPO,
        timeoutMs: 60_000,
      })
    ).stdout;
  return {
    api,
    kube,
    kubectl,
    serviceAccountKubeconfig: (namespace, name) => api.writeServiceAccountKubeconfig(namespace, name),
    nodeAgentKubeconfig: (namespace, name, nodeName) =>
      api.writeServiceAccountKubeconfig(namespace, name, { node: nodeName }),
    async stop() {
      kube.close();
      await api.stop();
    },
  };
}
