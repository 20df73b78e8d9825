// The few requests the test control plane makes of its own server (readiness, TokenRequest,
// SelfSubjectRulesReview): HTTPS with the server's certificate as CA and a bearer token.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

export interface ApiRequest {
  readonly url: string;
  readonly method?: string;
  readonly token?: string;
  readonly caPem?: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** One request; resolves with any status, rejects on a transport error or the timeout. */
export function apiRequest(req: ApiRequest): Promise<ApiResponse> {
  const url = new URL(req.url);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = send(
      url,
      {
        method: req.method ?? 'GET',
        ...(req.caPem !== undefined ? { ca: req.caPem } : {}),
        timeout: req.timeoutMs ?? 10_000,
        headers: {
          accept: 'application/json',
          ...(req.token !== undefined ? { authorization: `Bearer ${req.token}` } : {}),
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...req.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.on('timeout', () =>
      r.destroy(
        new Error(`${req.method ?? 'GET'} ${req.url}: no answer within ${req.timeoutMs ?? 10_000} ms`),
      ),
    );
    r.on('error', reject);
    r.end(payload);
  });
}

/** Like apiRequest, but a status of 300 or more is an error carrying the server's message. */
export async function apiJson<T>(req: ApiRequest): Promise<T> {
  const res = await apiRequest(req);
  if (res.status >= 300) {
    throw new Error(
      `${req.method ?? 'GET'} ${new URL(req.url).pathname}: ${res.status} ${res.body.slice(0, 500)}`,
    );
  }
  return JSON.parse(res.body) as T;
}
