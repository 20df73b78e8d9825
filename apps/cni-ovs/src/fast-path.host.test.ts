import { beforeAll, describe, expect, it } from 'vitest';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { cnitoolContainerId, createGatedIpam, uniqueName, type OvsInstance } from '@fabrik/testkit';
import { isCommandError } from '@fabrik/netcore';
import {
  answeredByAgent,
  cnitool,
  execPlugin,
  nodeState,
  sandboxSettings,
  writeConflist,
  writeNodeSettings,
  type PluginSandbox,
  usePluginTestBed,
} from '../test/harness.js';

// The fast path's own lifecycle: what the shared test matrix (run on both paths by the projects
// host and host-fast-path) cannot show. The agent is a real agent-host process; the runtime is
// libcni's cnitool. This file always runs on the agent-host path.

const bed = usePluginTestBed({ bridgePrefix: 'brf', netnsPrefix: 'ffp-', path: 'agent-host' });
const { bridge, netns } = bed;
let sb: PluginSandbox;
let ovs: OvsInstance;
beforeAll(() => ({ sb, ovs } = bed));

/** A network of fabrik-ovs on the test bridge whose IPAM is `ipamType` (host-local by default). */
async function network(ipamType = 'host-local'): Promise<string> {
  const name = uniqueName('fp');
  await writeConflist(sb, name, '1.0.0', {
    bridge,
    vlan: 100,
    // host-local's dataDir comes from the node settings; a test plugin wrapping it gets it here.
    ipam: {
      type: ipamType,
      subnet: '10.95.0.0/24',
      ...(ipamType === 'host-local' ? {} : { dataDir: sb.ipamDataDir }),
    },
  });
  return name;
}

/** Sends `line` to the agent's socket and returns the line it answers. */
function rawExchange(line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = createConnection(sb.agent!.socket, () => socket.write(`${line}\n`));
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text.trimEnd()));
    socket.on('error', reject);
  });
}

/** The attachments (`COMMAND containerId/ifname`) the agent answered, from its log line `from` on. */
const answeredAttachments = (from: number) =>
  sb
    .agent!.logs.slice(from)
    .filter((l) => l['msg'] === 'cni: answered')
    .map((l) => `${String(l['command'])} ${String(l['attachment'])}`);

describe('the socket', () => {
  it('is a socket only its owner (root) may use', async () => {
    const st = await lstat(sb.agent!.socket);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.uid).toBe(0);
  });

  it('refuses a request of another protocol version, naming the versions it speaks, and keeps serving', async () => {
    const answer = JSON.parse(
      await rawExchange(JSON.stringify({ version: 2, env: { CNI_COMMAND: 'ADD' }, stdin: '{}' })),
    ) as unknown;
    expect(answer).toEqual({
      version: 1,
      kind: 'refused',
      reason: 'protocol version 2 is not supported (this agent speaks 1)',
      versions: [1],
    });
    const from = sb.agent!.logs.length;
    const ns = await netns();
    const net = await network();
    await cnitool(sb, 'add', net, ns.path);
    await cnitool(sb, 'del', net, ns.path);
    expect(answeredByAgent(sb, from)).toEqual(['ADD', 'DEL']);
  });

  it('absent: the plugin does the work itself, and says so on stderr only at debug level', async () => {
    const ns = await netns();
    const settings = await writeNodeSettings(
      sb,
      { ...sandboxSettings(sb, ovs.endpoint), agentHostSocket: join(sb.dir, 'nobody.sock') },
      join(sb.dir, 'no-agent.yaml'),
    );
    const conf = {
      cniVersion: '1.0.0',
      name: uniqueName('na'),
      type: 'fabrik-ovs',
      bridge,
      ipam: { type: 'host-local', subnet: '10.94.0.0/24' },
    };
    const call = { containerId: uniqueName('c'), netns: ns.path, ifname: 'net1' };
    const from = sb.agent!.logs.length;
    const quiet = await execPlugin(sb, 'ADD', conf, {
      ...call,
      env: { FABRIK_CNI_CONFIG: settings, FABRIK_CNI_LOG_LEVEL: '' },
    });
    expect(quiet).toMatchObject({ code: 0, stderr: '' });
    const debug = await execPlugin(sb, 'DEL', conf, {
      ...call,
      env: { FABRIK_CNI_CONFIG: settings, FABRIK_CNI_LOG_LEVEL: 'debug' },
    });
    expect(debug.code).toBe(0);
    expect(debug.stderr).toMatch(/fabrik-ovs: DEL done by this process: .*nobody\.sock: unavailable: ENOENT/);
    expect(answeredByAgent(sb, from)).toEqual([]);
  });
});

