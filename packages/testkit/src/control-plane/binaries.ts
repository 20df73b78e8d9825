// Where the real control plane's binaries are: tools/ci/ensure-k8s.sh builds kube-apiserver,
// kubectl and etcd from the module versions pinned in tools/k8s and links their directory here.
import { accessSync, constants } from 'node:fs';
import { join, resolve } from 'node:path';

/** node_modules/.cache/fabrik/k8s: a link to /var/cache/fabrik/k8s/<version>-<digest>. */
export const K8S_BIN_DIR = resolve(import.meta.dirname, '../../../../node_modules/.cache/fabrik/k8s');

export interface ControlPlaneBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  /** kubectl of the same release as the server. */
  readonly kubectl: string;
}

/** The built binaries; throws naming the command that builds them when one is missing. */
export function controlPlaneBinaries(
  dir = process.env.FABRIK_K8S_BIN_DIR ?? K8S_BIN_DIR,
): ControlPlaneBinaries {
  const binaries = {
    kubeApiServer: join(dir, 'kube-apiserver'),
    etcd: join(dir, 'etcd'),
    kubectl: join(dir, 'kubectl'),
  };
  for (const path of Object.values(binaries)) {
    try {
      accessSync(path, constants.X_OK);
    } catch (e) {
      throw new Error(
        `${path} is missing: the control plane is built from tools/k8s by \`bash tools/ci/ensure-k8s.sh\` (tools/ci/ensure-deps.sh runs it)`,
        { cause: e },
      );
    }
  }
  return binaries;
}
