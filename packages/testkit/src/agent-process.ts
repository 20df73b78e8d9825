import { spawn } from 'node:child_process';

// A fabrik agent (agent-netns, agent-host) run as a real process, as its container would run it:
// its JSON log lines collected, its health endpoints probed, stopped with SIGTERM or killed with
// SIGKILL (the whole process group, as a container runtime kills a container: frr-reload.py and
// other children die with it).

/** One pino log line. */
export type LogLine = Record<string, unknown> & { readonly msg?: string };

export interface AgentProcess {
  readonly pid: number;
  /** Every JSON line the agent printed so far, in order. */
  readonly logs: readonly LogLine[];
  /** What it printed on standard error (should stay empty). */
  stderr(): string;
  /** False once the process has exited. */
  running(): boolean;
  /**
   * Resolves with the first log line (from index `from` of `logs` on) that satisfies `pred`;
   * rejects when the agent exits first or after `timeoutMs` (default 60 s), naming `what` (the
   * awaited event, e.g. `the reconnect`) with the last log lines and standard error.
   */
  waitForLog(
    pred: (line: LogLine) => boolean,
    options?: { timeoutMs?: number; from?: number; what?: string },
  ): Promise<LogLine>;
  /**
   * `GET http://<healthAddress><path>`: status code, or 0 when nothing answers. Throws when the
   * agent was started without `healthAddress`.
   */
  probe(path: '/healthz' | '/readyz' | '/metrics'): Promise<{ status: number; body: string }>;
  /** Resolves once /readyz answers 200. */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** SIGTERM; resolves with the exit code (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL to the whole process group; resolves once the agent is gone. */
  kill(): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartAgentProcessOptions {
  /** argv: `[process.execPath, 'apps/agent-netns/bin/fabrik-agent-netns.mjs', 'run', '--config', FILE]`, or a {@link sourceCommand}. */
  readonly command: readonly [string, ...string[]];
  /**
   * Where the agent serves /healthz and /readyz (its healthAddress), and /metrics; needed by
   * `probe` and `waitUntilReady` only (an agent on port 0 says its addresses in a log line).
   */
  readonly healthAddress?: string;
  readonly metricsAddress?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/**
 * The command that runs a TypeScript entry point of the workspace from its sources, as the tests
 * run the agents: `node --conditions=@fabrik/source --import tsx ENTRY ARGS...`.
 */
export function sourceCommand(entry: string, ...args: string[]): [string, ...string[]] {
  return [process.execPath, '--conditions=@fabrik/source', '--import', 'tsx', entry, ...args];
}

export function startAgentProcess(options: StartAgentProcessOptions): AgentProcess {
  const [file, ...args] = options.command;
  const child = spawn(file, args, {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: kill() takes its children along
  });
  const logs: LogLine[] = [];
  let stderr = '';
  let partial = '';
  // waitForLog's pending waits, woken by every new line and by the exit.
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line, unparsed: true });
      }
    }
    wake();
  });
  // The last lines can come after the exit: a wait gives up only once the output has ended too.
  let outputEnded = false;
  child.stdout.on('end', () => {
    outputEnded = true;
    wake();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      wake();
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const addressOf = (path: string) => {
    if (path === '/metrics' && options.metricsAddress) return options.metricsAddress;
    if (options.healthAddress) return options.healthAddress;
    throw new Error(`startAgentProcess: no healthAddress given, cannot probe ${path}`);
  };

  const agent: AgentProcess = {
    pid: child.pid ?? -1,
    logs,
    stderr: () => stderr,
    running,
    waitForLog: (pred, { timeoutMs = 60_000, from = 0, what = 'the awaited log line' } = {}) =>
      new Promise<LogLine>((resolve, reject) => {
        const tail = () =>
          `last log lines: ${JSON.stringify(logs.slice(-5))}; stderr: ${stderr.slice(-2000)}`;
        const check = () => {
          const hit = logs.slice(from).find(pred);
          if (hit) {
            done();
            resolve(hit);
          } else if (!running() && outputEnded) {
            done();
            reject(new Error(`agent exited before ${what}; ${tail()}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${tail()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    async probe(path) {
      const url = `http://${addressOf(path)}${path}`;
      try {
        const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
        return { status: r.status, body: await r.text() };
      } catch {
        return { status: 0, body: '' };
      }
    },
    async waitUntilReady(timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const r = await agent.probe('/readyz');
        if (r.status === 200) return;
        if (!running()) throw new Error(`agent exited before it was ready; stderr: ${stderr}`);
        if (Date.now() > until) throw new Error(`agent not ready within ${timeoutMs} ms: ${r.body.trim()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(graceMs = 30_000) {
      if (running()) child.kill('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      const { code } = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill() {
      signalGroup('SIGKILL');
      await exited;
    },
    exited,
  };
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      /* already gone */
    }
  };
  return agent;
}
