import { createConnection } from 'node:net';
import { CNI_NODE_SETTINGS_ENV, CNI_NODE_SETTINGS_PATH } from '@fabrik/api/cni-settings-file';
import { parseConfigText, readConfigText } from './config-file.js';
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
    const text = await readConfigText(env[CNI_NODE_SETTINGS_ENV] || CNI_NODE_SETTINGS_PATH);
    if (text === undefined || !text.includes(SOCKET_FIELD)) return undefined;
    const socket =
      plainSocketLine(text) ??
      ((await parseConfigText(text)) as { agentHostSocket?: unknown } | undefined)?.agentHostSocket;
    return typeof socket === 'string' && socket.startsWith('/') ? socket : undefined;
  } catch {
    return undefined;
  }
}

const SOCKET_FIELD = 'agentHostSocket';
/** `agentHostSocket: /a/path` on a line of its own at column 0: a key of the top-level mapping. */
const PLAIN_SOCKET_LINE = /^agentHostSocket:[ \t]+(\/[A-Za-z0-9._/-]+)[ \t]*\r?$/m;

/**
 * The socket of a YAML settings file whose only mention of the field is a plain top-level line,
 * as the installer writes it: read without loading the YAML parser (about a fifth of a thin
 * client's CPU). Anything else (quotes, a comment, flow style, the name twice) is undefined, and
 * the file is parsed in full.
 */
function plainSocketLine(text: string): string | undefined {
  if (text.indexOf(SOCKET_FIELD) !== text.lastIndexOf(SOCKET_FIELD)) return undefined;
  return PLAIN_SOCKET_LINE.exec(text)?.[1];
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
