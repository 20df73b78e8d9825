import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { IntentSnapshot } from '@fabrik/agent-runtime';

/**
 * The `passwordFile`s the BGPPeerings of a node's own intent file name, read (desiredNode, which is
 * pure, takes them by path). Only for the file source: a BGPPeering from the cluster must not make
 * the agent read files of the node. A file that cannot be read is left out (desiredNode skips its
 * BGPPeering, naming spec.passwordFile); its contents are never logged.
 */
export async function readPasswordFiles(snapshot: IntentSnapshot): Promise<Map<string, string>> {
  const paths = new Set<string>();
  for (const object of snapshot.objects) {
    const spec = (object as { kind?: unknown; spec?: { passwordFile?: unknown } }).spec;
    const path = spec?.passwordFile;
    if (object.kind === 'BGPPeering' && typeof path === 'string' && isAbsolute(path)) paths.add(path);
  }
  const files = new Map<string, string>();
  for (const path of paths) {
    try {
      files.set(path, await readFile(path, 'utf8'));
    } catch {
      // Reported by desiredNode as the BGPPeering's problem.
    }
  }
  return files;
}
