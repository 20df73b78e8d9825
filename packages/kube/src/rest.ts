import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import {
  HttpMethod,
  type Configuration,
  type KubeConfig,
  type RequestContext,
} from '@kubernetes/client-node';
import { apiErrorFor, UnreachableError, type ApiStatus, type StatusCause } from './errors.js';

// Every request of this package goes through client-node's ApiClient machinery: the Configuration that
// `KubeConfig.makeApiClient` builds (server URL, the KubeConfig as authentication: tokens, client
// certificates, CA, exec plugins) and its HTTP library. Only the generated typed APIs are left out:
// their ObjectSerializer turns timestamps into Date objects and drops unknown fields, while the
// callers' `parse` functions (zod schemas) must see the JSON the server sent.

/** Content types of the PATCH verbs the API server accepts. */
export const PATCH_CONTENT_TYPE = {
  /** RFC 7386: objects merged key by key, lists replaced, `null` deletes. Works for every resource. */
  merge: 'application/merge-patch+json',
  /** RFC 6902 operations (`add`, `replace`, `remove`, `test`). */
  json: 'application/json-patch+json',
  /** Kubernetes' own: lists merged by their key (Node `status.conditions` by `type`). Built-in kinds only. */
  strategic: 'application/strategic-merge-patch+json',
  /** Server-side apply: the body is the writer's whole intent; needs a fieldManager. JSON is YAML. */
  apply: 'application/apply-patch+yaml',
} as const;
export type PatchType = keyof typeof PATCH_CONTENT_TYPE;

export type QueryValue = string | number | boolean | undefined;

export interface RestRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, for example `/apis/network.fabrik.dev/v1alpha1/vrfs`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Abort the request after this long (default: the client's, 30 s); it then fails as unreachable. */
  readonly timeoutMs?: number;
  /** Aborts the request (it then fails as unreachable); for callers that are shutting down. */
  readonly signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** System error codes that mean "the server is not there (now)", as node-fetch reports them. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/** Methods whose request may be sent twice with the same effect (RFC 9110 idempotent methods). */
const IDEMPOTENT_METHODS = new Set<RestRequest['method']>(['GET', 'PUT', 'DELETE']);

export interface RestClientOptions {
  /** One keep-alive connection for the client's requests (see {@link AgentReuse}). Default false. */
  readonly keepAlive?: boolean;
}

/** A minimal JSON client for the API server, built by `KubeConfig.makeApiClient`. */
export class RestClient {
  private readonly agents: AgentReuse | undefined;

  constructor(
    private readonly configuration: Configuration,
    options: RestClientOptions = {},
  ) {
    this.agents = options.keepAlive ? new AgentReuse() : undefined;
  }

  /**
   * Sends one request; resolves to the parsed JSON body, rejects with a typed {@link KubeError}.
   * With keep-alive, an idempotent request that finds its connection closed by the server (which
   * does so when it restarts, and the client may not have noticed yet) is sent once more on a new one.
   */
  async request(req: RestRequest): Promise<unknown> {
    try {
      return await this.send(req);
    } catch (error) {
      if (!this.agents || !IDEMPOTENT_METHODS.has(req.method) || !isConnectionClosed(error)) throw error;
      return this.send(req);
    }
  }

  private async send(req: RestRequest): Promise<unknown> {
    const described = `${req.method} ${req.path}`;
    const context = this.configuration.baseServer.makeRequestContext(req.path, HttpMethod[req.method]);
    for (const [name, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) context.setQueryParam(name, String(value));
    }
    context.setHeaderParam('Accept', 'application/json');
    if (req.body !== undefined) {
      context.setHeaderParam('Content-Type', req.contentType ?? 'application/json');
      context.setBody(JSON.stringify(req.body));
    }
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    context.setSignal(req.signal ? AbortSignal.any([timeout, req.signal]) : timeout);

    let status: number;
    let text: string;
    try {
      await this.configuration.authMethods.default?.applySecurityAuthentication(context);
      this.agents?.reuse(context);
      const response = await this.configuration.httpApi.send(context).toPromise();
      status = response.httpStatusCode;
      text = await response.body.text();
    } catch (error) {
      throw transportError(described, error, timeoutMs);
    }
    const body = parseJson(text);
    if (status >= 200 && status < 300) return body;
    throw apiErrorFor(described, statusFromBody(status, body, text));
  }
}

/** The TLS options of an agent that decide whether a connection may serve another request. */
const TLS_OPTION_KEYS = [
  'ca',
  'cert',
  'key',
  'pfx',
  'passphrase',
  'rejectUnauthorized',
  'servername',
] as const;

/**
 * client-node builds a new agent for every request (`KubeConfig.applySecurityAuthentication`), so
 * every request pays a TCP connect and a TLS handshake: about four fifths of a small request's time
 * against a local API server, and as much CPU on the server. This keeps one keep-alive agent per
 * client instead, as long as the TLS options of the agent client-node built stay the same (a
 * rotated client certificate gets a new agent). Proxy agents are left as they are. Idle sockets of a
 * keep-alive agent are unref'd: they never keep a process alive. Opt-in (`keepAlive`): a request
 * that is not idempotent (POST, PATCH) and meets a connection the server has just closed fails as
 * unreachable, where a new connection would have succeeded.
 */
class AgentReuse {
  private current: { key: string; agent: HttpAgent } | undefined;

  reuse(context: RequestContext): void {
    const built = context.getAgent() as HttpAgent | undefined;
    if (!built || (built.constructor !== HttpsAgent && built.constructor !== HttpAgent)) return;
    const options = (built as HttpAgent & { options: AgentOptions }).options;
    const key = JSON.stringify([
      built.constructor === HttpsAgent,
      ...TLS_OPTION_KEYS.map((k) => tlsOptionKey(options[k])),
    ]);
    if (this.current?.key !== key) {
      this.current?.agent.destroy();
      const tls = Object.fromEntries(
        TLS_OPTION_KEYS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]),
      );
      const agent =
        built.constructor === HttpsAgent
          ? new HttpsAgent({ ...tls, keepAlive: true })
          : new HttpAgent({ keepAlive: true });
      this.current = { key, agent };
    }
    context.setAgent(this.current.agent);
  }
}

