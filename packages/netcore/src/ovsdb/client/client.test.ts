// The client against a fake ovsdb-server on a unix socket: what it does when the server
// misbehaves. (The real server is exercised by ovsdb.host.test.ts.)
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonStreamDecoder } from '../wire/index.js';
import { where } from '../ops/index.js';
import { connectOvsdb } from './client.js';

interface Request {
  readonly id: unknown;
  readonly method: string;
  readonly params: unknown;
}

let dir: string;
let server: Server | undefined;
const sockets = new Set<Socket>();

/** Stops the fake server and drops its connections (server.close alone waits for them). */
async function stopServer(): Promise<void> {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fabrik-ovsdb-fake-'));
});
afterEach(async () => {
  await stopServer();
  await rm(dir, { recursive: true, force: true });
});

/** Starts a fake server; `onRequest` answers each request (by writing to the socket) or not. */
async function fakeServer(
  onRequest: (req: Request, socket: Socket) => void,
  onConnect?: (socket: Socket) => void,
  transport: 'unix' | 'tcp' = 'unix',
): Promise<string> {
  const path = join(dir, 'db.sock');
  server = createServer((socket) => {
    const decoder = new JsonStreamDecoder();
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', (chunk) => decoder.push(chunk, (m) => onRequest(m as Request, socket)));
    onConnect?.(socket);
  });
  if (transport === 'tcp') {
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no tcp address');
    return `tcp:127.0.0.1:${address.port}`;
  }
  await new Promise<void>((r) => server!.listen(path, r));
  return `unix:${path}`;
}

const SELECT = where('Bridge').select('name');

