import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '@fabrik/kube';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';

const DEPLOY = join(import.meta.dirname, '../../../deploy');

/** A real API server as an installation leaves it for the operator: the namespace, the RBAC of deploy/. */
export interface OperatorServer {
  readonly server: KubeApiServer;
  /** The administrator's. */
  readonly kc: KubeConfig;
  /** The path of a kubeconfig for the operator's ServiceAccount token. */
  readonly operatorKubeconfig: string;
  /** The operator's ServiceAccount, as its Pod would authenticate. */
  readonly operatorKc: KubeConfig;
}

/**
 * Starts kube-apiserver (`crdDirs` as startKubeApiServer takes them) and applies fabrik-system,
 * deploy/base's RBAC (the Role fabrik-events the operator's binding names) and the operator's own.
 */
export async function startOperatorServer(
  options: { crdDirs?: readonly string[] } = {},
): Promise<OperatorServer> {
  const server = await startKubeApiServer(options.crdDirs === undefined ? {} : { crdDirs: options.crdDirs });
  await server.kubectl(
    'apply',
    '-f',
    join(DEPLOY, 'base/namespace.yaml'),
    '-f',
    join(DEPLOY, 'base/rbac.yaml'),
    '-f',
    join(DEPLOY, 'operator/rbac.yaml'),
  );
  const operatorKubeconfig = await server.writeServiceAccountKubeconfig('fabrik-system', 'fabrik-operator');
  return {
    server,
    kc: loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc,
    operatorKubeconfig,
    operatorKc: loadKubeConfig({ kubeconfig: operatorKubeconfig }).kc,
  };
}