/** A TLS option as a comparable string (PEM buffers and strings compare by content). */
function tlsOptionKey(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return value.map(tlsOptionKey);
  return value;
}

/** True for the failure of a request whose connection the server closed (reset, hang-up, broken pipe). */
function isConnectionClosed(error: unknown): boolean {
  return (
    error instanceof UnreachableError && ['ECONNRESET', 'EPIPE', 'connection closed'].includes(error.reason)
  );
}

/** Maps a failure below HTTP (no answer at all) to a typed error; anything unknown is rethrown as is. */
export function transportError(request: string, error: unknown, timeoutMs?: number): Error {
  const code = systemErrorCode(error);
  if (
    code !== undefined &&
    (UNREACHABLE_CODES.has(code) || code.startsWith('ERR_TLS') || code.includes('CERT'))
  ) {
    return new UnreachableError(request, code, { cause: error });
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') {
    return new UnreachableError(request, timeoutMs ? `no answer within ${timeoutMs} ms` : 'TIMEOUT', {
      cause: error,
    });
  }
  if (error instanceof Error && /socket hang up|other side closed|premature close/i.test(error.message)) {
    return new UnreachableError(request, 'connection closed', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** node-fetch puts the system error code on `code`, sometimes only on the wrapped `erroredSysCall` cause. */
function systemErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The Status object of an error answer; servers (and proxies) that send none get one made up from the code. */
export function statusFromBody(code: number, body: unknown, text?: string): ApiStatus {
  if (isRecord(body) && body.kind === 'Status') {
    const details = isRecord(body.details) ? body.details : undefined;
    const causes = Array.isArray(details?.causes)
      ? details.causes.filter(isRecord).map((c): StatusCause => ({
          ...(typeof c.field === 'string' && { field: c.field }),
          ...(typeof c.reason === 'string' && { reason: c.reason }),
          ...(typeof c.message === 'string' && { message: c.message }),
        }))
      : undefined;
    return {
      code: typeof body.code === 'number' ? body.code : code,
      ...(typeof body.reason === 'string' && { reason: body.reason }),
      ...(typeof body.message === 'string' && { message: body.message }),
      ...(causes && { causes }),
    };
  }
  return { code, ...(text && { message: text.slice(0, 500) }) };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const clients = new WeakMap<KubeConfig, RestClient>();
const keepAliveClients = new WeakMap<KubeConfig, RestClient>();

class KeepAliveRestClient extends RestClient {
  constructor(configuration: Configuration) {
    super(configuration, { keepAlive: true });
  }
}

/** The client of a KubeConfig (one per KubeConfig object, and one more with keep-alive). */
export function restClientFor(kc: KubeConfig, options: RestClientOptions = {}): RestClient {
  const cache = options.keepAlive ? keepAliveClients : clients;
  let client = cache.get(kc);
  if (!client) {
    client = kc.makeApiClient(options.keepAlive ? KeepAliveRestClient : RestClient);
    cache.set(kc, client);
  }
  return client;
}
