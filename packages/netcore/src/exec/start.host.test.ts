import { describe, expect, it } from 'vitest';
import { isCommandNotFoundError } from './run.js';
import { startCommand } from './start.js';

describe('startCommand', () => {
  it('streams the output of a running command and reports how it exited', async () => {
    const chunks: string[] = [];
    const started = startCommand('printf', ['a\\nb\\n'], { onOutput: (text) => chunks.push(text) });
    expect(await started.exited).toEqual({ exitCode: 0, signal: null });
    expect(chunks.join('')).toBe('a\nb\n');
  });

  it('kills the whole process group of a command started in its own', async () => {
    const started = startCommand('sleep', ['60'], { ownProcessGroup: true });
    started.kill('SIGKILL');
    expect(await started.exited).toEqual({ exitCode: null, signal: 'SIGKILL' });
    started.kill('SIGKILL'); // gone: a no-op
  });

  it('rejects with CommandNotFoundError for a program that does not exist', async () => {
    const err = await startCommand('fabrik-no-such-program', []).exited.catch((e: unknown) => e);
    expect(isCommandNotFoundError(err)).toBe(true);
  });
});
