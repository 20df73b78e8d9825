// Bundles a fabrik program (a CNI plugin, an agent) into one executable file: CommonJS so that it
// runs with no package.json next to it (CNI bin directories have none), workspace packages taken
// from their TypeScript sources, and command modules kept lazy (esbuild wraps dynamic imports in
// init functions), so a verb evaluates only what it imports. The program is built first and
// embedded as a string into launcher.ts, which compiles it with a V8 code cache.
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmod, copyFile, cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { runCommand } from '@fabrik/netcore';

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

// The launcher beside this module: launcher.ts from the sources, launcher.js from dist.
const launcher = fileURLToPath(
  new URL(`./launcher${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/**
 * `import.meta.url` of a bundled module names the bundle file (modules that read files beside
 * themselves, such as @fabrik/frr's templates, find them through {@link ProgramBundleOptions.assets}).
 * The payload runs as a CommonJS function whose `__filename` is the bundle's path (launcher.ts).
 */
const IMPORT_META_URL = '__fabrik_import_meta_url';
const importMetaUrlBanner = `var ${IMPORT_META_URL}=require("node:url").pathToFileURL(__filename).href;`;

/**
 * Which of a program's code caches a run uses: each caches what its own path compiled.
 * `cni-command`: the `CNI_COMMAND` variable (ADD, DEL, ...); `verb`: the first argument (run, plan, ...).
 */
export type CodeCacheKey = 'cni-command' | 'verb';

export interface ProgramBundleOptions {
  /** The program's entry module (TypeScript). */
  readonly entry: string;
  /** The executable to write (mode 755). */
  readonly outfile: string;
  /** Where the launcher keeps V8 code caches, and the environment variable that overrides it ("off": none). */
  readonly codeCache: { readonly dir: string; readonly env: string; readonly key: CodeCacheKey };
  /** Directories copied beside the outfile (`to` relative to its directory): files the program reads at run time. */
  readonly assets?: readonly { readonly from: string; readonly to: string }[];
  /**
   * A run of the built program, without side effects (`--version`, CNI VERSION), whose code cache
   * is kept beside the outfile as `<outfile>.<node version>-<arch>.code-cache`: the launcher's cache
   * until a command has one of its own. Made with this Node.js; another version ignores it.
   */
  readonly warmUp?: WarmUp;
}

/** How the build runs a program once to make its code cache. */
export interface WarmUp {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly stdin?: string;
}

export interface BundleOptions {
  /** The plugin's entry module (TypeScript). */
  readonly entry: string;
  /** The executable to write (mode 755). */
  readonly outfile: string;
  /** Where the launcher keeps V8 code caches, and the environment variable that overrides it ("off": none). */
  readonly codeCache: { readonly dir: string; readonly env: string };
}

/** A CNI plugin's warm-up: VERSION, what every runtime asks first. */
const CNI_VERSION_WARM_UP: WarmUp = {
  env: { CNI_COMMAND: 'VERSION' },
  stdin: '{"cniVersion":"1.0.0"}',
};

/** Writes the executable single-file plugin and returns the size of the embedded plugin code in bytes. */
export async function bundleCniPlugin(options: BundleOptions): Promise<number> {
  return bundleProgram({
    ...options,
    codeCache: { ...options.codeCache, key: 'cni-command' },
    warmUp: CNI_VERSION_WARM_UP,
  });
}

/**
 * netcore's rtnetlink backend loads koffi (an FFI with a native binary per platform) with
 * `require` at run time, which no bundle can hold: a program that contains that loader gets koffi
 * beside it, where Node's resolution from the bundle file finds it (`node_modules/koffi` and this
 * platform's prebuilt binaries, `node_modules/@koromix/koffi-<platform>-<arch>`).
 */
const NATIVE_LOADER = /netcore\/src\/netlink\/native\/libc\.ts$/;
/** What koffi needs at run time: its loaders, not its C++ sources or documentation. */
const KOFFI_BUILD_ONLY = /(\.(cc|hh|h|c|cpp|md|txt)$)|(\/(vendor|doc|cnoke\.cjs)(\/|$))/;

async function copyKoffi(outdir: string): Promise<void> {
  // Resolved as netcore resolves it: its dependency, whatever the hoisting.
  const netcore = createRequire(import.meta.url).resolve('@fabrik/netcore/package.json');
  const koffi = dirname(createRequire(netcore).resolve('koffi'));
  const binaries = dirname(
    createRequire(join(koffi, 'index.cjs')).resolve(`@koromix/koffi-${process.platform}-${process.arch}`),
  );
  const modules = join(outdir, 'node_modules');
  await cp(koffi, join(modules, 'koffi'), {
    recursive: true,
    force: true,
    filter: (src) => !KOFFI_BUILD_ONLY.test(src.slice(koffi.length)),
  });
  await cp(binaries, join(modules, '@koromix', `koffi-${process.platform}-${process.arch}`), {
    recursive: true,
    force: true,
  });
}

/** Writes the executable single-file program (and its assets) and returns the size of the embedded code in bytes. */
export async function bundleProgram(options: ProgramBundleOptions): Promise<number> {
  const payload = await build({
    ...common,
    entryPoints: [options.entry],
    conditions: ['@fabrik/source'],
    write: false,
    outfile: 'payload.js',
    plugins: [zodNamespaceImports],
    metafile: true,
    define: { 'import.meta.url': IMPORT_META_URL },
    banner: { js: importMetaUrlBanner },
  });
  const code = payload.outputFiles[0]?.text ?? '';
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  await build({
    ...common,
    format: 'iife',
    entryPoints: [launcher],
    outfile: options.outfile,
    banner: { js: '#!/usr/bin/env node' },
    define: {
      __FABRIK_PLUGIN_PAYLOAD__: JSON.stringify(code),
      __FABRIK_PLUGIN_PAYLOAD_HASH__: JSON.stringify(hash),
      __FABRIK_CODE_CACHE_DIR__: JSON.stringify(options.codeCache.dir),
      __FABRIK_CODE_CACHE_ENV__: JSON.stringify(options.codeCache.env),
      __FABRIK_CODE_CACHE_KEY__: JSON.stringify(options.codeCache.key),
    },
  });
  await chmod(options.outfile, 0o755);
  for (const asset of options.assets ?? [])
    await cp(asset.from, join(dirname(options.outfile), asset.to), { recursive: true, force: true });
  if (Object.keys(payload.metafile.inputs).some((input) => NATIVE_LOADER.test(input)))
    await copyKoffi(dirname(options.outfile));
  if (options.warmUp) await writeBuildCodeCache(options.outfile, options.codeCache.env, options.warmUp);
  return code.length;
}

/**
 * Runs the built program once with an empty cache directory and keeps the cache that run wrote as
 * `<outfile>.<node version>-<arch>.code-cache` (mode 644, as the bundle; the launcher checks both
 * alike). The run must succeed: a program that cannot say its version is not a build.
 */
async function writeBuildCodeCache(outfile: string, cacheEnv: string, warmUp: WarmUp): Promise<void> {
  const target = `${outfile}.${process.version}-${process.arch}.code-cache`;
  await rm(target, { force: true });
  const scratch = await mkdtemp(join(tmpdir(), 'fabrik-code-cache-'));
  try {
    // Fails (CommandError, with the run's stderr) unless the run succeeds.
    await runCommand(process.execPath, [outfile, ...(warmUp.args ?? [])], {
      env: { ...process.env, ...warmUp.env, [cacheEnv]: scratch },
      input: warmUp.stdin ?? '',
    });
    const [cache, ...more] = await readdir(scratch);
    if (!cache || more.length > 0)
      throw new Error(
        `the warm-up run of ${outfile} left ${more.length + (cache ? 1 : 0)} code caches, not one`,
      );
    await copyFile(join(scratch, cache), target);
    await chmod(target, 0o644);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
