import { Agent, request } from 'node:https';

// The lab's own reads and writes of the API server (waiting for status, creating Pods as the
// scheduler and kubelet would): a few JSON requests with the admin token. Users' views go through
// kubectl; the agents use @fabrik/kube.

export interface KubeClientOptions {
  /** https://host:port */
  readonly url: string;
  readonly token: string;
  /** PEM of the server's certificate (self-signed). */
  readonly ca: string;
}

export type PatchKind = 'merge' | 'strategic';

export interface KubeClient {
  /** The object at `path`, or undefined on 404. */
  get<T>(path: string): Promise<T | undefined>;
  /** `items` of the list at `path`. */
  list<T>(path: string): Promise<T[]>;
  create<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown, kind?: PatchKind): Promise<T>;
  /** Deletes; false when it was not there. */
  delete(path: string): Promise<boolean>;
  close(): void;
}

export class KubeRequestError extends Error {
  readonly code = 'KUBE_REQUEST' as const;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path}: ${status} ${body.slice(0, 500)}`);
    this.name = 'KubeRequestError';
  }
}

class StaleConnectionError extends Error {
  constructor(cause: Error) {
    super('a kept-alive connection was closed by the server', { cause });
  }
}

const CONTENT_TYPE: Record<PatchKind, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export function kubeClient(options: KubeClientOptions): KubeClient {
  const agent = new Agent({ keepAlive: true, ca: options.ca });
  const base = new URL(options.url);
  // A kept-alive connection the server closed meanwhile (a restart) fails on first use: such a
  // request is sent once more on a new connection, as Node's documentation advises.
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; text: string }> => {
    try {
      return await sendOnce(method, path, body, contentType);
    } catch (e) {
      if (!(e instanceof StaleConnectionError)) throw e;
      return sendOnce(method, path, body, contentType);
    }
  };
  const sendOnce = (method: string, path: string, body: unknown, contentType: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: {
            authorization: `Bearer ${options.token}`,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }),
          },
          timeout: 30_000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', (e: NodeJS.ErrnoException) =>
        reject(req.reusedSocket && e.code === 'ECONNRESET' ? new StaleConnectionError(e) : e),
      );
      req.end(payload);
    });
  const json = async <T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> => {
    const { status, text } = await send(method, path, body, contentType);
    if (status < 200 || status >= 300) throw new KubeRequestError(method, path, status, text);
    return JSON.parse(text) as T;
  };
  return {
    async get<T>(path: string) {
      const { status, text } = await send('GET', path);
      if (status === 404) return undefined;
      if (status !== 200) throw new KubeRequestError('GET', path, status, text);
      return JSON.parse(text) as T;
    },
    list: async <T>(path: string) => (await json<{ items: T[] }>('GET', path)).items,
    create: <T>(path: string, body: unknown) => json<T>('POST', path, body),
    patch: <T>(path: string, body: unknown, kind: PatchKind = 'merge') =>
      json<T>('PATCH', path, body, CONTENT_TYPE[kind]),
    async delete(path: string) {
      const { status, text } = await send('DELETE', path);
      if (status === 404) return false;
      if (status < 200 || status >= 300) throw new KubeRequestError('DELETE', path, status, text);
      return true;
    },
    close: () => agent.destroy(),
  };
}
