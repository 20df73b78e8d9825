// What the fabrik-ovs process evaluates before it hands an invocation to agent-host: the modules its
// entry reaches through static imports (the verbs are dynamic imports, evaluated only when this
// process does the work itself). Neither zod nor @fabrik/api's index (every schema) may be among
// them: each costs every CNI call of the fast path tens of milliseconds of start-up (measured: a
// VERSION call 78 -> 56 ms when @fabrik/api's index left the thin client). esbuild resolves the
// graph exactly as the bundle is built.
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ENTRY = new URL('./main.ts', import.meta.url).pathname;
const REPO = new URL('../../../', import.meta.url).pathname;

/** Files the entry reaches through static imports only, relative to the repository. */
async function staticallyReached(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    conditions: ['@fabrik/source'],
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: REPO,
  });
  const reached = new Set<string>();
  const entryInput = Object.keys(metafile.inputs).find((f) => REPO + f === entry) ?? '';
  const queue = [entryInput];
  while (queue.length > 0) {
    const file = queue.pop() ?? '';
    if (reached.has(file)) continue;
    reached.add(file);
    for (const i of metafile.inputs[file]?.imports ?? [])
      if (i.kind !== 'dynamic-import' && !i.external) queue.push(i.path);
  }
  return [...reached].sort();
}

describe("fabrik-ovs's thin client", () => {
  it('reaches neither zod nor the schemas of @fabrik/api through static imports', async () => {
    const reached = await staticallyReached(ENTRY);
    expect(reached).toContain('packages/cni-skel/src/fast-path-client.ts');
    expect(reached.filter((f) => f.includes('node_modules/zod/'))).toEqual([]);
    expect(reached).not.toContain('packages/api/src/index.ts');
  });
});
