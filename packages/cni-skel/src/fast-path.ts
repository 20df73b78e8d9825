// The protocol of the CNI fast path: a plugin process hands its whole invocation (environment and
// config) to a node agent over a Unix socket, and the agent answers with what the plugin would
// have printed. One request and one response per connection, each one line of JSON (JSON.stringify
// escapes every newline inside strings, so a line is a message). Pure: encoding and checking only.

/** The protocol version this code speaks. A request of another version is refused, never guessed at. */
export const FAST_PATH_PROTOCOL_VERSION = 1;

/** Longest message either side accepts (a network config with a prevResult is a few KiB). */
export const MAX_FAST_PATH_MESSAGE_BYTES = 16 * 1024 * 1024;

/** One CNI invocation, as the plugin process received it. */
export interface FastPathRequest {
  readonly version: number;
  /**
   * The CNI_* variables of the plugin process's environment as the runtime set it, and
   * FABRIK_CNI_CONFIG (fast-path-client.ts's fastPathEnv). The agent runs the verb with exactly this
   * environment (delegated IPAM plugins get it too), so the outcome is the one the plugin would
   * have had.
   */
  readonly env: Readonly<Record<string, string>>;
  /** The network config exactly as the plugin read it from stdin. */
  readonly stdin: string;
}

/** What the plugin process would have produced: its exit status and output. */
export interface FastPathAnswer {
  readonly version: number;
  readonly kind: 'answer';
  readonly exitCode: number;
  /** The result or error JSON, or nothing (DEL, CHECK, GC and STATUS print nothing on success). */
  readonly stdout: string;
  /** Notes the verb wrote for the runtime's log. */
  readonly stderr: string;
}

/** The agent would not run the request (another protocol version, a malformed request): nothing was done. */
export interface FastPathRefusal {
  readonly version: number;
  readonly kind: 'refused';
  readonly reason: string;
  /** The protocol versions the agent speaks. */
  readonly versions: readonly number[];
}

export type FastPathResponse = FastPathAnswer | FastPathRefusal;

/** A message as it goes on the wire: one line. */
export function encodeFastPathMessage(message: FastPathRequest | FastPathResponse): string {
  return `${JSON.stringify(message)}\n`;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The refusal of a request the agent cannot run. */
export function fastPathRefusal(reason: string): FastPathRefusal {
  return {
    version: FAST_PATH_PROTOCOL_VERSION,
    kind: 'refused',
    reason,
    versions: [FAST_PATH_PROTOCOL_VERSION],
  };
}

/**
 * Reads a request line: the request, or the refusal to send back (a version other than
 * {@link FAST_PATH_PROTOCOL_VERSION}, or not a request of this protocol, naming the field).
 */
export function parseFastPathRequest(
  line: string,
):
  | { readonly ok: true; readonly request: FastPathRequest }
  | { readonly ok: false; readonly refusal: FastPathRefusal } {
  const refuse = (reason: string) => ({ ok: false as const, refusal: fastPathRefusal(reason) });
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return refuse('the request is not JSON');
  }
  if (!isRecord(raw)) return refuse('the request is not a JSON object');
  if (raw['version'] !== FAST_PATH_PROTOCOL_VERSION)
    return refuse(
      `protocol version ${JSON.stringify(raw['version'] ?? null)} is not supported (this agent speaks ${FAST_PATH_PROTOCOL_VERSION})`,
    );
  const env = raw['env'];
  if (!isRecord(env)) return refuse('env: must be an object');
  for (const [key, value] of Object.entries(env))
    if (typeof value !== 'string') return refuse(`env.${key}: must be a string`);
  if (typeof raw['stdin'] !== 'string') return refuse('stdin: must be a string');
  return {
    ok: true,
    request: {
      version: FAST_PATH_PROTOCOL_VERSION,
      env: env as Record<string, string>,
      stdin: raw['stdin'],
    },
  };
}

/** Reads a response line; undefined when it is not a response of this protocol. */
export function parseFastPathResponse(line: string): FastPathResponse | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || typeof raw['version'] !== 'number') return undefined;
  if (raw['kind'] === 'refused' && typeof raw['reason'] === 'string') {
    const versions = Array.isArray(raw['versions'])
      ? raw['versions'].filter((v): v is number => typeof v === 'number')
      : [];
    return { version: raw['version'], kind: 'refused', reason: raw['reason'], versions };
  }
  if (
    raw['version'] === FAST_PATH_PROTOCOL_VERSION &&
    raw['kind'] === 'answer' &&
    Number.isInteger(raw['exitCode']) &&
    typeof raw['stdout'] === 'string' &&
    typeof raw['stderr'] === 'string'
  ) {
    return {
      version: raw['version'],
      kind: 'answer',
      exitCode: raw['exitCode'] as number,
      stdout: raw['stdout'],
      stderr: raw['stderr'],
    };
  }
  return undefined;
}
