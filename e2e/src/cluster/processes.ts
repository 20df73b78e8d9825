import { startCommand, type StartedCommand } from '@fabrik/netcore';

// Per-node process supervision, as the kubelet does for a DaemonSet's containers: a process that
// exits (crash, kill -9) is started again after a short, growing delay, until it is stopped. Its
// JSON log lines (pino) are kept for the report and for waits.

/** One line of a supervised process's standard output: JSON when it is (pino), else the text. */
export interface LogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly [key: string]: unknown;
}

export interface SupervisedOptions {
  /** Shown in the report and in errors: `agent-host a`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Run inside this network namespace (`ip netns exec`), as a container of the node would. */
  readonly netns?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Lines kept (the newest). Default 2000. */
  readonly keepLines?: number;
}

export interface Supervised {
  readonly name: string;
  /** pid of the current process (of `ip netns exec`, which execs the command: the same process). */
  readonly pid: number | undefined;
  /** How many times it was started (1 after the first start). */
  readonly starts: number;
  readonly logs: readonly LogLine[];
  /** Standard error of every run (the last 64 KiB). */
  readonly stderr: string;
  /** Index of the next log line: pass it as `from` to wait only for what comes later. */
  mark(): number;
  /** Resolves with the first log line at or after `from` that matches. */
  waitForLog(
    what: string,
    match: (l: LogLine) => boolean,
    options?: { from?: number; timeoutMs?: number },
  ): Promise<LogLine>;
  /** SIGKILL to it and its children now; the supervisor starts it again. Resolves once the new process runs. */
  kill9(): Promise<void>;
  /** SIGTERM (then SIGKILL after `graceMs`) and no restart. */
  stop(graceMs?: number): Promise<void>;
}

// A process that keeps crashing waits longer each time; one that ran for a while starts over at
// the shortest delay (the kubelet's CrashLoopBackOff, scaled down to a lab run).
const RESTART_DELAYS_MS = [100, 200, 400, 800, 1600];
const STABLE_RUN_MS = 5000;

export function supervise(options: SupervisedOptions): Supervised {
  const keep = options.keepLines ?? 2000;
  const logs: LogLine[] = [];
  let dropped = 0;
  let stderr = '';
  let current: StartedCommand | undefined;
  let starts = 0;
  let crashes = 0;
  let stopped = false;
  const waiters = new Set<() => void>();
  const started = new Set<() => void>();

  const [file, args] =
    options.netns === undefined
      ? [options.command, options.args]
      : ['ip', ['netns', 'exec', options.netns, options.command, ...options.args]];

  const onLine = (line: string) => {
    let parsed: LogLine;
    try {
      const value: unknown = JSON.parse(line);
      parsed = typeof value === 'object' && value !== null ? (value as LogLine) : { msg: line };
    } catch {
      parsed = { msg: line };
    }
    logs.push(parsed);
    if (logs.length > keep) {
      logs.shift();
      dropped++;
    }
    for (const w of waiters) w();
  };

  const run = () => {
    starts++;
    const startedAt = Date.now();
    let partial = '';
    const cmd = startCommand(file, args, {
      // A container: kill -9 takes the agent's children (frr-reload.py, ip monitor) along.
      ownProcessGroup: true,
      env: { ...process.env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      onOutput: (text, stream) => {
        if (stream === 'stderr') {
          stderr = (stderr + text).slice(-65536);
          return;
        }
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const l of lines) if (l.trim()) onLine(l);
      },
    });
    current = cmd;
    for (const s of started) s();
    void cmd.exited
      .catch(() => ({ exitCode: -1, signal: null }))
      .then((exit) => {
        if (current !== cmd) return;
        current = undefined;
        if (stopped) return;
        onLine(JSON.stringify({ msg: `supervisor: ${options.name} exited`, exit }));
        if (Date.now() - startedAt > STABLE_RUN_MS) crashes = 0;
        const delay = RESTART_DELAYS_MS[Math.min(crashes++, RESTART_DELAYS_MS.length - 1)]!;
        setTimeout(() => {
          if (!stopped) run();
        }, delay);
      });
  };
  run();

  const waitForLog: Supervised['waitForLog'] = (what, match, opts = {}) => {
    const timeoutMs = opts.timeoutMs ?? 30_000;
    let next = opts.from ?? 0;
    return new Promise((resolve, reject) => {
      const check = () => {
        for (; next < dropped + logs.length; next++) {
          const line = logs[next - dropped];
          if (line && match(line)) {
            done();
            resolve(line);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${options.name}: timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      next = Math.max(next, dropped);
      check();
    });
  };

  return {
    name: options.name,
    get pid() {
      return current?.pid;
    },
    get starts() {
      return starts;
    },
    get logs() {
      return logs;
    },
    get stderr() {
      return stderr;
    },
    mark: () => dropped + logs.length,
    waitForLog,
    async kill9() {
      const victim = current;
      if (!victim) throw new Error(`${options.name} is not running`);
      const restarted = new Promise<void>((resolve) => {
        const s = () => {
          started.delete(s);
          resolve();
        };
        started.add(s);
      });
      victim.kill('SIGKILL');
      await victim.exited.catch(() => undefined);
      await restarted;
    },
    async stop(graceMs = 5000) {
      stopped = true;
      const cmd = current;
      if (!cmd) return;
      // SIGTERM to the agent alone, as a container runtime signals PID 1; SIGKILL to them all.
      try {
        if (cmd.pid !== undefined) process.kill(cmd.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => cmd.kill('SIGKILL'), graceMs);
      await cmd.exited.catch(() => undefined);
      clearTimeout(timer);
    },
  };
}
