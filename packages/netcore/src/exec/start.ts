import { spawn } from 'node:child_process';
import { CommandNotFoundError } from './run.js';

/** Options of {@link startCommand}. */
export interface StartOptions {
  /** Environment of the child. Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Working directory of the child. */
  readonly cwd?: string;
  /** Run the child in a process group of its own: `kill` then signals the whole group. */
  readonly ownProcessGroup?: boolean;
  /** Receives the child's output as it comes (standard input is closed). */
  readonly onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

/** How a started command ended. */
export interface CommandExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A command that runs while the caller does other things. */
export interface StartedCommand {
  readonly pid: number | undefined;
  /** Resolves when it has exited; rejects with CommandNotFoundError when it could not start. */
  readonly exited: Promise<CommandExit>;
  /** Sends `signal` (default SIGTERM) to it, or to its process group; a no-op once it is gone. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts `file` with `args` without a shell and returns at once: for long-running children
 * whose output is consumed as it comes (the lab's kernel). Use {@link runCommand} for commands
 * whose result is wanted.
 */
export function startCommand(
  file: string,
  args: readonly string[],
  options: StartOptions = {},
): StartedCommand {
  const child = spawn(file, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    detached: options.ownProcessGroup ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onOutput = options.onOutput;
  child.stdout.on('data', (b: Buffer) => onOutput?.(b.toString('utf8'), 'stdout'));
  child.stderr.on('data', (b: Buffer) => onOutput?.(b.toString('utf8'), 'stderr'));
  const exited = new Promise<CommandExit>((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new CommandNotFoundError(file, { cause: e }) : e),
    );
    child.once('close', (exitCode, signal) => resolve({ exitCode, signal }));
  });
  return {
    pid: child.pid,
    exited,
    kill(signal = 'SIGTERM') {
      try {
        if (options.ownProcessGroup && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // already gone
      }
    },
  };
}
