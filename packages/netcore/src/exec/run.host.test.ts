import { describe, expect, it } from 'vitest';
import { isCommandError, runCommand } from './run.js';

/** Whether a process `pid` exists (a zombie counts as gone: it runs nothing). */
async function alive(pid: number): Promise<boolean> {
  try {
    const { readFile } = await import('node:fs/promises');
    return !/^State:\s+Z/m.test(await readFile(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('runCommand', () => {
  it('returns output of megabytes whole, characters split across pipe reads included', async () => {
    // '€' is 3 bytes: the pipe's 64 KiB reads cut some of the 400 000 of them in two.
    const text = '€'.repeat(400_000);
    const { stdout } = await runCommand('cat', [], { input: text });
    expect(stdout.length).toBe(text.length);
    expect(stdout).toBe(text);
  });

  it('rejects with the exit code and both outputs when the command fails', async () => {
    const script = "process.stdout.write('out\\n'); process.stderr.write('err\\n'); process.exitCode = 3";
    const error = await runCommand(process.execPath, ['-e', script]).catch((e: unknown) => e);
    expect(isCommandError(error)).toBe(true);
    expect(error).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
  });

  describe('processGroup', () => {
    // A child that starts a grandchild which inherits its output and outlives it, and says its pid.
    const forker = (then: string) => `sleep 600 & echo $! >&2; ${then}`;

    it('at the deadline kills the child and what it started, and returns in time', async () => {
      const started = Date.now();
      const error = await runCommand('sh', ['-c', forker('sleep 600')], {
        timeoutMs: 300,
        processGroup: true,
      }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(error).toMatchObject({ signal: 'SIGKILL' });
      const grandchild = Number((error as { stderr: string }).stderr.trim());
      expect(grandchild).toBeGreaterThan(0);
      expect(await alive(grandchild)).toBe(false);
    });

    it('when the child exits, kills what it left running, and returns its output', async () => {
      const started = Date.now();
      const r = await runCommand('sh', ['-c', forker('echo done')], {
        timeoutMs: 30_000,
        processGroup: true,
      });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(r.stdout).toBe('done\n');
      expect(await alive(Number(r.stderr.trim()))).toBe(false);
    });
  });
});
