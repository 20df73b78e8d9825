// agent-host as a real process serving fabrik-ovs's CNI socket (the fast path), for the plugin's
// tests: started from its sources in this machine's namespace, with no bridges or intent of its
// own, on the OVSDB of the test.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { sourceCommand, startAgentProcess, type AgentProcess } from '@fabrik/testkit';

const REPO = new URL('../../../', import.meta.url).pathname;
const AGENT_HOST_CLI = join(REPO, 'apps', 'agent-host', 'src', 'cli.ts');

/**
 * The agent process (`stop()` is SIGTERM, as a node's shutdown sends it: in-flight invocations are
 * finished first; `kill()` is SIGKILL to it and every process it started, as when its container
 * dies), with the socket it serves.
 */
export interface AgentHostProcess extends AgentProcess {
  /** Its CNI socket (`cniSocket`), which the node settings name as `agentHostSocket`. */
  readonly socket: string;
  /** The OVSDB endpoint it holds its connection to. */
  readonly ovsdbSocket: string;
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
  const agent = startAgentProcess({
    command: sourceCommand(AGENT_HOST_CLI, 'run', '--config', configPath),
    cwd: REPO,
    env: { LOG_LEVEL: 'debug' },
  });
  await agent.waitForLog((l) => l.msg === 'cni: serving the fast path', {
    what: 'serving its CNI socket',
  });
  return { ...agent, socket, ovsdbSocket };
}
