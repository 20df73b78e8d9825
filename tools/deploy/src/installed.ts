// The real API server with fabrik installed as docs/install.md says, for the tests of what the
// installed objects enforce (admission policies, Pod Security): deploy/crds first, then deploy/base,
// both with `kubectl apply -k`.
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startKubeApiServer, until, type KubeApiServer, type TokenOptions } from '@fabrik/testkit';
import { REPO_ROOT } from './render.js';

export const FABRIK_NAMESPACE = 'fabrik-system';

/** Starts etcd and kube-apiserver with no CRD, and applies deploy/crds, then deploy/base. */
export async function startInstalledApiServer(): Promise<KubeApiServer> {
  const api = await startKubeApiServer({ crdDirs: [] });
  try {
    await api.kubectl('apply', '-k', join(REPO_ROOT, 'deploy/crds'));
    await api.kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all');
    await api.kubectl('apply', '-k', join(REPO_ROOT, 'deploy/base'));
    return api;
  } catch (e) {
    await api.destroy();
    throw e;
  }
}

/** The outcome of a call: undefined when it succeeded, else what it threw. */
export async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/**
 * Waits until kube-apiserver enforces the admission policy `policy` (it loads policies and bindings
 * through its own informers, a moment after they are created): `probe` is a dry run
 * (`--dry-run=server`, admission without storage) that the policy refuses.
 */
export async function untilPolicyEnforced(
  api: KubeApiServer,
  policy: string,
  probe: readonly string[],
): Promise<void> {
  await until(`policy ${policy} enforced`, async () => {
    const failure = await failureOf(api.kubectl(...probe, '--dry-run=server'));
    return failure !== undefined && String(failure).includes(`ValidatingAdmissionPolicy '${policy}'`);
  });
}

/** A client with a TokenRequest token of the ServiceAccount `name` of fabrik-system. */
export async function serviceAccountClient(
  api: KubeApiServer,
  name: string,
  options?: TokenOptions,
): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromFile(await api.writeServiceAccountKubeconfig(FABRIK_NAMESPACE, name, options));
  return kc;
}
