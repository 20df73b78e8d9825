import { spawn } from 'node:child_process';
import { FabrikError, errorGuard } from '../errors.js';

/** Options of {@link runCommand}. */
export interface RunOptions {
  /** Written to the child's standard input, which is then closed. */
  readonly input?: string;
  /** Kill the child (SIGKILL) after this many milliseconds. Default: 60 s. */
  readonly timeoutMs?: number;
  /** Environment of the child. Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory of the child. */
  readonly cwd?: string;
  /**
   * Run the child as the leader of a process group of its own, and kill the whole group (SIGKILL)
   * at the deadline and as soon as the child exits: nothing it started outlives it. For programs
   * fabrik does not control (a CNI plugin another party chose), whose children would otherwise keep
   * running, and keep its output open, after the child itself was killed.
   */
  readonly processGroup?: boolean;
}

/** What a finished command printed. */
export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** A command exited non-zero, was killed, or timed out. */
export class CommandError extends FabrikError<'COMMAND_FAILED'> {
  override readonly name = 'CommandError';
  constructor(
    readonly argv: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly stdout: string,
    readonly signal: NodeJS.Signals | null = null,
  ) {
    const why = signal ? `killed by ${signal}` : `exit code ${exitCode}`;
    super('COMMAND_FAILED', `${argv.join(' ')}: ${why}${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
  }
}

/** The program to run does not exist on this machine (ENOENT from spawn). */
export class CommandNotFoundError extends FabrikError<'COMMAND_NOT_FOUND'> {
  override readonly name = 'CommandNotFoundError';
  constructor(
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(
      'COMMAND_NOT_FOUND',
      `${file}: command not found (is the package that provides it installed?)`,
      options,
    );
  }
}

export const isCommandError = errorGuard(CommandError);
export const isCommandNotFoundError = errorGuard(CommandNotFoundError);

/**
 * Runs `file` with `args` without a shell (the only way fabrik starts processes) and resolves
 * with its output once it exits 0. Rejects with {@link CommandError} otherwise.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const argv = [file, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: options.processGroup === true,
    });
    // Once the child has exited and its group is killed, its pid may be reused: no second kill.
    let exited = false;
    const kill = () => {
      if (exited) return;
      if (options.processGroup !== true || child.pid === undefined) child.kill('SIGKILL');
      else killGroup(child.pid);
    };
    // Decoded as it arrives and joined as strings: one Buffer.concat + toString of a dump of
    // megabytes (`ip -j -d addr show` of 750 links) took 6x as long in the lab kernel, where a
    // fresh large allocation is expensive. setEncoding keeps a character split across chunks whole.
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(kill, options.timeoutMs ?? 60_000);
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(e.code === 'ENOENT' ? new CommandNotFoundError(file, { cause: e }) : e);
    });
    // The group's other members hold the child's output open: 'close' waits for them.
    if (options.processGroup === true)
      child.on('exit', () => {
        kill();
        exited = true;
      });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      if (exitCode === 0) resolve({ stdout, stderr });
      else reject(new CommandError(argv, exitCode, stderr, stdout, signal));
    });
    // EPIPE when the child exits before reading all of its input is reported through 'close'.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/**
 * SIGKILL to every process of the group `pgid`. The group's id stays reserved while any member
 * lives, so it cannot name someone else's group; ESRCH (none left) is the goal reached.
 */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}
