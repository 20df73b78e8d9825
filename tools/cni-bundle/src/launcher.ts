// The first code of a bundled program (a CNI plugin, an agent). It compiles the program (embedded as
// a string at build time) with a V8 code cache, so that the per-start cost of parsing and compiling
// its code mostly disappears: a CNI plugin is a new process for every ADD and DEL, and an agent's
// verbs (plan, cleanup) are short processes too. Each CNI_COMMAND (plugin) or verb (agent) gets its
// own cache (written at exit by the first successful run of a build, keyed by the build's hash,
// the Node version and the architecture), because each compiles different functions.
//
// Before a command has a cache of its own, the launcher uses the one the build made beside the
// bundle (`<bundle>.<node version>-<arch>.code-cache`, from a warm-up run: bundle.ts), as Node's
// single executable applications embed a build-time code cache: a fresh node's first starts are
// the slow ones otherwise. `FABRIK_CODE_CACHE_LOG=1` says on stderr which cache a start used.
//
// V8 checks that a cache matches the source and its flags but does not defend against a forged
// one, so a cache is used only from a directory and a file that belong to this user and that nobody
// else can write (by default under /var/lib/cni, root's). Any problem: compile without a cache.
//
// A plugin file has no extension, so Node decides between CommonJS and ESM by the nearest
// package.json (CommonJS in a CNI bin directory, ESM in this package's dist/): the launcher therefore
// uses neither `require` nor `import` but process.getBuiltinModule (Node >= 20.16), and hands the
// program (CommonJS) a require of its own. Its file is `__filename` when Node loaded it as CommonJS
// (an agent's bundle is `.cjs`, required by its bin), else the script Node was asked to run.
import type * as Fs from 'node:fs';
import type * as Module from 'node:module';
import type * as Path from 'node:path';
import type * as Vm from 'node:vm';

// Replaced at build time (esbuild `define`, see bundle.ts).
declare const __FABRIK_PLUGIN_PAYLOAD__: string;
declare const __FABRIK_PLUGIN_PAYLOAD_HASH__: string;
/** Where compiled-code caches live by default. */
declare const __FABRIK_CODE_CACHE_DIR__: string;
/** The environment variable that overrides it ("off" disables the cache). */
declare const __FABRIK_CODE_CACHE_ENV__: string;
/** What selects the cache: `cni-command` (CNI_COMMAND) or `verb` (the first argument). */
declare const __FABRIK_CODE_CACHE_KEY__: 'cni-command' | 'verb';

const builtin = (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule;
const { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync, realpathSync } = builtin(
  'node:fs',
) as typeof Fs;
const { dirname, join } = builtin('node:path') as typeof Path;
const { Script } = builtin('node:vm') as typeof Vm;
const { createRequire } = builtin('node:module') as typeof Module;

const trusted = (st: Fs.Stats, kind: 'dir' | 'file'): boolean =>
  (kind === 'dir' ? st.isDirectory() : st.isFile()) &&
  st.uid === process.geteuid?.() &&
  (st.mode & 0o022) === 0;

function readCache(dir: string, file: string): Buffer | undefined {
  try {
    if (!trusted(lstatSync(dir), 'dir') || !trusted(lstatSync(file), 'file')) return undefined;
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trusted(lstatSync(dir), 'dir')) return;
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    /* read-only or foreign directory: run without a cache */
  }
}

const dir = process.env[__FABRIK_CODE_CACHE_ENV__] ?? __FABRIK_CODE_CACHE_DIR__;
const selector = (__FABRIK_CODE_CACHE_KEY__ === 'verb' ? process.argv[2] : process.env['CNI_COMMAND']) ?? '';
// Part of a file name: anything but a plain word shares the cache `OTHER`.
const command = /^[A-Za-z]{1,16}$/.test(selector) ? selector : 'OTHER';
const file = join(dir, `${__FABRIK_PLUGIN_PAYLOAD_HASH__}-${process.version}-${process.arch}-${command}.bin`);
const useCache = dir !== 'off';
const filename = typeof __filename === 'string' ? __filename : realpathSync(process.argv[1] ?? '.');
// Until this command has a cache of its own, the one the build made beside the bundle (a warm-up
// run, see bundle.ts), as trusted as the bundle: owned by this user, writable by nobody else.
const ownCache = useCache ? readCache(dir, file) : undefined;
const cachedData =
  ownCache ??
  (useCache
    ? readCache(dirname(filename), `${filename}.${process.version}-${process.arch}.code-cache`)
    : undefined);
const source = `(function (exports, require, module, __filename, __dirname) {${__FABRIK_PLUGIN_PAYLOAD__}\n})`;
const script = new Script(source, { filename, ...(cachedData ? { cachedData } : {}) });
if (process.env['FABRIK_CODE_CACHE_LOG'] === '1')
  process.stderr.write(
    `code cache: ${!cachedData ? 'none' : `${ownCache ? 'own' : 'build'} ${script.cachedDataRejected ? 'rejected' : 'accepted'}`}\n`,
  );
if (useCache && (!ownCache || script.cachedDataRejected)) {
  // At exit the cache also holds every function this command compiled lazily; only a successful
  // run has compiled the whole path of its command.
  process.once('exit', (code) => code === 0 && writeCache(dir, file, script.createCachedData()));
}
const mod = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)(
  mod.exports,
  createRequire(filename),
  mod,
  filename,
  dirname(filename),
);
