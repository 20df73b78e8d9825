// Runs agent-host as a real process inside a throwaway "node" namespace with a private Open vSwitch
// (userspace datapath), as the host tests need it: config file, intent file, logs, kill -9.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writeIntentFile, type IntentObject } from '@fabrik/agent-runtime';
import { runCommand } from '@fabrik/netcore';
import {
  createTempNetns,
  sourceCommand,
  startAgentProcess,
  startOvs,
  until,
  type AgentProcess,
  type OvsInstance,
  type TempNetns,
} from '@fabrik/testkit';

const REPO = new URL('../../../', import.meta.url).pathname;
const CLI = new URL('../src/cli.ts', import.meta.url).pathname;
export const NODE_NAME = 'node-a';
export const API_VERSION = 'network.fabrik.dev/v1alpha1';

export const layer2 = (name: string, spec: Record<string, unknown>): IntentObject => ({
  apiVersion: API_VERSION,
  kind: 'Layer2Network',
  metadata: { name },
  spec,
});
export const nodeDoc = (labels: Record<string, string>): IntentObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: NODE_NAME, labels },
});

export interface HostSandbox {
  readonly node: TempNetns;
  /** The private Open vSwitch (throws when the sandbox was created without one). */
  readonly ovs: OvsInstance;
  readonly dir: string;
  readonly stateDir: string;
  readonly intentFile: string;
  readonly configPath: string;
  writeConfig(config: Record<string, unknown>): Promise<void>;
  writeIntent(objects: readonly IntentObject[]): Promise<void>;
  /** Starts `run`; `rootNetns`: in this machine's namespace (to reach a test API server on 127.0.0.1). */
  start(env?: Record<string, string>, options?: { rootNetns?: boolean }): Promise<AgentProcess>;
  /** `fabrik-agent-host <command> --config <configPath>` to completion; `code` is the exit code or the signal's name. */
  cli(
    command: string,
    env?: Record<string, string>,
  ): Promise<{ code: number | string; stdout: string; stderr: string }>;
  vsctl(...args: string[]): Promise<string>;
  /** SIGTERM to every agent still running (a failed test may leave one behind). */
  stopAgents(): Promise<void>;
  destroy(): Promise<void>;
}

export async function createHostSandbox(
  prefix = 'fah-',
  options: { readonly withOvs?: boolean } = {},
): Promise<HostSandbox> {
  const node = await createTempNetns(prefix);
  const ovsInstance = options.withOvs === false ? undefined : await startOvs({ netns: node.name });
  // Without Open vSwitch the agent is pointed at a socket nobody listens on.
  const ovsEndpoint = ovsInstance?.endpoint ?? 'unix:/nonexistent/fabrik-test/db.sock';
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-agent-host-'));
  const stateDir = join(dir, 'state');
  await mkdir(stateDir);
  const intentFile = join(dir, 'intent.yaml');
  const configPath = join(dir, 'agent-host.yaml');
  const agents: AgentProcess[] = [];
  const nodeArgs = (args: string[]) => ['netns', 'exec', node.name, ...sourceCommand(CLI, ...args)];

  const start = async (
    env: Record<string, string> = {},
    options: { rootNetns?: boolean } = {},
  ): Promise<AgentProcess> => {
    const run = ['run', '--config', configPath];
    const agent = startAgentProcess({
      command: options.rootNetns ? sourceCommand(CLI, ...run) : ['ip', ...nodeArgs(run)],
      cwd: REPO,
      env: { LOG_LEVEL: 'debug', ...env },
    });
    agents.push(agent);
    return agent;
  };

  return {
    node,
    get ovs(): OvsInstance {
      if (!ovsInstance) throw new Error('this sandbox has no Open vSwitch');
      return ovsInstance;
    },
    dir,
    stateDir,
    intentFile,
    configPath,
    writeConfig: (config) =>
      writeFile(
        configPath,
        stringify({
          nodeName: NODE_NAME,
          ovsdbSocket: ovsEndpoint,
          datapathType: 'netdev',
          source: { kind: 'file', path: intentFile },
          stateDir,
          metricsAddress: '127.0.0.1:0',
          healthAddress: '127.0.0.1:0',
          ...config,
        }),
      ),
    writeIntent: (objects) => writeIntentFile(intentFile, objects),
    start,
    async cli(command, env = {}) {
      try {
        const r = await runCommand('ip', nodeArgs([command, '--config', configPath]), {
          cwd: REPO,
          timeoutMs: 120_000,
          env: { ...process.env, ...env },
        });
        return { code: 0, stdout: r.stdout, stderr: r.stderr };
      } catch (e) {
        const err = e as {
          exitCode?: number | null;
          signal?: string | null;
          stdout?: string;
          stderr?: string;
        };
        const code = typeof err.exitCode === 'number' ? err.exitCode : err.signal;
        if (code === undefined || code === null) throw e;
        return { code, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
      }
    },
    vsctl: (...args) => {
      if (!ovsInstance) throw new Error('this sandbox has no Open vSwitch');
      return ovsInstance.vsctl('--no-wait', ...args);
    },
    async stopAgents() {
      for (const a of agents) await a.stop();
    },
    async destroy() {
      for (const a of agents) await a.kill();
      await ovsInstance?.stop();
      await node.destroy();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The JSON of `ip -j ARGS` inside the namespace. */
export async function ipJson<T = Record<string, unknown>[]>(ns: TempNetns, ...args: string[]): Promise<T> {
  return JSON.parse(await ns.ip('-j', ...args)) as T;
}

export const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8'));

/** Kills ovs-vswitchd (SIGKILL: no cleanup) and starts it again on the same database. */
export async function restartVswitchd(sb: HostSandbox): Promise<void> {
  const pidfile = join(sb.ovs.dir, 'vs.pid');
  const pid = Number((await readFile(pidfile, 'utf8')).trim());
  process.kill(pid, 'SIGKILL');
  await until('ovs-vswitchd to exit', async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
  await runCommand('ip', [
    'netns',
    'exec',
    sb.node.name,
    'ovs-vswitchd',
    sb.ovs.endpoint,
    `--unixctl=${join(sb.ovs.dir, 'vs.ctl')}`,
    `--pidfile=${pidfile}`,
    `--log-file=${join(sb.ovs.dir, 'vs.log')}`,
    '--detach',
  ]);
}
