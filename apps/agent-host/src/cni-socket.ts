import { chmod, lstat, mkdir, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from '@fabrik/agent-runtime';
import {
  CniError,
  CniErrorCode,
  MAX_FAST_PATH_MESSAGE_BYTES,
  SPEC_VERSIONS,
  encodeFastPathMessage,
  parseFastPathRequest,
  runPlugin,
  type FastPathRequest,
  type PluginFuncs,
} from '@fabrik/cni-skel';
import {
  fabrikOvsPlugin,
  monitoredOvsSession,
  openOvsSession,
  type InProcessIpam,
  type OpenOvs,
  type PluginDeps,
} from '@fabrik/ovs-attachment';
import { loadNativeNetlink } from '@fabrik/netcore/netlink';
import type { OvsConnection } from './ovs-connection.js';

// The CNI fast path, agent side (issue 15; the anchor is Antrea's agent, whose CNI binary is a thin
// client): fabrik-ovs hands each invocation to agent-host over a Unix socket that only root can
// reach, and agent-host runs the SAME verbs (@fabrik/ovs-attachment) with the request's environment
// and config through the same skeleton (runPlugin), so the answer (result, or error code and
// message) is the one the plugin would have printed. What the agent adds: its held OVSDB connection,
// whose monitor gives the ofport without a request per port, fabrik-ipam run in-process with a held
// API client (cni-ipam.ts), and no Node start per call.
//
// Invocations of one attachment (container id + ifname) run one after another, in the order they
// arrived: a DEL sent while its ADD still runs waits for it. Different attachments run in parallel.
// A request the agent has started is finished even when the plugin process goes away meanwhile (the
// runtime's DEL then finds a complete attachment, or nothing, never half of one); when the agent
// itself dies in the middle, the plugin answers code 11 and the runtime's DEL, done by the plugin
// itself while the socket is gone, removes whatever was created (every piece is marked).

/** How long a connection may take to deliver its request. */
const REQUEST_READ_TIMEOUT_MS = 30_000;
/** How long closing waits for invocations in progress. */
const CLOSE_GRACE_MS = 60_000;

export interface CniSocketOptions {
  /** The socket's path (agent-host's `cniSocket`; the node settings' `agentHostSocket` names it too). */
  readonly path: string;
  readonly logger: Logger;
  /** The verbs of one invocation, given its environment and where its notes for the runtime go. */
  readonly plugin: (env: Readonly<Record<string, string>>, stderr: (text: string) => void) => PluginFuncs;
  /** Called when an invocation is answered (for metrics). */
  readonly onAnswered?: (command: string, exitCode: number, seconds: number) => void;
}

export interface CniSocket {
  readonly path: string;
  /** Stops accepting, waits for the invocations in progress (bounded), removes the socket file. */
  close(): Promise<void>;
}

/**
 * The OVSDB sessions of invocations run by the agent: its held connection when the node settings
 * name the same endpoint (waiting up to the settings' ovsdbTimeoutMs for it to be ready, else code
 * 11 as the plugin would answer), otherwise a connection of their own, as the plugin makes.
 */
export function heldOvsSessions(connection: OvsConnection, endpoint: string): OpenOvs {
  return async (settings) => {
    if (settings.ovsdbSocket !== endpoint) return openOvsSession(settings);
    const client = await connection.readyClient(settings.timeouts.ovsdbTimeoutMs);
    if (!client)
      throw new CniError(
        CniErrorCode.tryAgainLater,
        `OVSDB ${endpoint} is not reachable: ${connection.problem() ?? 'not ready'}`,
      );
    return monitoredOvsSession(client);
  };
}

/**
 * fabrik-ovs's verbs as agent-host runs them: the request's environment, its held OVSDB
 * connection, the IPAM plugins it runs in-process (cni-ipam.ts) and, with a cluster, the
 * tenant-scoping decision before ADD creates anything (admission.ts).
 */
export function fabrikOvsVerbs(
  connection: OvsConnection,
  endpoint: string,
  ipam: InProcessIpam,
  admit?: PluginDeps['admit'],
): CniSocketOptions['plugin'] {
  const openOvs = heldOvsSessions(connection, endpoint);
  return (env, stderr) =>
    fabrikOvsPlugin(async () => ({ env, stderr, openOvs, inProcessIpam: ipam, ...(admit ? { admit } : {}) }));
}

/** Runs `fn` after every earlier call with the same key has settled; calls with other keys run at once. */
function createKeyedSerializer(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, fn) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(fn, fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

/**
 * Takes over the socket path: a socket left behind by an agent that died is removed; one that
 * another process still serves, or a file of another kind, is an error naming `cniSocket`.
 */
async function claimSocketPath(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  if (!st) return;
  if (!st.isSocket()) throw new Error(`cniSocket: ${path} exists and is not a socket`);
  const served = await new Promise<boolean>((resolve) => {
    const probe = createConnection(path, () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
  if (served) throw new Error(`cniSocket: another process serves ${path}`);
  await rm(path, { force: true });
}

/** Listens on `path` with mode 0600: the socket is created under umask 0177, so no one else can connect even for an instant. */
async function listenPrivately(server: Server, path: string): Promise<void> {
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The socket file is bound synchronously inside listen(); the umask is restored right after.
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(umask);
  }
  await chmod(path, 0o600);
}

/** Reads the one request line of a connection; undefined when the connection ends or stalls first. */
function readRequestLine(socket: Socket): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (line: string | undefined) => {
      socket.off('data', onData);
      socket.setTimeout(0);
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      const end = chunk.indexOf(0x0a);
      if (end >= 0) {
        const text = Buffer.concat(chunks).toString('utf8');
        done(text.slice(0, text.indexOf('\n')));
      } else if (size > MAX_FAST_PATH_MESSAGE_BYTES) done('');
    };
    socket.on('data', onData);
    socket.once('end', () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.setTimeout(REQUEST_READ_TIMEOUT_MS, () => done(undefined));
  });
}

/** Serves the CNI socket at `options.path` (see the top of this file). */
export async function serveCniSocket(options: CniSocketOptions): Promise<CniSocket> {
  const { logger } = options;
  // The attachments' kernel steps are rtnetlink messages through koffi: a platform it cannot load
  // on fails here, at start-up, with the reason (NativeNetlinkUnavailableError), not at the first Pod.
  loadNativeNetlink();
  const serialized = createKeyedSerializer();
  const inFlight = new Set<Promise<unknown>>();

  const invoke = async (request: FastPathRequest) => {
    const { env, stdin } = request;
    const command = env['CNI_COMMAND'] ?? '';
    const attachment = env['CNI_CONTAINERID']
      ? `${env['CNI_CONTAINERID']}/${env['CNI_IFNAME'] ?? ''}`
      : undefined;
    const run = async () => {
      const started = performance.now();
      let stdout = '';
      let stderr = '';
      const exitCode = await runPlugin(
        options.plugin(env, (text) => (stderr += text)),
        { versions: SPEC_VERSIONS },
        { env, stdin, stdout: (text) => (stdout += text) },
      );
      const seconds = (performance.now() - started) / 1000;
      options.onAnswered?.(command, exitCode, seconds);
      const log = { command, attachment, exitCode, ms: Math.round(seconds * 1000) };
      if (exitCode === 0) logger.debug(log, 'cni: answered');
      else logger.info({ ...log, error: stdout }, 'cni: answered with an error');
      return { exitCode, stdout, stderr };
    };
    logger.debug({ command, attachment }, 'cni: received');
    // GC and STATUS name no attachment: they run beside everything else.
    return attachment === undefined ? run() : serialized(attachment, run);
  };

  const handle = async (socket: Socket) => {
    socket.on('error', () => undefined);
    const line = await readRequestLine(socket);
    if (line === undefined) {
      socket.destroy();
      return;
    }
    const parsed = parseFastPathRequest(line);
    if (!parsed.ok) {
      logger.warn({ reason: parsed.refusal.reason }, 'cni: request refused');
      socket.end(encodeFastPathMessage(parsed.refusal));
      return;
    }
    // Finished whatever happens to the connection meanwhile: see the top of this file.
    const answer = invoke(parsed.request);
    inFlight.add(answer);
    try {
      const { exitCode, stdout, stderr } = await answer;
      if (socket.destroyed) {
        logger.info(
          { command: parsed.request.env['CNI_COMMAND'] },
          'cni: the plugin went away before the answer',
        );
        return;
      }
      socket.end(
        encodeFastPathMessage({ version: parsed.request.version, kind: 'answer', exitCode, stdout, stderr }),
      );
    } catch (e) {
      // runPlugin answers every failure of a verb itself: this is a fault of the agent, after which
      // nothing is known about the attachment. No answer: the plugin reports code 11.
      logger.error({ err: e }, 'cni: invocation failed outside the plugin');
      socket.destroy();
    } finally {
      inFlight.delete(answer);
    }
  };

  await claimSocketPath(options.path);
  const server = createServer((socket) => void handle(socket));
  await listenPrivately(server, options.path);
  const { ino } = await lstat(options.path);
  logger.info({ path: options.path }, 'cni: serving the fast path');

  return {
    path: options.path,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([Promise.allSettled([...inFlight]), grace]);
      await Promise.race([closed, grace]);
      // Only this agent's socket: a successor may already have claimed the path.
      const now = await lstat(options.path).catch(() => undefined);
      if (now?.ino === ino) await rm(options.path, { force: true });
    },
  };
}
