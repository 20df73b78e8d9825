import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentHostSocketOf, callAgent } from './fast-path-client.js';
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
      reason: 'ECONNREFUSED',
    });
  });

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
