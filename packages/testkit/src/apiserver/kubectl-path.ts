// The kubectl binaries the tests run: every distinct one on PATH (Debian's kubernetes-client, the
// one a machine ships, or both when they sit in different directories).
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function kubectlsOnPath(): string[] {
  const found = new Map<string, string>();
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      if (!found.has(real)) found.set(real, candidate);
    } catch {
      // no kubectl in this directory
    }
  }
  return [...found.values()];
}
