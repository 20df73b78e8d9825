import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import { runInLab } from './uml.js';

const labStateDirs = async () => (await readdir('/var/tmp')).filter((d) => d.startsWith('fabrik-lab-'));
const umlProcesses = async () => {
  const { stdout } = await runCommand('ps', ['-eo', 'comm']);
  return stdout.split('\n').filter((c) => c.trim() === 'linux.uml');
};

describe('runInLab', () => {
  it('runs the command in the lab kernel, streams its output, returns its exit code and leaves nothing behind', async () => {
    const before = await labStateDirs();
    let output = '';
    const result = await runInLab({
      command: [
        'sh',
        '-c',
        'uname -r; echo "$GREETING"; ip link add red type vrf table 10 && echo vrf-ok; exit 3',
      ],
      env: { GREETING: 'hello lab' },
      onOutput: (s) => (output += s),
    });
    expect(result.exitCode).toBe(3);
    expect(output).toMatch(/^6\.1\./m);
    expect(output).toContain('hello lab');
    expect(output).toContain('vrf-ok'); // the host kernel has no vrf: this ran in the lab
    expect(output).not.toContain('Powering off'); // boot and shutdown messages are not the command's
    expect(await labStateDirs()).toEqual(before);
    expect(await umlProcesses()).toEqual([]);
  }, 120_000);
});