describe('OVSDB client against a misbehaving server', () => {
  it('speaks JSON-RPC over tcp endpoints too', async () => {
    const endpoint = await fakeServer(
      (req, socket) => socket.write(JSON.stringify({ id: req.id, result: ['Open_vSwitch'], error: null })),
      undefined,
      'tcp',
    );
    const client = await connectOvsdb(endpoint);
    expect(await client.call('list_dbs', [])).toEqual(['Open_vSwitch']);
    await client.close();
  });

  it('an endpoint nobody listens on is an OvsdbConnectionError', async () => {
    await expect(connectOvsdb(`unix:${join(dir, 'nothing.sock')}`)).rejects.toMatchObject({
      code: 'OVSDB_CONNECTION',
    });
    await expect(connectOvsdb('tcp:127.0.0.1:1', { timeoutMs: 2000 })).rejects.toMatchObject({
      code: 'OVSDB_CONNECTION',
    });
  });

  it('rejects endpoints it cannot parse, naming the field', async () => {
    for (const e of ['unix:', 'tcp:host', 'tcp:host:99999', 'ssl:1.2.3.4:6640', '/run/db.sock']) {
      await expect(connectOvsdb(e)).rejects.toMatchObject({ code: 'OVSDB_INVALID_INPUT', field: 'endpoint' });
    }
  });

  it('garbage from the server fails the pending request with OvsdbProtocolError and closes the client', async () => {
    const endpoint = await fakeServer((_req, socket) => socket.write('<html>not json</html>'));
    const client = await connectOvsdb(endpoint);
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_PROTOCOL' });
    expect(client.state).toBe('closed');
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_CONNECTION' });
    await client.close();
  });

  it('a reply of the wrong shape is an OvsdbProtocolError; a JSON-RPC error an OvsdbRpcError', async () => {
    const endpoint = await fakeServer((req, socket) => {
      if (req.method === 'transact')
        socket.write(JSON.stringify({ id: req.id, result: { not: 'an array' }, error: null }));
      else
        socket.write(
          JSON.stringify({
            id: req.id,
            result: null,
            error: { error: 'unknown method', details: 'no such thing' },
          }),
        );
    });
    const client = await connectOvsdb(endpoint);
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_PROTOCOL' });
    await expect(client.call('nonsense', [])).rejects.toMatchObject({
      code: 'OVSDB_RPC',
      message: 'nonsense: unknown method: no such thing',
    });
    // The connection stays usable after well-formed but wrong replies.
    expect(client.state).toBe('connected');
    await client.close();
  });

  it('a server that never answers gives OvsdbTimeoutError after the request timeout', async () => {
    const endpoint = await fakeServer(() => {});
    const client = await connectOvsdb(endpoint, { timeoutMs: 200 });
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_TIMEOUT', timeoutMs: 200 });
    await expect(client.transact(SELECT, { timeoutMs: 50 })).rejects.toMatchObject({
      code: 'OVSDB_TIMEOUT',
      timeoutMs: 50,
    });
    // Still usable: a timeout fails the request, not the connection.
    expect(client.state).toBe('connected');
    await client.close();
  });

  it('a socket the server closes fails pending and later requests with OvsdbConnectionError', async () => {
    const endpoint = await fakeServer((_req, socket) => socket.destroy());
    const client = await connectOvsdb(endpoint);
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_CONNECTION' });
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_CONNECTION' });
    await client.close();
  });

  it('answers the server echo and reads replies split byte by byte', async () => {
    const echoed: unknown[] = [];
    const endpoint = await fakeServer(
      (req, socket) => {
        if (req.method === undefined) {
          echoed.push(req);
          return;
        }
        const reply = Buffer.from(
          JSON.stringify({ id: req.id, result: [{ rows: [{ name: 'brü' }] }], error: null }),
        );
        for (const byte of reply) socket.write(Buffer.from([byte]));
      },
      (socket) => socket.write(JSON.stringify({ id: 'echo-1', method: 'echo', params: ['hello'] })),
    );
    const client = await connectOvsdb(endpoint);
    const [result] = await client.transact(SELECT);
    expect(result?.rows).toEqual([{ name: 'brü' }]);
    expect(echoed).toEqual([{ id: 'echo-1', result: ['hello'], error: null }]);
    await client.close();
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_CONNECTION' });
  });

  it('with reconnect, a request made while the server is gone waits for it and then fails typed', async () => {
    const connected: Socket[] = [];
    const endpoint = await fakeServer(
      (req, socket) => socket.write(JSON.stringify({ id: req.id, result: [{ rows: [] }], error: null })),
      (socket) => connected.push(socket),
    );
    const client = await connectOvsdb(endpoint, {
      reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
      timeoutMs: 2000,
    });
    const states: string[] = [];
    const waiters: Array<() => void> = [];
    client.onStateChange((s) => {
      states.push(s);
      for (const w of waiters) w();
    });
    /** Resolves once the client has entered `state` `count` times. */
    const reached = (state: string, count: number) =>
      new Promise<void>((resolve) =>
        waiters.push(() => states.filter((s) => s === state).length >= count && resolve()),
      );
    const reconnected = reached('connected', 1);
    connected[0]?.destroy(); // the server drops the first connection
    await reconnected;
    await expect(client.transact(SELECT)).resolves.toEqual([{ rows: [] }]);
    expect(connected).toHaveLength(2);
    expect(states).toEqual(['reconnecting', 'connected']);
    // Now nothing listens any more: a request waits for the reconnect, then fails typed, not hangs.
    const lost = reached('reconnecting', 2);
    await stopServer();
    await lost;
    await expect(client.transact(SELECT, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'OVSDB_CONNECTION',
    });
    expect(states.at(-1)).toBe('reconnecting');
    await client.close();
    expect(states.at(-1)).toBe('closed');
  });

  it('the inactivity probe drops a connection whose peer stopped answering', async () => {
    let answerEcho = true;
    const echoes: unknown[] = [];
    let onSecondEcho = () => {};
    const secondEcho = new Promise<void>((resolve) => (onSecondEcho = resolve));
    const endpoint = await fakeServer((req, socket) => {
      if (req.method !== 'echo') return;
      echoes.push(req.params);
      if (echoes.length === 2) onSecondEcho();
      if (answerEcho) socket.write(JSON.stringify({ id: req.id, result: req.params, error: null }));
    });
    const client = await connectOvsdb(endpoint, { probeIntervalMs: 40, timeoutMs: 150 });
    // A second probe means the first one was answered and the connection kept.
    await secondEcho;
    expect(client.state).toBe('connected');
    answerEcho = false;
    const closed = new Promise<void>((resolve) => client.onStateChange((s) => s === 'closed' && resolve()));
    await closed;
    await expect(client.transact(SELECT)).rejects.toMatchObject({ code: 'OVSDB_CONNECTION' });
    await client.close();
  });
});
