import { spawn } from 'node:child_process';
import { CommandNotFoundError } from './run.js';

/** How a streaming command ended. */
export interface StreamExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last 4 KiB of standard error. */
  readonly stderr: string;
}

/** A long-running command whose standard output is read line by line. */
export interface LineStream {
  /** Resolves when the command has exited (stopped or by itself); rejects with CommandNotFoundError when it cannot start. */
  readonly exited: Promise<StreamExit>;
  /** Stops the command (SIGTERM, SIGKILL after 2 s) and resolves once it has exited; safe to call twice. */
  stop(): Promise<void>;
}

const STDERR_KEPT = 4096;

/**
 * Starts `file` with `args` without a shell and calls `onLine` with every line it prints on
 * standard output (without the newline), until it exits or is stopped. For monitors that run as
 * long as the caller does (`ip monitor`).
 */
export function streamLines(
  file: string,
  args: readonly string[],
  onLine: (line: string) => void,
  options: { readonly env?: NodeJS.ProcessEnv } = {},
): LineStream {
  const child = spawn(file, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let partial = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  const exited = new Promise<StreamExit>((resolve, reject) => {
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new CommandNotFoundError(file, { cause: e }) : e),
    );
    child.on('close', (exitCode, signal) => {
      if (partial) onLine(partial);
      resolve({ exitCode, signal, stderr });
    });
  });
  exited.catch(() => {}); // the caller may only ever call stop()
  let stopping: Promise<void> | undefined;
  return {
    exited,
    stop() {
      return (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
          await exited.catch(() => {});
          return;
        }
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
        await exited.catch(() => {});
        clearTimeout(killer);
      })());
    },
  };
}
