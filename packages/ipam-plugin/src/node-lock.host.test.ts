// The node lock between fabrik-ipam processes: abstract Unix sockets of the host's network namespace.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lockNames } from './node-lock.js';

const unique = (what: string) => `test-${what}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const far = () => performance.now() + 60_000;

describe('lockNames', () => {
  it('a second taker gets the lock only once the first released it', async () => {
    const name = unique('order');
    const events: string[] = [];
    const first = await lockNames([name], far());
    events.push('first');
    const second = lockNames([name], far()).then((l) => {
      events.push('second');
      return l;
    });
    // Long enough for a broken lock to hand out the name twice.
    await new Promise((r) => setTimeout(r, 300));
    events.push('released');
    first.release();
    const held = await second;
    expect(events).toEqual(['first', 'released', 'second']);
    expect(held.names).toEqual([name]);
    held.release();
  });

  it('takes several names in sorted order, each once', async () => {
    const [a, b] = [unique('a'), unique('b')].sort() as [string, string];
    const held = await lockNames([b, a, b], far());
    expect(held.names).toEqual([a, b]);
    held.release();
  });

  it('goes on without a lock it cannot get by the deadline', async () => {
    const name = unique('deadline');
    const holder = await lockNames([name], far());
    const waiter = await lockNames([name], performance.now() + 200);
    expect(waiter.names).toEqual([]);
    holder.release();
    const after = await lockNames([name], performance.now());
    expect(after.names).toEqual([name]);
    after.release();
  });

  it('a holder that is killed (SIGKILL) lets the next one in', async () => {
    const name = unique('killed');
    const module = fileURLToPath(new URL('./node-lock.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--conditions=@fabrik/source',
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(module)}).then((m) => m.lockNames([${JSON.stringify(name)}], Infinity)).then(() => { console.log('held'); setInterval(() => undefined, 1e9); })`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
    });
    const waiter = lockNames([name], far());
    child.kill('SIGKILL');
    const held = await waiter;
    expect(held.names).toEqual([name]);
    held.release();
  });
});
