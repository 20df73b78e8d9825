import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import { DEFAULT_KERNEL_DIR, runInLab } from './uml.js';

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

/** Prints the kernel the lab says it booted, then the running kernel's release. */
const PRINT_KERNEL = 'echo "kernel: $FABRIK_LAB_KERNEL $(uname -r)"';
const bootedKernel = (output: string) => /^kernel: (.*)$/m.exec(output)?.[1];

describe('runInLab', () => {
  it('runs the command in the lab kernel, streams its output, returns its exit code and leaves nothing behind', async () => {
    let output = '';
    const result = await runInLab({
      command: [
        'sh',
        '-c',
        `${PRINT_KERNEL}; echo "$GREETING"; ip link add red type vrf table 10 && echo vrf-ok; exit 3`,
      ],
      env: { GREETING: 'hello lab' },
      onOutput: (s) => (output += s),
    });
    expect(result.exitCode).toBe(3);
    // FABRIK_LAB_KERNEL names the kernel that booted: tools/ci/lab-kernel.sh's (seccomp mode) where
    // it fetched one (npm test's ensure-deps does), else Debian's 6.1 (ptrace).
    const fetched = await exists(join(DEFAULT_KERNEL_DIR, 'current/linux.uml'));
    expect(bootedKernel(output)).toMatch(fetched ? /^(\S+) \(seccomp\) \1$/ : /^(6\.1\.\S+) \(ptrace\) \1$/);
    expect(output).toContain('hello lab');
    expect(output).toContain('vrf-ok'); // the host kernel has no vrf: this ran in the lab
    expect(output).not.toContain('Powering off'); // boot and shutdown messages are not the command's
    expect(result.stateDir).toMatch(/^\/var\/tmp\/fabrik-lab-/);
    expect(await exists(result.stateDir)).toBe(false);
    expect(await umlProcessesOf(result.stateDir)).toEqual([]);
  }, 120_000);

  it("boots Debian's 6.1 kernel (ptrace mode, with the XSAVE shim) when no fetched kernel is there", async () => {
    let output = '';
    const result = await runInLab({
      command: ['sh', '-c', `${PRINT_KERNEL}; ip link add red type vrf table 10 && echo vrf-ok`],
      kernelDir: '/nonexistent',
      onOutput: (s) => (output += s),
    });
    expect(result.exitCode).toBe(0);
    expect(bootedKernel(output)).toMatch(/^(6\.1\.\S+) \(ptrace\) \1$/);
    expect(output).toContain('vrf-ok');
  }, 120_000);
});
