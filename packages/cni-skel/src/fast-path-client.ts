import { createConnection } from 'node:net';
import { CNI_NODE_SETTINGS_ENV, CNI_NODE_SETTINGS_PATH } from '@fabrik/api/cni-settings-file';
import { readConfigFile } from './config-file.js';
import {
  MAX_FAST_PATH_MESSAGE_BYTES,
  encodeFastPathMessage,
  parseFastPathResponse,
  type FastPathAnswer,
  type FastPathRequest,
} from './fast-path.js';

// The plugin side of the fast path. Kept free of zod and of @fabrik/api's schemas: a plugin process
// that hands its invocation to the agent should cost little more than Node's own start.

/** How a call to the agent ended, and so what the plugin process must do next. */
export type AgentCallOutcome =
  /** The agent ran the invocation: print its answer. */
  | { readonly kind: 'answered'; readonly answer: FastPathAnswer }
  /** Nothing reached an agent (no socket, connection refused): do the work in this process. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** The agent read the request and refused it before doing anything: do the work in this process. */
  | { readonly kind: 'refused'; readonly reason: string }
  /**
   * The request was sent, but no answer came back (the agent died, the connection broke): the agent
   * may have done part of it, so the plugin must not do it again; the runtime retries or deletes.
   */
  | { readonly kind: 'broken'; readonly reason: string };

/**
 * The agent's CNI socket as the node settings file names it (`agentHostSocket`), or undefined.
 * Only that one field is read, without the schema: whoever runs the invocation (the agent or this
 * process) validates the whole file, and reports a bad one the same way.
 */
export async function agentHostSocketOf(
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  try {
    const doc = await readConfigFile(env[CNI_NODE_SETTINGS_ENV] || CNI_NODE_SETTINGS_PATH);
    const socket = (doc as { agentHostSocket?: unknown } | undefined)?.agentHostSocket;
    return typeof socket === 'string' && socket.startsWith('/') ? socket : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends one invocation to the agent listening on `socketPath` and waits for its answer. Never
 * throws: every way the call can end is an {@link AgentCallOutcome}.
 */
export function callAgent(socketPath: string, request: FastPathRequest): Promise<AgentCallOutcome> {
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: AgentCallOutcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const socket = createConnection(socketPath, () => {
      connected = true;
      socket.write(encodeFastPathMessage(request));
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_FAST_PATH_MESSAGE_BYTES) {
        finish({ kind: 'broken', reason: `the answer is longer than ${MAX_FAST_PATH_MESSAGE_BYTES} bytes` });
        return;
      }
      chunks.push(chunk);
      if (!chunk.includes(0x0a)) return;
      const text = Buffer.concat(chunks).toString('utf8');
      const response = parseFastPathResponse(text.slice(0, text.indexOf('\n')));
      if (response === undefined) finish({ kind: 'broken', reason: 'the answer is not of this protocol' });
      else if (response.kind === 'refused') finish({ kind: 'refused', reason: response.reason });
      else finish({ kind: 'answered', answer: response });
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      finish(
        connected
          ? { kind: 'broken', reason: `the connection failed: ${e.message}` }
          : { kind: 'unavailable', reason: e.code ?? e.message },
      );
    });
    socket.on('close', () =>
      finish({ kind: 'broken', reason: 'the agent closed the connection without an answer' }),
    );
  });
}
