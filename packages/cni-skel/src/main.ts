import { CniError, CniErrorCode } from './errors.js';
import { FAST_PATH_PROTOCOL_VERSION } from './fast-path.js';
import { agentTimeoutMs, callAgent, fastPathEnv } from './fast-path-client.js';
import { invocationErrorJson, runPlugin, type PluginFuncs } from './run-plugin.js';

export { SPEC_VERSIONS } from './versions.js';
export { agentHostSocketOf } from './fast-path-client.js';

// The process around a plugin: what the entry module of a bundled plugin binary calls. It is also
// the package's `@fabrik/cni-skel/main` entry, which loads only the skeleton and the fast path's
// client: a plugin that imports this (and its verbs lazily) answers VERSION, and hands a verb to
// the agent, without evaluating @fabrik/api's schemas or zod.

export interface CniMainOptions {
  /** The binary's name: messages, and the default name `install` copies it to. */
  readonly name: string;
  /** The plugin's verbs, given the process environment. */
  readonly plugin: (env: Readonly<Record<string, string | undefined>>) => PluginFuncs;
  /** Spec versions the plugin speaks (default: all of SPEC_VERSIONS). */
  readonly versions?: readonly string[];
  /** The plugin's release, printed by `install-node --version`. */
  readonly version?: string;
  /**
   * The fast path: the Unix socket of an agent that runs this plugin's verbs for it (see
   * fast-path.ts), found from the environment; undefined: this process does the work.
   */
  readonly agentSocket?: (env: Readonly<Record<string, string | undefined>>) => Promise<string | undefined>;
}

/** Set to `debug` in the plugin's environment to hear on stderr why it did the work itself. */
export const CNI_LOG_LEVEL_ENV = 'FABRIK_CNI_LOG_LEVEL';

/** The verbs an agent runs; VERSION is always answered here. */
const AGENT_COMMANDS = new Set(['ADD', 'DEL', 'CHECK', 'GC', 'STATUS']);

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface ProcessOutput {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Hands the invocation to the agent when there is one: its answer, or a code 11 error when the
 * agent took the request and then failed to answer (it may have done part of it: doing it again
 * here could collide with that, so the runtime is told to retry, or to delete after a failed ADD).
 * Undefined: this process does the work (no agent, or it refused the request untouched).
 */
async function handToAgent(options: CniMainOptions, stdin: string): Promise<ProcessOutput | undefined> {
  const command = process.env['CNI_COMMAND'] ?? '';
  if (!options.agentSocket || !AGENT_COMMANDS.has(command)) return undefined;
  const socket = await options.agentSocket(process.env);
  if (socket === undefined) return undefined;
  const outcome = await callAgent(
    socket,
    { version: FAST_PATH_PROTOCOL_VERSION, env: fastPathEnv(process.env), stdin },
    { deadlineMs: agentTimeoutMs(process.env) },
  );
  switch (outcome.kind) {
    case 'answered':
      return outcome.answer;
    case 'broken': {
      const error = new CniError(
        CniErrorCode.tryAgainLater,
        `the host agent's CNI socket ${socket} took the ${command} but gave no answer (${outcome.reason}): try again`,
      );
      return { exitCode: 1, stdout: invocationErrorJson(stdin, options, error), stderr: '' };
    }
    case 'unavailable':
    case 'refused':
      if (process.env[CNI_LOG_LEVEL_ENV] === 'debug')
        process.stderr.write(
          `${options.name}: ${command} done by this process: the host agent's CNI socket ${socket}: ${outcome.kind}: ${outcome.reason}\n`,
        );
      return undefined;
  }
}

/**
 * Runs the process as a CNI plugin (environment and config in, result or error JSON out, exit
 * status 0 or 1), as `<name> install [--dir DIR] [--name NAME]`, or as `<name> install-node ...`
 * (the node installer, install-node.ts), and exits. With `agentSocket`, the verbs are handed to
 * the agent whenever it answers (see {@link handToAgent}).
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
    const stdin = await readStdin();
    const runHere = async (): Promise<ProcessOutput> => {
      let stdout = '';
      const exitCode = await runPlugin(
        options.plugin(process.env),
        options.versions ? { versions: options.versions } : {},
        { env: process.env, stdin, stdout: (t) => (stdout += t) },
      );
      return { exitCode, stdout, stderr: '' };
    };
    const out = (await handToAgent(options, stdin)) ?? (await runHere());
    if (out.stderr) process.stderr.write(out.stderr);
    // Exit only once the whole result is written: stdout may be a pipe.
    await new Promise<void>((resolve) => process.stdout.write(out.stdout, () => resolve()));
    return out.exitCode;
  };
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`${options.name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
