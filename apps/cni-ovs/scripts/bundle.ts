// Bundles the plugin into one executable file, dist/fabrik-ovs: CommonJS so that it runs with no
// package.json next to it (CNI bin directories have none), workspace packages taken from their
// TypeScript sources, and command modules kept lazy (esbuild wraps dynamic imports in init
// functions), so VERSION evaluates almost nothing.
import { build, type Metafile, type Plugin } from 'esbuild';
import { chmod, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `import { z } from 'zod'` hands esbuild a namespace object it cannot tree-shake, which puts all
 * of zod (about 450 KB minified) into the plugin and costs every call tens of milliseconds of
 * parsing. The namespace import `import * as z from 'zod'` has the same members (zod's index
 * re-exports them), and esbuild keeps only the ones used. Applied to workspace TypeScript only.
 */
const zodNamespaceImports: Plugin = {
  name: 'zod-namespace-imports',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replace(/^import \{ z \} from 'zod';$/m, "import * as z from 'zod';"), loader: 'ts' };
    });
  },
};

/** Writes the executable single-file plugin to `outfile` (mode 755). */
export async function bundlePlugin(outfile: string, options: { minify?: boolean } = {}): Promise<Metafile> {
  const result = await build({
    entryPoints: [join(root, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['@fabrik/source'],
    banner: { js: '#!/usr/bin/env node' },
    minify: options.minify ?? true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [zodNamespaceImports],
  });
  await chmod(outfile, 0o755);
  return result.metafile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outfile = join(root, 'dist', 'fabrik-ovs');
  await bundlePlugin(outfile);
  process.stdout.write(`${outfile}\n`);
}
