import { afterEach, describe, expect, it } from 'vitest';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentHostSocketOf, agentTimeoutMs, callAgent, fastPathEnv } from './fast-path-client.js';
import { FAST_PATH_PROTOCOL_VERSION, encodeFastPathMessage, fastPathRefusal } from './fast-path.js';

// The plugin side of the fast path against agents played by a server in this process: every way a
// call can end, and how the socket is found in the node settings.

let dir: string | undefined;
let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const request = {
  version: FAST_PATH_PROTOCOL_VERSION,
  env: { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'c1', CNI_IFNAME: 'net1' },
  stdin: '{"cniVersion":"1.0.0"}',
};

/** An agent that hands each connection, once its request line is in, to `onRequest`. */
async function agent(onRequest: (socket: Socket, line: string) => void): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), 'fabrik-fastpath-'));
  const path = join(dir, 'cni.sock');
  server = createServer((socket) => {
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) onRequest(socket, text.slice(0, text.indexOf('\n')));
    });
  });
  await new Promise<void>((resolve) => server!.listen(path, resolve));
  return path;
}

describe('callAgent', () => {
  it('sends the invocation and returns the answer', async () => {
    let received: unknown;
    const path = await agent((socket, line) => {
      received = JSON.parse(line);
      socket.end(
        encodeFastPathMessage({ version: 1, kind: 'answer', exitCode: 0, stdout: '', stderr: 'note\n' }),
      );
    });
    expect(await callAgent(path, request)).toEqual({
      kind: 'answered',
      answer: { version: 1, kind: 'answer', exitCode: 0, stdout: '', stderr: 'note\n' },
    });
    expect(received).toEqual(request);
  });

  it('a refusal: the plugin does the work itself', async () => {
    const path = await agent((socket) => socket.end(encodeFastPathMessage(fastPathRefusal('no'))));
    expect(await callAgent(path, request)).toEqual({ kind: 'refused', reason: 'no' });
  });

  it('no agent: a path that does not exist, or a file that is not a listening socket', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fabrik-fastpath-'));
    expect(await callAgent(join(dir, 'none.sock'), request)).toEqual({
      kind: 'unavailable',
      reason: 'ENOENT',
    });
    await writeFile(join(dir, 'file'), '');
    expect(await callAgent(join(dir, 'file'), request)).toEqual({
      kind: 'unavailable',
      reason: `${join(dir, 'file')} is not a socket`,
    });
  });

  it('an agent that takes the request and never answers: broken (code 11 for the runtime) at the deadline', async () => {
    const path = await agent(() => undefined);
    const started = Date.now();
    const outcome = await callAgent(path, request, { deadlineMs: 300 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(outcome).toEqual({ kind: 'broken', reason: 'no answer within 300 ms' });
  });

  it.each([
    [
      'a socket another user owns',
      (path: string) => chown(path, 65534, 65534),
      /socket .* belongs to uid 65534, not root/,
    ],
    [
      'a socket anyone may write',
      (path: string) => chmod(path, 0o777),
      /socket .* is writable by group or others \(mode 777\)/,
    ],
    [
      'a directory anyone may write (anyone could have replaced the socket)',
      (path: string) => chmod(join(path, '..'), 0o1777),
      /directory .* is writable by group or others \(mode 777\)/,
    ],
    [
      'a directory another user owns',
      (path: string) => chown(join(path, '..'), 65534, 65534),
      /directory .* belongs to uid 65534, not root/,
    ],
  ])('%s: nothing is sent (unavailable: the plugin does the work itself)', async (_, spoil, reason) => {
    let asked = false;
    const path = await agent((socket) => {
      asked = true;
      socket.end(encodeFastPathMessage({ version: 1, kind: 'answer', exitCode: 0, stdout: '', stderr: '' }));
    });
    await spoil(path);
    const outcome = await callAgent(path, request);
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(reason) });
    expect(asked).toBe(false);
  });
});

