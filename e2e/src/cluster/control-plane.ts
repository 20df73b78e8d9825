import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@fabrik/netcore';
import { startApiServer, type ApiServer } from '@fabrik/testkit';
import { kubeClient, type KubeClient } from './kube-client.js';
import { API_ADDRESS } from './topology.js';

// The cluster's control plane in the lab: the test API server (Kubernetes semantics, RBAC from the
// stored roles and bindings, ServiceAccount tokens), reached by the nodes at API_ADDRESS, and
// kubectl as users run it.

export const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/**
 * kubectl 1.32 as tools/ci/ensure-deps.sh unpacks it on every machine: a plain kubectl. (A machine's
 * own may be a dispatcher, such as the Cloud SDK's, which asks the server for /version before every
 * command: one more TLS round trip per call in the lab kernel.)
 */
export const KUBECTL = join(REPO, 'node_modules/.cache/fabrik/kubectl-1.32/kubectl');

export interface ControlPlane {
  readonly api: ApiServer;
  /** The lab's own client (admin). */
  readonly kube: KubeClient;
  /** `kubectl ARGS...` as the admin; resolves with its standard output. */
  kubectl(...args: string[]): Promise<string>;
  /** A kubeconfig for the ServiceAccount's token, as a Pod of it would mount. */
  serviceAccountKubeconfig(namespace: string, name: string): string;
  stop(): Promise<void>;
}

export async function startControlPlane(dir: string): Promise<ControlPlane> {
  // No CRDs at start: `kubectl apply` installs them, as on a real cluster.
  const api = await startApiServer({
    dir: join(dir, 'apiserver'),
    host: API_ADDRESS,
    crdDirs: [],
    rbac: true,
  });
  const ca = await readFile(join(api.dir, 'apiserver.crt'), 'utf8');
  const kube = kubeClient({ url: api.url, token: api.token, ca });
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
    async stop() {
      kube.close();
      await api.stop();
    },
  };
}
