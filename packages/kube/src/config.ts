import { accessSync, constants, existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigError } from './errors.js';

/** Where a Pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadKubeConfigOptions {
  /** A kubeconfig file. Without it: env KUBECONFIG (its first path), then the in-cluster service account. */
  readonly kubeconfig?: string;
  /**
   * A directory the in-cluster paths are looked up under (`<root>/var/run/secrets/...`); for tests.
   * Default: the filesystem root.
   */
  readonly root?: string;
}

/** Where the configuration came from, for logs. */
export type KubeConfigSource = { kind: 'file'; path: string } | { kind: 'in-cluster'; server: string };

/**
 * A client-node KubeConfig from, in this order: `options.kubeconfig`, the first path of env
 * KUBECONFIG, or the service account of the Pod (env KUBERNETES_SERVICE_HOST and _PORT, the token and
 * CA under /var/run/secrets/kubernetes.io/serviceaccount; the token file is re-read when it rotates).
 * Never falls back to ~/.kube/config or localhost. Throws {@link KubeConfigError} naming what is
 * missing (the file, the environment variable, or the kubeconfig field).
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): {
  kc: KubeConfig;
  source: KubeConfigSource;
} {
  const path = options.kubeconfig ?? process.env.KUBECONFIG?.split(':').find((p) => p !== '');
  if (path !== undefined) return { kc: fromFile(path), source: { kind: 'file', path } };
  return fromCluster(options.root ?? '');
}

function fromFile(path: string): KubeConfig {
  try {
    accessSync(path, constants.R_OK);
  } catch (error) {
    throw new KubeConfigError(
      `kubeconfig ${path}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
      {
        cause: error,
      },
    );
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (error) {
    throw new KubeConfigError(`kubeconfig ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!kc.currentContext) throw new KubeConfigError(`kubeconfig ${path}: current-context is not set`);
  const context = kc.getContextObject(kc.currentContext);
  if (!context) {
    throw new KubeConfigError(
      `kubeconfig ${path}: current-context "${kc.currentContext}" names no entry of contexts`,
    );
  }
  const cluster = kc.getCluster(context.cluster);
  if (!cluster) {
    throw new KubeConfigError(
      `kubeconfig ${path}: context "${context.name}" names cluster "${context.cluster}", which is not in clusters`,
    );
  }
  if (!cluster.server)
    throw new KubeConfigError(`kubeconfig ${path}: cluster "${cluster.name}" has no server`);
  if (context.user && !kc.getUser(context.user)) {
    throw new KubeConfigError(
      `kubeconfig ${path}: context "${context.name}" names user "${context.user}", which is not in users`,
    );
  }
  return kc;
}

function fromCluster(root: string): { kc: KubeConfig; source: KubeConfigSource } {
  const missing: string[] = [];
  if (!process.env.KUBERNETES_SERVICE_HOST) missing.push('env KUBERNETES_SERVICE_HOST');
  if (!process.env.KUBERNETES_SERVICE_PORT) missing.push('env KUBERNETES_SERVICE_PORT');
  for (const file of ['token', 'ca.crt']) {
    if (!existsSync(`${root}${SERVICE_ACCOUNT_DIR}/${file}`))
      missing.push(`${root}${SERVICE_ACCOUNT_DIR}/${file}`);
  }
  if (missing.length > 0) {
    throw new KubeConfigError(
      `no cluster configuration: no kubeconfig given, env KUBECONFIG not set, and not in a Pod (missing ${missing.join(', ')})`,
    );
  }
  const kc = new KubeConfig();
  kc.loadFromCluster(root);
  return { kc, source: { kind: 'in-cluster', server: kc.getCurrentCluster()!.server } };
}