describe('fastPathEnv', () => {
  it('sends the CNI_* variables and FABRIK_CNI_CONFIG, nothing else of the runtime environment', () => {
    expect(
      fastPathEnv({
        CNI_COMMAND: 'ADD',
        CNI_PATH: '/opt/cni/bin',
        FABRIK_CNI_CONFIG: '/etc/x.yaml',
        PATH: '/usr/bin',
        HOME: '/root',
        AWS_SECRET_ACCESS_KEY: 'x',
        FABRIK_CNI_LOG_LEVEL: 'debug',
        UNSET: undefined,
      }),
    ).toEqual({ CNI_COMMAND: 'ADD', CNI_PATH: '/opt/cni/bin', FABRIK_CNI_CONFIG: '/etc/x.yaml' });
  });
});

describe('agentTimeoutMs', () => {
  it.each([
    [{}, 90_000],
    [{ FABRIK_CNI_AGENT_TIMEOUT_MS: '5000' }, 5000],
    [{ FABRIK_CNI_AGENT_TIMEOUT_MS: '50' }, 90_000],
    [{ FABRIK_CNI_AGENT_TIMEOUT_MS: 'soon' }, 90_000],
  ])('%j: %i', (env, ms) => expect(agentTimeoutMs(env)).toBe(ms));

  it.each([
    ['closes the connection after the request', (s: Socket) => s.destroy(), /without an answer/],
    ['answers garbage', (s: Socket) => s.end('500 oops\n'), /not of this protocol/],
    [
      'stops in the middle of its answer',
      (s: Socket) => s.end('{"version":1,"kind":"answer","exitCode":0,'),
      /without an answer/,
    ],
  ])('an agent that %s: broken (the plugin must not redo the work)', async (_, behave, reason) => {
    const path = await agent(behave);
    const outcome = await callAgent(path, request);
    expect(outcome.kind).toBe('broken');
    expect(outcome).toMatchObject({ reason: expect.stringMatching(reason) });
  });
});

describe('agentHostSocketOf', () => {
  it.each([
    ['JSON', '{"agentHostSocket": "/run/fabrik/cni.sock"}', '/run/fabrik/cni.sock'],
    ['YAML', 'cacheDir: /var/lib/x\nagentHostSocket: /run/fabrik/cni.sock\n', '/run/fabrik/cni.sock'],
    [
      'YAML with CRLF line ends',
      'cacheDir: /var/lib/x\r\nagentHostSocket: /run/cni.sock\r\n',
      '/run/cni.sock',
    ],
    ['YAML with a comment after it', 'agentHostSocket: /run/cni.sock # the agent\n', '/run/cni.sock'],
    ['YAML, quoted', 'agentHostSocket: "/run/fabrik/cni.sock"\n', '/run/fabrik/cni.sock'],
    ['YAML, flow style', '{agentHostSocket: /run/cni.sock, cacheDir: /x}\n', '/run/cni.sock'],
    ['YAML, below another key (not a node setting)', 'other:\n  agentHostSocket: /run/cni.sock\n', undefined],
    ['YAML, inside a block scalar', 'note: |\n  agentHostSocket: /run/cni.sock\n', undefined],
    ['YAML, only in a comment', '# agentHostSocket: /run/cni.sock\ncacheDir: /x\n', undefined],
    [
      'YAML, twice (a duplicate key is not YAML)',
      'agentHostSocket: /a.sock\nagentHostSocket: /b.sock\n',
      undefined,
    ],
    ['YAML without the field', 'cacheDir: /var/lib/x\n', undefined],
    ['a relative path (the full check refuses it)', 'agentHostSocket: run/cni.sock\n', undefined],
    ['not a mapping', '- agentHostSocket\n', undefined],
    ['invalid YAML', 'agentHostSocket: [\n', undefined],
  ])('%s', async (_, text, socket) => {
    dir = await mkdtemp(join(tmpdir(), 'fabrik-fastpath-'));
    const file = join(dir, 'config.yaml');
    await writeFile(file, text);
    expect(await agentHostSocketOf({ FABRIK_CNI_CONFIG: file })).toBe(socket);
  });

  it('no settings file: no socket', async () => {
    expect(await agentHostSocketOf({ FABRIK_CNI_CONFIG: '/nonexistent/fabrik/config.yaml' })).toBeUndefined();
  });
});
