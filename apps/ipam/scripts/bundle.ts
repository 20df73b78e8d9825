// Bundles fabrik-ipam into one executable file, dist/fabrik-ipam (see @fabrik/cni-bundle).
import { bundleCniPlugin } from '@fabrik/cni-bundle';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Writes the executable single-file plugin to `outfile` (mode 755) and returns its size in bytes. */
export async function bundlePlugin(outfile: string): Promise<number> {
  return bundleCniPlugin({
    entry: join(root, 'src', 'main.ts'),
    outfile,
    codeCache: { dir: '/var/lib/cni/fabrik-ipam/.code-cache', env: 'FABRIK_IPAM_CODE_CACHE_DIR' },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outfile = join(root, 'dist', 'fabrik-ipam');
  const size = await bundlePlugin(outfile);
  process.stdout.write(`${outfile} (plugin ${Math.round(size / 1024)} KiB)\n`);
}
