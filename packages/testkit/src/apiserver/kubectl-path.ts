// The kubectl binaries the tests run: every distinct one on PATH (the one a machine ships, or
// Debian's kubernetes-client where it is missing) and Debian's kubectl 1.20 that
// tools/ci/ensure-deps.sh unpacks beside it, so the oldest client users run and a current one are
// both proven. Each is named by its version, which the tests put in their names.
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { runCommand } from '@fabrik/netcore';

export interface Kubectl {
  /** Path of the binary. */
  path: string;
  /** Its client version as `kubectl version --client` reports it (gitVersion, e.g. v1.20.2). */
  version: string;
}

/** Where tools/ci/ensure-deps.sh unpacks Debian's kubernetes-client (1.20). */
export const DEBIAN_KUBECTL = resolve(
  import.meta.dirname,
  '../../../../node_modules/.cache/fabrik/kubectl-1.20/kubectl',
);

function executables(candidates: string[]): string[] {
  const found = new Map<string, string>();
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      if (!found.has(real)) found.set(real, candidate);
    } catch {
      // not there
    }
  }
  return [...found.values()];
}

async function clientVersion(path: string): Promise<string> {
  const { stdout } = await runCommand(path, ['version', '--client', '-o', 'json'], { timeoutMs: 30_000 });
  return (JSON.parse(stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
}

/**
 * Every kubectl on PATH and Debian's unpacked 1.20, one per client version (the first found of a
 * version wins), in that order.
 */
export async function kubectlsUnderTest(): Promise<Kubectl[]> {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'kubectl'));
  const byVersion = new Map<string, Kubectl>();
  for (const path of executables([...onPath, DEBIAN_KUBECTL])) {
    const version = await clientVersion(path);
    if (!byVersion.has(version)) byVersion.set(version, { path, version });
  }
  return [...byVersion.values()];
}
