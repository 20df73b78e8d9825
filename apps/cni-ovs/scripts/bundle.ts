// Bundles the plugin into one executable file, dist/fabrik-ovs: CommonJS so that it runs with no
// package.json next to it (CNI bin directories have none), workspace packages taken from their
// TypeScript sources, and command modules kept lazy (esbuild wraps dynamic imports in init
// functions), so VERSION evaluates almost nothing.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'fabrik-ovs');

await build({
  entryPoints: [join(root, 'src', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  conditions: ['@fabrik/source'],
  banner: { js: '#!/usr/bin/env node' },
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
await chmod(outfile, 0o755);
process.stdout.write(`${outfile}\n`);
