import { runPlugin, type PluginFuncs } from './run-plugin.js';

export { SPEC_VERSIONS } from './versions.js';

// The process around a plugin: what the entry module of a bundled plugin binary calls. It is also
// the package's `@fabrik/cni-skel/main` entry, which loads only the skeleton: a plugin that imports
// this (and its verbs lazily) answers VERSION, called before every ADD and DEL, without evaluating
// @fabrik/api's schemas or zod.

export interface CniMainOptions {
  /** The binary's name: messages, and the default name `install` copies it to. */
  readonly name: string;
  /** The plugin's verbs, given the process environment. */
  readonly plugin: (env: Readonly<Record<string, string | undefined>>) => PluginFuncs;
  /** Spec versions the plugin speaks (default: all of SPEC_VERSIONS). */
  readonly versions?: readonly string[];
  /** The plugin's release, printed by `install-node --version`. */
  readonly version?: string;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs the process as a CNI plugin (environment and config in, result or error JSON out, exit
 * status 0 or 1), as `<name> install [--dir DIR] [--name NAME]`, or as `<name> install-node ...`
 * (the node installer, install-node.ts), and exits.
 */
export function runCniMain(options: CniMainOptions): void {
  const main = async (): Promise<number> => {
    const [sub, ...rest] = process.argv.slice(2);
    if (sub === 'install')
      return (await import('./install.js')).runInstall(options.name, rest, process.argv[1] ?? '');
    if (sub === 'install-node')
      return (await import('./install-node.js')).runInstallNode(
        options.name,
        rest,
        process.argv[1] ?? '',
        options.version ?? 'dev',
      );
    let out = '';
    const code = await runPlugin(
      options.plugin(process.env),
      options.versions ? { versions: options.versions } : {},
      { env: process.env, stdin: await readStdin(), stdout: (t) => (out += t) },
    );
    // Exit only once the whole result is written: stdout may be a pipe.
    await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
    return code;
  };
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${options.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