describe('a socket the plugin cannot rely on', () => {
  /** A listener at `dir/agent.sock` that reads requests and answers none, with `received` lines. */
  async function silentAgent(
    dir: string,
  ): Promise<{ path: string; received: string[]; close(): Promise<void> }> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, 'agent.sock');
    const received: string[] = [];
    const server = createServer((socket) =>
      socket.on('data', (chunk) => received.push(chunk.toString('utf8'))),
    );
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return { path, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  it('an agent that takes the ADD and never answers: code 11 at the deadline, with only CNI_* and FABRIK_CNI_CONFIG sent', async () => {
    const silent = await silentAgent(join(sb.dir, uniqueName('silent')));
    try {
      const settings = await writeNodeSettings(
        sb,
        { ...sandboxSettings(sb, ovs.endpoint), agentHostSocket: silent.path },
        join(sb.dir, `${uniqueName('s')}.yaml`),
      );
      const ns = await netns();
      const started = Date.now();
      const r = await execPlugin(
        sb,
        'ADD',
        { cniVersion: '1.0.0', name: uniqueName('st'), type: 'fabrik-ovs', bridge },
        {
          containerId: uniqueName('c'),
          netns: ns.path,
          ifname: 'net1',
          env: {
            FABRIK_CNI_CONFIG: settings,
            FABRIK_CNI_AGENT_TIMEOUT_MS: '1000',
            SECRET_OF_THE_RUNTIME: 'x',
          },
        },
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.out).toMatchObject({
        code: 11,
        msg: expect.stringMatching(/gave no answer \(no answer within 1000 ms\): try again/),
      });
      const request = JSON.parse(silent.received.join('').split('\n')[0] ?? '') as {
        env: Record<string, string>;
      };
      expect(Object.keys(request.env).filter((k) => !k.startsWith('CNI_'))).toEqual(['FABRIK_CNI_CONFIG']);
    } finally {
      await silent.close();
    }
  });

  it('a socket in a directory anyone may write gets nothing: the plugin does the work itself', async () => {
    const dir = join(sb.dir, uniqueName('open'));
    const impostor = await silentAgent(dir);
    await chmod(dir, 0o1777);
    try {
      const settings = await writeNodeSettings(
        sb,
        { ...sandboxSettings(sb, ovs.endpoint), agentHostSocket: impostor.path },
        join(sb.dir, `${uniqueName('s')}.yaml`),
      );
      const r = await execPlugin(
        sb,
        'DEL',
        { cniVersion: '1.0.0', name: uniqueName('im'), type: 'fabrik-ovs', bridge },
        {
          containerId: uniqueName('c'),
          netns: '',
          ifname: 'net1',
          env: { FABRIK_CNI_CONFIG: settings, FABRIK_CNI_LOG_LEVEL: 'debug' },
        },
      );
      expect(r.code, JSON.stringify(r.out)).toBe(0);
      expect(r.stderr).toMatch(
        /DEL done by this process: .*: unavailable: directory .* is writable by group or others/,
      );
      expect(impostor.received).toEqual([]);
    } finally {
      await impostor.close();
    }
  });
});

