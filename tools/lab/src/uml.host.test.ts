import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import { runInLab } from './uml.js';

// Other labs may run on this machine at the same time (other test files, other checkouts): look
// only for what belongs to this run, found through its state directory.
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
const umlProcessesOf = async (stateDir: string) => {
  const { stdout } = await runCommand('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((a) => a.includes('linux.uml') && a.includes(`init=${stateDir}/`));
};

describe('runInLab', () => {
  it('runs the command in the lab kernel, streams its output, returns its exit code and leaves nothing behind', async () => {
    let output = '';
    const result = await runInLab({
      command: [
        'sh',
        '-c',
        'echo "uname=$(uname -r) kernel=$FABRIK_LAB_KERNEL"; echo "$GREETING"; ip link add red type vrf table 10 && echo vrf-ok; exit 3',
      ],
      env: { GREETING: 'hello lab' },
      onOutput: (s) => (output += s),
    });
    expect(result.exitCode).toBe(3);
    // FABRIK_LAB_KERNEL names the kernel that booted: tools/ci/lab-kernel.sh's (seccomp mode) where
    // it fetched one, else Debian's 6.1 (ptrace).
    const [, uname, kernel] = /^uname=(\S+) kernel=(.*)$/m.exec(output) ?? [];
    const fetched = await exists(
      join(process.env['FABRIK_LAB_KERNEL_DIR'] ?? '/var/cache/fabrik/lab-kernel', 'current/linux.uml'),
    );
    expect(kernel).toBe(`${uname} (${fetched ? 'seccomp' : 'ptrace'})`);
    if (!fetched) expect(uname).toMatch(/^6\.1\./);
    expect(output).toContain('hello lab');
    expect(output).toContain('vrf-ok'); // the host kernel has no vrf: this ran in the lab
    expect(output).not.toContain('Powering off'); // boot and shutdown messages are not the command's
    expect(result.stateDir).toMatch(/^\/var\/tmp\/fabrik-lab-/);
    expect(await exists(result.stateDir)).toBe(false);
    expect(await umlProcessesOf(result.stateDir)).toEqual([]);
  }, 120_000);
});
