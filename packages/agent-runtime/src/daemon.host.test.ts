import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sourceCommand, until } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeIntentFile } from './file-source.js';

// The runtime as a real process (test/fixture-agent.ts): config from a file and the environment,
// the file source, one log line per reconcile, metrics, health, readiness, retries, SIGTERM.

const FIXTURE = new URL('../test/fixture-agent.ts', import.meta.url).pathname;
const object = (name: string) => ({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name } });

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('a daemon built on the runtime, as a process', () => {
  let dir: string;
  let child: ChildProcess;
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let health = '';
  let metrics = '';
  const files = () => ({
    intent: join(dir, 'relay', 'intent.yaml'),
    dataPlane: join(dir, 'dataplane.json'),
    status: join(dir, 'status.json'),
  });
  const dataPlane = async () => JSON.parse(await readFile(files().dataPlane, 'utf8')) as string[];
  const get = async (addr: string, path: string) => {
    const r = await fetch(`http://${addr}${path}`);
    return { status: r.status, body: await r.text() };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fabrik-daemon-'));
    health = `127.0.0.1:${await freePort()}`;
    metrics = `127.0.0.1:${await freePort()}`;
    const config = join(dir, 'agent.yaml');
    await mkdir(join(dir, 'relay')); // the shared directory exists; the file does not yet
    const f = files();
    await writeFile(
      config,
      [
        `intentFile: ${f.intent}`,
        `dataPlaneFile: ${f.dataPlane}`,
        `statusFile: ${f.status}`,
        `healthAddress: ${health}`,
        `metricsAddress: ${metrics}`,
      ].join('\n'),
    );
    const [node, ...args] = sourceCommand(FIXTURE, 'run', '--config', config);
    child = spawn(node, args, {
      env: { ...process.env, NODE_NAME: 'node-1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    child.stdout!.on('data', (b: Buffer) => {
      const lines = (partial + b.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) logs.push(JSON.parse(l));
    });
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    await until('the health endpoint', async () =>
      (await get(health, '/healthz')).status === 200 ? true : undefined,
    );
  });
  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('is not ready while the intent file does not exist, and applies nothing', async () => {
    const r = await get(health, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toContain('intent source not synced');
    await expect(readFile(files().dataPlane)).rejects.toThrow(/ENOENT/);
  });

  it('applies the intent once the file appears, logs one line per reconcile, becomes ready', async () => {
    const t0 = performance.now();
    await writeIntentFile(files().intent, [object('a'), object('b')]);
    await until('the data plane', async () => ((await dataPlane()).length === 2 ? true : undefined));
    console.log(`daemon: change applied ${Math.round(performance.now() - t0)} ms after the file write`);
    expect(await dataPlane()).toEqual(['a', 'b']);
    await until('ready', async () => ((await get(health, '/readyz')).status === 200 ? true : undefined));
    const line = logs.find((l) => l.msg === 'reconciled');
    expect(line).toMatchObject({ name: 'fixture-agent', result: 'success', objects: 2, reconcile: 1 });
    expect(line?.trigger).toContain('intent file');
    expect(typeof line?.durationMs).toBe('number');
    const scraped = (await get(metrics, '/metrics')).body;
    expect(scraped).toMatch(/fixture_agent_reconciles_total\{result="success"\} [1-9]/);
    expect(scraped).toContain('fixture_agent_reconcile_duration_seconds_bucket');
  });

  it('coalesces changes made during a slow reconcile into one more run', async () => {
    const before = logs.filter((l) => l.msg === 'reconciled').length;
    await writeIntentFile(files().intent, [object('slow')]);
    await new Promise((r) => setTimeout(r, 200)); // the slow reconcile (1 s) is running now
    for (const n of ['c', 'd', 'e']) await writeIntentFile(files().intent, [object(n)]);
    await until('the last change', async () => ((await dataPlane())[0] === 'e' ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    const runs = logs.filter((l) => l.msg === 'reconciled').slice(before);
    // The slow run, then one run that saw c, d and e together (possibly one more for the last
    // rename if it landed after that run read the file), never one per write.
    expect(runs.length).toBeLessThanOrEqual(3);
    expect(await dataPlane()).toEqual(['e']);
  });

  it('retries a failing reconcile with backoff and is not ready meanwhile; recovers when fixed', async () => {
    await writeIntentFile(files().intent, [object('fail')]);
    await until('two failed reconciles', async () =>
      logs.filter((l) => l.msg === 'reconcile failed').length >= 2 ? true : undefined,
    );
    const failed = logs.filter((l) => l.msg === 'reconcile failed');
    expect(failed[1]?.trigger).toMatch(/^retry \d/);
    const r = await get(health, '/readyz');
    expect(r).toEqual({ status: 503, body: 'last reconcile failed: object fail fails\n' });
    await writeIntentFile(files().intent, [object('ok'), object('bad')]);
    // invalid input is reported, not retried, and does not make the node unready
    await until('ready again', async () =>
      (await get(health, '/readyz')).status === 200 ? true : undefined,
    );
    expect(await dataPlane()).toEqual(['ok', 'bad']);
    expect(logs.some((l) => l.result === 'invalid' && l.message === 'bad: spec.x: refused')).toBe(true);
  });

  it('reconciles at once on SIGHUP, and keeps running', async () => {
    const before = logs.length;
    child.kill('SIGHUP');
    const line = await until('the SIGHUP reconcile', async () =>
      logs.slice(before).find((l) => l.msg === 'reconciled' && String(l.trigger).includes('SIGHUP')),
    );
    expect(line?.reconcile).toEqual(expect.any(Number));
    // Without a handler, SIGHUP ends a Node process.
    await new Promise((r) => setTimeout(r, 200));
    expect(child.exitCode).toBeNull();
  });

  it('stops on SIGTERM with exit code 0, leaving the data plane as it is', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await dataPlane()).toEqual(['ok', 'bad']);
    expect(logs.at(-1)?.msg).toBe('stopped; the data plane is left as it is');
    expect(stderr).toBe('');
  });
});
