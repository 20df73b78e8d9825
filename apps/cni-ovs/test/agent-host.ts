// agent-host as a real process serving fabrik-ovs's CNI socket (the fast path), for the plugin's
// tests: started from its sources in this machine's namespace, with no bridges or intent of its
// own, on the OVSDB of the test.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCommand, type StartedCommand } from '@fabrik/netcore';

const REPO = new URL('../../../', import.meta.url).pathname;
const AGENT_HOST_CLI = join(REPO, 'apps', 'agent-host', 'src', 'cli.ts');

export interface AgentHostProcess {
  /** Its CNI socket (`cniSocket`), which the node settings name as `agentHostSocket`. */
  readonly socket: string;
  /** The OVSDB endpoint it holds its connection to. */
  readonly ovsdbSocket: string;
  /** Everything it logged (JSON lines, parsed). */
  readonly logs: ReadonlyArray<Record<string, unknown>>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<unknown>;
  /** False once the process has exited. */
  readonly running: boolean;
  /** Waits until a log line matches (lines from index `from` on). */
  waitForLog(
    what: string,
    predicate: (line: Record<string, unknown>) => boolean,
    from?: number,
  ): Promise<void>;
  /** SIGTERM, as a node's shutdown sends it: in-flight invocations are finished first. */
  stop(): Promise<void>;
  /** SIGKILL to the agent and every process it started (as when its container dies). */
  kill9(): Promise<void>;
}

/**
 * Starts agent-host with `cniSocket` in `dir` (config, state and socket live there) and waits until
 * it serves the socket.
 */
export async function startAgentHost(dir: string, ovsdbSocket: string): Promise<AgentHostProcess> {
  await mkdir(join(dir, 'state'), { recursive: true });
  const socket = join(dir, 'cni.sock');
  const configPath = join(dir, 'agent-host.yaml');
  await writeFile(
    configPath,
    stringify({
      nodeName: 'node-a',
      ovsdbSocket,
      datapathType: 'netdev',
      source: { kind: 'file', path: join(dir, 'intent.yaml') },
      stateDir: join(dir, 'state'),
      metricsAddress: '127.0.0.1:0',
      healthAddress: '127.0.0.1:0',
      cniSocket: socket,
    }),
  );
  const logs: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  const command: StartedCommand = startCommand(
    process.execPath,
    ['--conditions=@fabrik/source', '--import', 'tsx', AGENT_HOST_CLI, 'run', '--config', configPath],
    {
      cwd: REPO,
      env: { ...process.env, LOG_LEVEL: 'debug' },
      ownProcessGroup: true,
      onOutput: (text, stream) => {
        if (stream === 'stderr') {
          stderr += text;
          return;
        }
        const lines = (partial + text).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          try {
            logs.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            logs.push({ msg: line });
          }
        }
        for (const wake of waiters) wake();
      },
    },
  );
  let done = false;
  const exited = command.exited.finally(() => {
    done = true;
    for (const wake of waiters) wake();
  });
  const waitForLog: AgentHostProcess['waitForLog'] = (what, predicate, from = 0) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (logs.slice(from).some(predicate)) {
          waiters.delete(check);
          resolve();
        } else if (done) {
          waiters.delete(check);
          reject(new Error(`agent-host exited before ${what}; stderr: ${stderr.slice(-2000)}`));
        }
      };
      waiters.add(check);
      check();
    });
  await waitForLog('serving its CNI socket', (l) => l['msg'] === 'cni: serving the fast path');
  return {
    socket,
    ovsdbSocket,
    logs,
    exited,
    get running() {
      return !done;
    },
    waitForLog,
    async stop() {
      command.kill('SIGTERM');
      await exited;
    },
    async kill9() {
      command.kill('SIGKILL');
      await exited;
    },
  };
}