describe('concurrency', () => {
  it('one attachment’s invocations run in order (a DEL waits for its ADD), other attachments meanwhile', async () => {
    const agent = await sb.startAgent(ovs.endpoint);
    const gate = await createGatedIpam(sb.binDir, uniqueName('gate'));
    await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint, [gate.type]));
    const held = await network(gate.type);
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    const from = agent.logs.length;
    const add = cnitool(sb, 'add', held, ns.path);
    await gate.waiting();
    const del = cnitool(sb, 'del', held, ns.path);
    await agent.waitForLog((l) => l['msg'] === 'cni: received' && l['command'] === 'DEL', {
      what: 'the DEL',
      from,
    });
    // Another attachment is not held up by the one at the gate.
    const other = await netns();
    const free = await network();
    await cnitool(sb, 'add', free, other.path);
    await cnitool(sb, 'del', free, other.path);
    await gate.open();
    const result = JSON.parse(await add) as { interfaces: Array<{ name: string }> };
    expect(result.interfaces.map((i) => i.name)).toContain('net1');
    await del;
    expect(answeredAttachments(from)).toEqual([
      `ADD ${cnitoolContainerId(other.path)}/net1`,
      `DEL ${cnitoolContainerId(other.path)}/net1`,
      `ADD ${cnitoolContainerId(ns.path)}/net1`,
      `DEL ${cnitoolContainerId(ns.path)}/net1`,
    ]);
    // Had the DEL run beside the ADD, the ADD would have finished after it and left the attachment.
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe('OVSDB goes away under agent-host', () => {
  it('an ADD on the held connection is code 11 and changes nothing; once OVSDB is back, ADD succeeds', async () => {
    await sb.startAgent(ovs.endpoint);
    const net = await network();
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    await ovs.stopDb();
    try {
      const r = await execPlugin(
        sb,
        'ADD',
        {
          cniVersion: '1.0.0',
          name: net,
          type: 'fabrik-ovs',
          bridge,
          ipam: { type: 'host-local', subnet: '10.95.0.0/24' },
        },
        { containerId: cnitoolContainerId(ns.path), netns: ns.path, ifname: 'net1' },
      );
      expect(r.out).toMatchObject({ code: 11, msg: expect.stringMatching(/^OVSDB .* is not reachable/) });
    } finally {
      await ovs.startDb();
    }
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
    // The agent's connection comes back by itself (with backoff): this ADD waits for it.
    await writeNodeSettings(sb, {
      ...sandboxSettings(sb, ovs.endpoint),
      timeouts: { ofportTimeoutMs: 30_000, ovsdbTimeoutMs: 60_000 },
    });
    try {
      await cnitool(sb, 'add', net, ns.path);
      await cnitool(sb, 'del', net, ns.path);
    } finally {
      await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint));
    }
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe('the plugin goes away', () => {
  it('in the middle of an ADD (the runtime timed out): agent-host finishes it, the DEL then removes a whole attachment', async () => {
    const agent = await sb.startAgent(ovs.endpoint);
    const gate = await createGatedIpam(sb.binDir, uniqueName('gate'));
    await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint, [gate.type]));
    const net = await network(gate.type);
    const ns = await netns();
    const containerId = cnitoolContainerId(ns.path);
    const probe = { attachments: [{ containerId, ifname: 'net1' }], netns: [ns] };
    const before = await nodeState(sb, ovs, probe);
    const from = agent.logs.length;
    // The plugin's side of the socket, played here so that it can hang up at a known point.
    const request = {
      version: 1,
      env: {
        PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: containerId,
        CNI_NETNS: ns.path,
        CNI_IFNAME: 'net1',
        CNI_PATH: sb.cniPath,
        FABRIK_CNI_CONFIG: sb.settingsPath,
      },
      stdin: JSON.stringify({
        cniVersion: '1.0.0',
        name: net,
        type: 'fabrik-ovs',
        bridge,
        vlan: 100,
        ipam: { type: gate.type, subnet: '10.95.0.0/24', dataDir: sb.ipamDataDir },
      }),
    };
    const socket = createConnection(agent.socket, () => socket.write(`${JSON.stringify(request)}\n`));
    await gate.waiting();
    socket.destroy();
    await gate.open();
    await agent.waitForLog((l) => l['msg'] === 'cni: the plugin went away before the answer', {
      what: 'the finished ADD',
      from,
    });
    expect(answeredByAgent(sb, from)).toEqual(['ADD']);
    const during = await nodeState(sb, ovs, probe);
    expect(during.podLinks.some((l) => l.startsWith('net1 10.95.0.'))).toBe(true);
    expect(during.ovsPorts.length).toBe(before.ovsPorts.length + 1);
    await cnitool(sb, 'del', net, ns.path);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});

describe('agent-host goes away', () => {
  it('kill -9 in the middle of an ADD: the ADD is code 11, the runtime’s DEL leaves nothing behind', async () => {
    await sb.startAgent(ovs.endpoint);
    const gate = await createGatedIpam(sb.binDir, uniqueName('gate'));
    await writeNodeSettings(sb, sandboxSettings(sb, ovs.endpoint, [gate.type]));
    const net = await network(gate.type);
    const ns = await netns();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    const add = cnitool(sb, 'add', net, ns.path).then(
      () => undefined,
      (e: unknown) => e,
    );
    await gate.waiting();
    await sb.agent!.kill();
    const failure = await add;
    expect(isCommandError(failure) && failure.stderr).toMatch(/try again/);
    // The agent is gone: the runtime's DEL is done by the plugin itself.
    await cnitool(sb, 'del', net, ns.path);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
    await gate.open();
  });

  it('restarts between ADD and DEL (SIGTERM, then kill -9 leaving its socket file): the next agent checks and deletes', async () => {
    const ns = await netns();
    const net = await network();
    const probe = {
      attachments: [{ containerId: cnitoolContainerId(ns.path), ifname: 'net1' }],
      netns: [ns],
    };
    const before = await nodeState(sb, ovs, probe);
    let agent = await sb.startAgent(ovs.endpoint);
    await cnitool(sb, 'add', net, ns.path);
    await agent.stop();
    agent = await sb.startAgent(ovs.endpoint);
    await cnitool(sb, 'check', net, ns.path);
    expect(answeredByAgent(sb)).toEqual(['CHECK']);
    await agent.kill();
    expect((await lstat(agent.socket)).isSocket()).toBe(true);
    agent = await sb.startAgent(ovs.endpoint);
    await cnitool(sb, 'del', net, ns.path);
    expect(answeredByAgent(sb)).toEqual(['DEL']);
    expect(await nodeState(sb, ovs, probe)).toEqual(before);
  });
});
