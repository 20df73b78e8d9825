import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '@fabrik/netcore';
import { imageExists } from './podman.js';

// The base images, assembled here from Debian's packages (no registry): mmdebstrap of bookworm
// (minbase without docs, man pages or locales; merged /usr without perl), Node.js at
// /usr/local/bin/node, imported into podman as one layer.

/** What each base holds beyond Debian's minbase and Node.js. */
export const BASES = {
  /** agent-host (netlink through iproute2, sysctls through procps) and the CNI installer. */
  node: ['iproute2', 'procps'],
  /** The HBR pod: agent-netns, FRR 8.4 with frr-reload.py, tini as PID 1 for FRR's daemons. */
  frr: ['iproute2', 'procps', 'frr', 'frr-pythontools', 'tini'],
} as const satisfies Record<string, readonly string[]>;
export type BaseName = keyof typeof BASES;

const SUITE = 'bookworm';
/** Override with FABRIK_DEBIAN_MIRROR (a Debian mirror's URL). */
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';
const SAFE_PATH = /^\/[A-Za-z0-9/._-]+$/;

export interface BaseRecipe {
  readonly name: BaseName;
  readonly packages: readonly string[];
  readonly mirror: string;
  readonly nodeVersion: string;
}

export function baseRecipe(name: BaseName, env: NodeJS.ProcessEnv = process.env): BaseRecipe {
  return {
    name,
    packages: BASES[name],
    mirror: env['FABRIK_DEBIAN_MIRROR'] ?? DEFAULT_MIRROR,
    nodeVersion: process.version.slice(1),
  };
}

/** The base's tag: a hash of its recipe, so a changed recipe (or Node version) builds a new base. */
export function baseTag(recipe: BaseRecipe): string {
  const key = createHash('sha256')
    .update(JSON.stringify([recipe, mmdebstrapOptions(recipe)]))
    .digest('hex');
  return `localhost/fabrik/base-${recipe.name}:${key.slice(0, 16)}`;
}

/** The mirror lines: the suite, its updates and its security updates. */
function sources(recipe: BaseRecipe): string[] {
  const security = recipe.mirror.replace(/\/debian\/?$/, '/debian-security');
  return [
    `deb ${recipe.mirror} ${SUITE} main`,
    `deb ${recipe.mirror} ${SUITE}-updates main`,
    `deb ${security} ${SUITE}-security main`,
  ];
}

/** mmdebstrap's options that shape the file system (part of the base's identity). */
function mmdebstrapOptions(recipe: BaseRecipe): string[] {
  return [
    '--variant=minbase',
    // merged /usr made by mmdebstrap's hook, not by the usrmerge package (which pulls in perl)
    '--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr',
    '--aptopt=APT::Install-Recommends "false"',
    `--include=${recipe.packages.join(',')}`,
    ...['man', 'doc', 'info', 'locale', 'lintian', 'bug'].map(
      (d) => `--dpkgopt=path-exclude=/usr/share/${d}/*`,
    ),
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
  ];
}

/**
 * The mmdebstrap command line. Downloaded packages are kept in `debCache` between builds (the
 * hooks move them in and out, the recipe of mmdebstrap's manual) and removed from the image.
 */
export function mmdebstrapArgs(recipe: BaseRecipe, node: string, debCache: string, out: string): string[] {
  for (const p of [node, debCache, out])
    if (!SAFE_PATH.test(p)) throw new Error(`${p}: base build paths must match ${SAFE_PATH}`);
  return [
    '--mode=root',
    '--format=tar',
    '--skip=download/empty',
    '--skip=essential/unlink',
    '--dpkgopt=force-unsafe-io',
    ...mmdebstrapOptions(recipe),
    '--setup-hook=mkdir -p "$1"/var/cache/apt/archives',
    `--setup-hook=sync-in ${debCache} /var/cache/apt/archives`,
    `--customize-hook=sync-out /var/cache/apt/archives ${debCache}`,
    '--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb',
    `--customize-hook=copy-in ${node} /usr/local/bin`,
    '--customize-hook=chroot "$1" /usr/local/bin/node --version',
    SUITE,
    out,
    ...sources(recipe),
  ];
}

export interface BaseBuildDirs {
  /** The Node.js binary to copy in, fetched only when a base is built (see node-dist.ts). */
  readonly node: () => Promise<string>;
  /** Downloaded .debs, kept between builds (shared by every checkout of this machine). */
  readonly debCache: string;
  /** This checkout's scratch directory, for the temporary tarball. */
  readonly workDir: string;
}

/** The base image for `recipe`, built unless podman has it already; returns its tag. */
export async function ensureBase(
  recipe: BaseRecipe,
  dirs: BaseBuildDirs,
  log: (line: string) => void,
): Promise<string> {
  const tag = baseTag(recipe);
  if (await imageExists(tag)) return tag;
  const tar = join(dirs.workDir, `base-${recipe.name}.tar`);
  await mkdir(dirs.debCache, { recursive: true });
  await mkdir(dirs.workDir, { recursive: true });
  log(`base ${recipe.name}: mmdebstrap ${SUITE} + ${recipe.packages.join(' ')} + node ${recipe.nodeVersion}`);
  const t0 = Date.now();
  try {
    const node = await dirs.node();
    await runCommand('mmdebstrap', mmdebstrapArgs(recipe, node, dirs.debCache, tar), {
      timeoutMs: 1_800_000,
    });
    await runCommand(
      'podman',
      [
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        `LABEL dev.fabrik.base=${recipe.name}`,
        '--message',
        `fabrik base ${recipe.name}: Debian ${SUITE} minbase + ${recipe.packages.join(' ')} + node ${recipe.nodeVersion}`,
        tar,
        tag,
      ],
      { timeoutMs: 600_000 },
    );
  } finally {
    await rm(tar, { force: true });
  }
  log(`base ${recipe.name}: ${tag} (${Math.round((Date.now() - t0) / 1000)} s)`);
  return tag;
}
