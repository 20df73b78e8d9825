import { chmod, copyFile, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * `<plugin> install [--dir /opt/cni/bin] [--name <plugin>]`: copies this very file (`self`) into a
 * CNI bin directory atomically (copy to a temporary name in the same directory, fsync, chmod 755,
 * rename), so a runtime never executes a half-written plugin.
 */
export async function runInstall(plugin: string, argv: readonly string[], self: string): Promise<number> {
  let dir = '/opt/cni/bin';
  let name = plugin;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if ((flag === '--dir' || flag === '--name') && value) {
      if (flag === '--dir') dir = value;
      else name = value;
      i++;
    } else {
      process.stderr.write(
        `usage: ${plugin} install [--dir DIR] [--name NAME]\nunknown argument ${JSON.stringify(flag)}\n`,
      );
      return 2;
    }
  }
  if (name !== basename(name) || name.startsWith('.')) {
    process.stderr.write(`--name ${JSON.stringify(name)}: must be a plain file name\n`);
    return 2;
  }
  await installPlugin(self, dir, name);
  process.stdout.write(`installed ${join(dir, name)}\n`);
  return 0;
}

/** Copies `source` to `dir/name` atomically with mode 755. */
export async function installPlugin(source: string, dir: string, name: string): Promise<void> {
  await writeFileAtomic(join(dir, name), { copyOf: source }, 0o755);
}

/**
 * Writes `target` so that a reader sees the old file or the new one, never a part: a temporary
 * file in the same directory, the mode set, fsync, rename. The directory is created if missing.
 */
export async function writeFileAtomic(
  target: string,
  content: string | Uint8Array | { readonly copyOf: string },
  mode: number,
): Promise<void> {
  const dir = join(target, '..');
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(target)}.${process.pid}.tmp`);
  try {
    if (typeof content === 'object' && 'copyOf' in content) await copyFile(content.copyOf, tmp);
    else await writeFile(tmp, content, { mode });
    await chmod(tmp, mode);
    const fh = await open(tmp, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
