import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { runCommand } from '@fabrik/netcore';

/** The repository's root (this file is tools/deploy/src/render.ts, or dist/render.js). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The kustomizations fabrik ships, relative to the repository root. */
export const KUSTOMIZATIONS = [
  'deploy/base',
  'deploy/overlays/lab',
  'deploy/overlays/production',
  'deploy/overlays/netns-kubernetes-source',
] as const;

/**
 * The kubectl releases the deployment must render with: Debian 12's (1.20, kustomize 2.0.3, the
 * oldest in use) and a current one (1.32, kustomize 5.5). tools/ci/ensure-deps.sh puts both here.
 */
export const KUBECTL_VERSIONS = ['1.20', '1.32'] as const;
export type KubectlVersion = (typeof KUBECTL_VERSIONS)[number];

export function kubectlPath(version: KubectlVersion): string {
  return join(REPO_ROOT, 'node_modules', '.cache', 'fabrik', `kubectl-${version}`, 'kubectl');
}

/** A rendered Kubernetes object (as YAML parsed it). */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [k: string]: unknown;
}

export interface Rendered {
  readonly objects: KubeObject[];
  /** What kubectl printed on stderr (kustomize 5's deprecation warnings). */
  readonly warnings: string;
}

/** `kubectl kustomize <dir>` with the given kubectl release, parsed. */
export async function renderKustomization(dir: string, version: KubectlVersion): Promise<Rendered> {
  const kubectl = kubectlPath(version);
  if (!existsSync(kubectl))
    throw new Error(
      `${kubectl} is missing: run bash tools/ci/ensure-deps.sh (it fetches kubectl ${version})`,
    );
  const { stdout, stderr } = await runCommand(kubectl, ['kustomize', dir], { timeoutMs: 60_000 });
  const objects: KubeObject[] = [];
  for (const doc of parseAllDocuments(stdout)) {
    if (doc.errors.length > 0)
      throw new Error(`kubectl ${version} kustomize ${dir}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as KubeObject | null;
    if (value !== null) objects.push(value);
  }
  return { objects, warnings: stderr };
}

/** `Kind namespace/name` (or `Kind name` when cluster-scoped). */
export function objectId(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}
