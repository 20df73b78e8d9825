// Bundles the plugin into one executable file, dist/fabrik-ovs: CommonJS so that it runs with no
// package.json next to it (CNI bin directories have none), workspace packages taken from their
// TypeScript sources, and command modules kept lazy (esbuild wraps dynamic imports in init
// functions), so VERSION evaluates almost nothing. The plugin is built first and embedded as a
// string into src/launcher.ts, which compiles it with a V8 code cache.
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmod } from 'node:fs/promises';
import { readFile } from 'node:fs/promises';
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
      return {
        contents: text.replace(/^import \{ z \} from 'zod';$/m, "import * as z from 'zod';"),
        loader: 'ts',
      };
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
} as const;

/** Writes the executable single-file plugin to `outfile` (mode 755) and returns its size in bytes. */
export async function bundlePlugin(outfile: string): Promise<number> {
  const payload = await build({
    ...common,
    entryPoints: [join(root, 'src', 'main.ts')],
    conditions: ['@fabrik/source'],
    write: false,
    outfile: 'payload.js',
    plugins: [zodNamespaceImports],
  });
  const code = payload.outputFiles[0]?.text ?? '';
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  await build({
    ...common,
    format: 'iife',
    entryPoints: [join(root, 'src', 'launcher.ts')],
    outfile,
    banner: { js: '#!/usr/bin/env node' },
    define: {
      __FABRIK_OVS_PAYLOAD__: JSON.stringify(code),
      __FABRIK_OVS_PAYLOAD_HASH__: JSON.stringify(hash),
    },
  });
  await chmod(outfile, 0o755);
  return code.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outfile = join(root, 'dist', 'fabrik-ovs');
  const size = await bundlePlugin(outfile);
  process.stdout.write(`${outfile} (plugin ${Math.round(size / 1024)} KiB)\n`);
}
