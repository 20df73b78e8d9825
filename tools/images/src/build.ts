import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, lstat, mkdir, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@fabrik/netcore';
import { baseRecipe, ensureBase } from './base.js';
import { IMAGES, REPOSITORY_PREFIX, type ImageSpec } from './catalogue.js';
import { nodeBinary } from './node-dist.js';
import { buildImage, imageLabel, imageSize } from './podman.js';
import { listFiles, planProductionTree } from './production-tree.js';

/** The repository's root (this file is tools/images/src/build.ts, or dist/build.js). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** This checkout's build state: the build contexts, the base tarball while it is imported. */
export const WORK_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'fabrik', 'images');
/**
 * What every checkout of this machine shares, outside the clone so that a fresh clone (CI) does
 * not download it again: the Node.js binary and the .deb cache. `FABRIK_IMAGES_CACHE` overrides.
 * (The bases and images themselves are in podman's storage, outside any clone too.)
 */
export function sharedCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env['FABRIK_IMAGES_CACHE'] ?? join(env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'fabrik', 'images')
  );
}
/** The label holding a hash of everything an image was built from. */
export const CONTEXT_LABEL = 'dev.fabrik.context';

export interface BuiltImage {
  readonly name: string;
  /** `<repository>:<version>-g<revision>` (first) and `<repository>:<version>`. */
  readonly tags: readonly string[];
  readonly sizeBytes: number;
  /** false: an image built from the same context was there already. */
  readonly built: boolean;
}

interface PackageJson {
  version: string;
  bin?: Record<string, string> | string;
}

async function packageJson(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Why an image cannot be built from this checkout (its app has not landed, or is not built), or undefined. */
export async function notBuildable(spec: ImageSpec, root = REPO_ROOT): Promise<string | undefined> {
  const appDir = join(root, spec.app);
  if (!existsSync(join(appDir, 'package.json'))) return `${spec.app} does not exist`;
  if (spec.content.kind === 'app') {
    const pkg = await packageJson(appDir);
    const bin = typeof pkg.bin === 'object' ? pkg.bin[spec.content.bin] : undefined;
    if (bin === undefined) return `${spec.app} has no bin ${spec.content.bin}`;
    if (!existsSync(join(appDir, 'dist'))) return `${spec.app} is not built (npm run build)`;
    return undefined;
  }
  for (const b of spec.content.bundles)
    if (!existsSync(join(root, b.app, 'dist', b.file)))
      return `${b.app}/dist/${b.file} is missing (npm run build)`;
  return undefined;
}

/** `g<12 hex>`, with `-dirty` when the work tree has uncommitted changes. */
export async function gitRevision(root = REPO_ROOT): Promise<string> {
  const { stdout: head } = await runCommand('git', ['-C', root, 'rev-parse', '--short=12', 'HEAD']);
  const { stdout: status } = await runCommand('git', [
    '-C',
    root,
    'status',
    '--porcelain',
    '--untracked-files=no',
  ]);
  return `g${head.trim()}${status.trim() ? '-dirty' : ''}`;
}

/** Copies a file keeping symlinks as symlinks (packages such as .bin links) and modes. */
async function copyEntry(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const st = await lstat(from);
  if (st.isSymbolicLink()) await symlink(await readlink(from), to);
  else {
    await copyFile(from, to);
    await chmod(to, st.mode & 0o755);
  }
}

/** Writes the build context of `spec` into `dir`: opt/fabrik/... and the image's rootfs/ overlay. */
async function writeContext(spec: ImageSpec, dir: string, root: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'opt', 'fabrik'), { recursive: true });
  if (spec.content.kind === 'app') {
    for (const entry of await planProductionTree(root, join(root, spec.app)))
      for (const file of await listFiles(entry.from, entry.only))
        await copyEntry(join(entry.from, file), join(dir, 'opt', 'fabrik', entry.to, file));
  } else {
    for (const b of spec.content.bundles) {
      await copyEntry(
        join(root, b.app, 'dist', b.file),
        join(dir, 'opt', 'fabrik', 'cni', 'plugins', b.file),
      );
      // What a bundle loads beside itself at run time (koffi, see @fabrik/cni-bundle).
      const modules = join(root, b.app, 'dist', 'node_modules');
      if (existsSync(modules))
        await cp(modules, join(dir, 'opt', 'fabrik', 'cni', 'plugins', 'node_modules'), { recursive: true });
    }
  }
  const rootfs = join(root, 'deploy', 'images', spec.name, 'rootfs');
  await mkdir(join(dir, 'rootfs'), { recursive: true });
  if (existsSync(rootfs)) await cp(rootfs, join(dir, 'rootfs'), { recursive: true, verbatimSymlinks: true });
}

