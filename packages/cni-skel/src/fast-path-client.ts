import { lstat } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { dirname } from 'node:path';
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
  /**
   * Nothing reached an agent (no socket, connection refused, a socket that is not provably the
   * agent's): do the work in this process.
   */
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
 * How long the plugin waits for the agent's answer unless the environment variable
 * {@link AGENT_TIMEOUT_ENV} says otherwise: below the two minutes a kubelet gives the runtime for a
 * Pod sandbox, so that a stopped or stuck agent becomes code 11 (try again later) the runtime sees,
 * and above what one ADD may take (a delegated IPAM plugin's 60 s, OVS's ofport wait).
 */
export const DEFAULT_AGENT_TIMEOUT_MS = 90_000;
/** The plugin process's variable that sets the fast path's deadline in milliseconds (100..600000). */
export const AGENT_TIMEOUT_ENV = 'FABRIK_CNI_AGENT_TIMEOUT_MS';

/** The deadline of a call to the agent, from the plugin process's environment. */
export function agentTimeoutMs(env: Readonly<Record<string, string | undefined>>): number {
  const ms = Number(env[AGENT_TIMEOUT_ENV]);
  return Number.isInteger(ms) && ms >= 100 && ms <= 600_000 ? ms : DEFAULT_AGENT_TIMEOUT_MS;
}

/**
 * What of the plugin process's environment goes to the agent: the spec's CNI_* variables, and
 * FABRIK_CNI_CONFIG (the node settings this process was pointed at, which named the agent's
 * socket: the agent must run the verb with the same ones). Nothing else of the runtime's
 * environment leaves the process.
 */
export function fastPathEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && (key.startsWith('CNI_') || key === CNI_NODE_SETTINGS_ENV)) out[key] = value;
  return out;
}

/**
 * Why the socket at `path` cannot be trusted with an invocation, or undefined when it can. The
 * socket and its directory must belong to root (or to this process's user) and be writable by
 * nobody else: then no other local user can have put a listener there, whose fake success to a DEL
 * would leak the attachment. A path that does not exist is `ENOENT` (no agent). The directory is
 * what makes the check hold until the connection: only its owner can replace the socket.
 */
export async function untrustedSocket(path: string): Promise<string | undefined> {
  const owners = new Set([0, process.geteuid?.() ?? 0]);
  const problem = async (file: string, kind: 'socket' | 'directory'): Promise<string | undefined> => {
    const st = await lstat(file);
    if (kind === 'socket' ? !st.isSocket() : !st.isDirectory()) return `${file} is not a ${kind}`;
    if (!owners.has(st.uid)) return `${kind} ${file} belongs to uid ${st.uid}, not root`;
    if ((st.mode & 0o022) !== 0)
      return `${kind} ${file} is writable by group or others (mode ${(st.mode & 0o777).toString(8)})`;
    return undefined;
  };
  try {
    return (await problem(path, 'socket')) ?? (await problem(dirname(path), 'directory'));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
}

/**
 * Sends one invocation to the agent listening on `socketPath` and waits for its answer, at most
 * `deadlineMs` (default {@link DEFAULT_AGENT_TIMEOUT_MS}): a request the agent took but did not
 * answer in time is `broken`, which the plugin reports as code 11. A socket that fails
 * {@link untrustedSocket} gets nothing (`unavailable`). Never throws: every way the call can end
 * is an {@link AgentCallOutcome}.
 */
export async function callAgent(
  socketPath: string,
  request: FastPathRequest,
  options: { deadlineMs?: number } = {},
): Promise<AgentCallOutcome> {
  const untrusted = await untrustedSocket(socketPath);
  if (untrusted !== undefined) return { kind: 'unavailable', reason: untrusted };
  const deadlineMs = options.deadlineMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let connected = false;
    let settled = false;
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (outcome: AgentCallOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () =>
        finish(
          connected
            ? { kind: 'broken', reason: `no answer within ${deadlineMs} ms` }
            : { kind: 'unavailable', reason: `no connection within ${deadlineMs} ms` },
        ),
      deadlineMs,
    );
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
