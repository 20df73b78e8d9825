import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

// The production tree of a workspace app: the app's package.json, dist and bin, every workspace
// package it depends on (package.json and what it publishes), and every npm package in the
// production dependency closure, copied from the workspace's node_modules (no registry, no npm
// cache, no dev dependencies). Paths keep the workspace's shape, so Node resolves each module in
// the image exactly as it does in the repository:
//   apps/<app>/...            -> app/...
//   packages/<p>/... (linked) -> node_modules/@fabrik/<p>/...
//   node_modules/...          -> node_modules/...

interface PackageJson {
  name: string;
  version: string;
  files?: string[];
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
  os?: string[];
  cpu?: string[];
}

/** One directory to copy: from the repository (real path) to the tree (relative path). */
export interface TreeEntry {
  readonly from: string;
  readonly to: string;
  /** Workspace packages: only these top-level entries (package.json always). External: everything. */
  readonly only?: readonly string[];
}

export class ProductionTreeError extends Error {
  override readonly name = 'ProductionTreeError';
  readonly code = 'PRODUCTION_TREE';
}

async function readPackageJson(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** Node's lookup of `name` from `dir` (real paths), up to and including the repository root. */
async function resolvePackage(repoRoot: string, dir: string, name: string): Promise<string | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, 'node_modules', name);
    if (await exists(join(candidate, 'package.json'))) return realpath(candidate);
    if (d === repoRoot || !d.startsWith(repoRoot)) return undefined;
  }
}

/**
 * Where a package found at the real path `path` goes in the tree: a workspace package under
 * node_modules/<its name>; an npm package at its place relative to the repository root, or, when
 * it sits in a workspace directory's own node_modules, below that directory's place in the tree.
 */
export function treePathOf(
  repoRoot: string,
  path: string,
  placeOf: (realDir: string) => string | undefined,
  workspaceName?: string,
): string {
  if (workspaceName !== undefined) return join('node_modules', workspaceName);
  const rel = relative(repoRoot, path);
  if (rel.startsWith(`node_modules${sep}`)) return rel;
  const marker = `${sep}node_modules${sep}`;
  const at = rel.indexOf(marker);
  const owner = at < 0 ? undefined : placeOf(join(repoRoot, rel.slice(0, at)));
  if (owner === undefined)
    throw new ProductionTreeError(`${rel}: not below a node_modules of the root or of a packaged workspace`);
  return join(owner, 'node_modules', rel.slice(at + marker.length));
}

/** What a workspace package publishes: its `files` entries (plain names only), else dist and bin. */
function publishedEntries(pkg: PackageJson): string[] {
  const listed = (pkg.files ?? ['dist', 'bin']).filter((f) => !f.startsWith('!') && !f.includes('*'));
  return [...new Set(['package.json', ...listed])];
}

/**
 * The directories that make up the production tree of the app in `appDir`: itself, then its
 * production dependencies, transitively (dependencies and required peers). Throws naming the
 * package when one is missing from node_modules.
 */
export async function planProductionTree(repoRoot: string, appDir: string): Promise<TreeEntry[]> {
  const root = await realpath(repoRoot);
  const app = await realpath(appDir);
  const appPkg = await readPackageJson(app);
  const entries = new Map<string, TreeEntry>();
  entries.set(app, { from: app, to: 'app', only: [...publishedEntries(appPkg), 'dist', 'bin'] });
  const queue: { dir: string; pkg: PackageJson }[] = [{ dir: app, pkg: appPkg }];
  while (queue.length > 0) {
    const { dir, pkg } = queue.shift()!;
    // Optional dependencies are left out (a package works without them by definition: handlebars'
    // uglify-js, tar-fs's bare-* modules); peers are needed unless marked optional.
    const peers = Object.keys({ ...pkg.peerDependencies }).filter(
      (n) => pkg.peerDependenciesMeta?.[n]?.optional !== true,
    );
    // Except a package's prebuilt binaries: optional dependencies restricted to an os or cpu
    // (koffi's @koromix/koffi-linux-x64), which npm installed because they match this platform.
    const binaries: string[] = [];
    for (const name of Object.keys({ ...pkg.optionalDependencies })) {
      const found = await resolvePackage(root, dir, name);
      if (found === undefined) continue;
      const opt = await readPackageJson(found);
      if (opt.os !== undefined || opt.cpu !== undefined) binaries.push(name);
    }
    for (const name of [...Object.keys({ ...pkg.dependencies }), ...peers, ...binaries]) {
      const found = await resolvePackage(root, dir, name);
      if (found === undefined)
        throw new ProductionTreeError(`${pkg.name} needs ${name}, which is not in node_modules (npm ci?)`);
      if (entries.has(found)) continue;
      const depPkg = await readPackageJson(found);
      const isWorkspace = !relative(root, found).split(sep).includes('node_modules');
      entries.set(found, {
        from: found,
        to: treePathOf(root, found, (d) => entries.get(d)?.to, isWorkspace ? depPkg.name : undefined),
        ...(isWorkspace ? { only: publishedEntries(depPkg) } : {}),
      });
      queue.push({ dir: found, pkg: depPkg });
    }
  }
  return [...entries.values()].sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
}

/** Files no program reads at run time: type declarations, source maps, build info, tests, docs. */
export function isRuntimeFile(relPath: string): boolean {
  const base = relPath.split(sep).at(-1) ?? '';
  if (/\.d\.[cm]?ts$|\.map$|\.tsbuildinfo$|\.test\.[cm]?[jt]s$/.test(base)) return false;
  if (/\.md$/i.test(base) && !/^licen[cs]e/i.test(base)) return false;
  return true;
}

/** Every file under `dir` (relative paths), skipping nested node_modules (entries of their own). */
export async function listFiles(dir: string, only?: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const d of await readdir(join(dir, rel), { withFileTypes: true })) {
      const child = rel ? join(rel, d.name) : d.name;
      if (!rel && only && !only.includes(d.name)) continue;
      if (d.name === 'node_modules') continue;
      if (d.isDirectory()) await walk(child);
      else if ((d.isFile() || d.isSymbolicLink()) && isRuntimeFile(child)) out.push(child);
    }
  };
  await walk('');
  return out.sort();
}
