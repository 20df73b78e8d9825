import { describe, expect, it } from 'vitest';
import { isCommandError, runCommand } from './run.js';

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
});
