// `npm run apiserver` as the lab runs it: a separate process whose first line is the kubeconfig
// path; SIGUSR1 compacts (410 for older versions), SIGTERM saves and exits, and a new process on the
// same directory and port keeps every object, also after a SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterEach, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../../..');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts the CLI and resolves with the first line it prints and the process. */
async function startCli(
  dir: string,
  port = 0,
): Promise<{ child: ChildProcess; firstLine: string; lines: string[] }> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@fabrik/source',
      '--import',
      'tsx',
      'packages/testkit/src/apiserver/cli.ts',
      '--port',
      String(port),
      '--dir',
      dir,
      '--crds',
      join(import.meta.dirname, '__fixtures__', 'crds'),
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(child);
  const lines: string[] = [];
  const firstLine = await new Promise<string>((resolveLine, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) resolveLine(line);
    });
    child.once('exit', (code) => reject(new Error(`apiserver exited with ${code}`)));
  });
  return { child, firstLine, lines };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null
      ? r(child.exitCode)
      : child.once('exit', (code) => r(code)),
  );
}

it('prints the kubeconfig first, compacts on SIGUSR1 and keeps its objects across SIGTERM and SIGKILL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-cli-'));
  try {
    const first = await startCli(dir);
    expect(first.firstLine).toBe(join(dir, 'kubeconfig'));
    expect(readFileSync(join(dir, 'apiserver.pid'), 'utf8').trim()).toBe(String(first.child.pid));
    const kc = new KubeConfig();
    kc.loadFromFile(first.firstLine);
    const port = Number(new URL(kc.getCurrentCluster()!.server).port);
    const core = kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'kept' }, data: { a: '1' } },
    });

    first.child.kill('SIGUSR1');
    await expect.poll(() => first.lines.includes('apiserver: history compacted')).toBe(true);
    const expired = await new Promise<{ type: string; code?: number }>((resolveEvent, reject) => {
      void new Watch(kc)
        .watch(
          '/api/v1/namespaces/default/configmaps',
          { resourceVersion: created.metadata!.resourceVersion },
          (type, obj: { code?: number }) => resolveEvent({ type, code: obj.code }),
          (err: unknown) => (err ? reject(err as Error) : undefined),
        )
        .catch(reject);
    });
    expect(expired).toEqual({ type: 'ERROR', code: 410 });

    first.child.kill('SIGTERM');
    expect(await exited(first.child)).toBe(0);

    const second = await startCli(dir, port);
    expect((await core.readNamespacedConfigMap({ name: 'kept', namespace: 'default' })).data).toEqual({
      a: '1',
    });
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after-sigterm' } },
    });
    second.child.kill('SIGKILL');
    await exited(second.child);

    await startCli(dir, port);
    const names = (await core.listNamespacedConfigMap({ namespace: 'default' })).items.map(
      (c) => c.metadata!.name,
    );
    expect(names).toEqual(['after-sigterm', 'kept']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