/** sha256 over every file of the context (path, mode, content), the Containerfile and the base. */
async function contextHash(dir: string, containerfile: string, base: string): Promise<string> {
  const hash = createHash('sha256')
    .update(base)
    .update(await readFile(containerfile));
  for (const file of await listFiles(dir)) {
    const st = await lstat(join(dir, file));
    hash.update(`\0${file}\0${st.mode}\0`);
    hash.update(st.isSymbolicLink() ? await readlink(join(dir, file)) : await readFile(join(dir, file)));
  }
  return hash.digest('hex');
}

export interface EnsureImagesOptions {
  /** Only these images (names); default all. */
  readonly only?: readonly string[];
  readonly log?: (line: string) => void;
  readonly root?: string;
}

/**
 * Builds every image that is not already there for this revision and content: the bases (once per
 * recipe), then per image a build context from `npm run build`'s output and `podman build` with
 * the local base. Images that cannot be built from this checkout are reported in `skipped`.
 */
export async function ensureImages(
  options: EnsureImagesOptions = {},
): Promise<{ images: BuiltImage[]; skipped: { name: string; reason: string }[] }> {
  const root = options.root ?? REPO_ROOT;
  const log = options.log ?? (() => {});
  const specs = IMAGES.filter((s) => !options.only || options.only.includes(s.name));
  const unknown = (options.only ?? []).filter((n) => !IMAGES.some((s) => s.name === n));
  if (unknown.length > 0)
    throw new Error(`unknown image ${unknown.join(', ')}: one of ${IMAGES.map((s) => s.name).join(', ')}`);
  const revision = await gitRevision(root);
  const shared = sharedCacheDir();
  let node: Promise<string> | undefined;
  const dirs = {
    node: () => (node ??= nodeBinary(shared)),
    debCache: join(shared, 'debs'),
    workDir: WORK_DIR,
  };
  const images: BuiltImage[] = [];
  const skipped: { name: string; reason: string }[] = [];
  const bases = new Map<string, string>();
  for (const spec of specs) {
    const reason = await notBuildable(spec, root);
    if (reason !== undefined) {
      skipped.push({ name: spec.name, reason });
      log(`${spec.name}: not built: ${reason}`);
      continue;
    }
    let base = bases.get(spec.base);
    if (base === undefined) {
      base = await ensureBase(baseRecipe(spec.base), dirs, log);
      bases.set(spec.base, base);
    }
    const version = (await packageJson(join(root, spec.app))).version;
    const repository = `${REPOSITORY_PREFIX}/${spec.name}`;
    const tags = [`${repository}:${version}-${revision}`, `${repository}:${version}`];
    const context = join(WORK_DIR, 'contexts', spec.name);
    const containerfile = join(root, 'deploy', 'images', spec.name, 'Containerfile');
    await writeContext(spec, context, root);
    const hash = await contextHash(context, containerfile, base);
    const present = (await imageLabel(tags[0]!, CONTEXT_LABEL)) === hash;
    if (!present) {
      const t0 = Date.now();
      await buildImage({
        containerfile,
        context,
        tags,
        buildArgs: { BASE: base, VERSION: version, REVISION: revision },
        labels: { [CONTEXT_LABEL]: hash },
      });
      log(`${spec.name}: built ${tags[0]} (${Math.round((Date.now() - t0) / 1000)} s)`);
    } else {
      await runCommand('podman', ['tag', tags[0]!, tags[1]!]);
      log(`${spec.name}: ${tags[0]} is up to date`);
    }
    images.push({ name: spec.name, tags, sizeBytes: await imageSize(tags[0]!), built: !present });
  }
  return { images, skipped };
}
