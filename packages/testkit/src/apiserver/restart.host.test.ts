// stop()/restart() while clients keep re-opening watches (as informers do): every restart ends
// (no connection that slipped in during the stop keeps the port), and objects and
// resourceVersions survive it.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startApiServer } from './server.js';

it('restarts promptly under reconnecting watches and keeps objects and versions', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-restart-'));
  const server = await startApiServer({ dir, crdDirs: [] });
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });
  const headers = { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' };
  let running = true;
  let watchesOpened = 0;
  const reconnectingWatch = async (): Promise<void> => {
    while (running) {
      await new Promise<void>((resolve) => {
        const req = request(
          `${server.url}/api/v1/namespaces/default/configmaps?watch=true`,
          { agent, headers },
          (res) => {
            watchesOpened++;
            res.resume();
            res.on('close', resolve);
          },
        );
        req.on('error', () => resolve());
        req.end();
      });
    }
  };
  const call = (method: string, path: string, body?: object) =>
    new Promise<{ metadata: { name: string; resourceVersion: string } }>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { agent, headers, method }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve(JSON.parse(text) as { metadata: { name: string; resourceVersion: string } }),
        );
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const post = (name: string) =>
    call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } });
  const watchers = [reconnectingWatch(), reconnectingWatch(), reconnectingWatch()];
  try {
    const before = await post('before-restarts');
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 5 + (i % 5) * 4));
      const hung = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`restart ${i} did not finish`)), 5000),
      );
      await Promise.race([server.restart(), hung]);
    }
    const after = await post('after-restarts');
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    const kept = await call('GET', '/api/v1/namespaces/default/configmaps/before-restarts');
    expect(kept.metadata).toMatchObject({
      name: 'before-restarts',
      resourceVersion: before.metadata.resourceVersion,
    });
    expect(watchesOpened).toBeGreaterThan(0);
  } finally {
    running = false;
    await server.stop();
    await Promise.all(watchers);
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
});
