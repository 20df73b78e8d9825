import { CommandError, isCommandError } from '../../exec/run.js';
import { classifyIpFailure } from '../errors.js';
import { createRunner } from '../exec.js';
import { sysctlPrintedKey } from '../exec.js';
import { writeSysctls } from './namespace.js';

/**
 * Writes sysctls of `netns` in this process (the file opened inside the namespace, see
 * namespace.ts). Where this process's /proc/sys is mounted read-only (agent-host in its
 * unprivileged DaemonSet container) the write fails with EROFS: then `nsenter ... unshare
 * --mount-proc sysctl -w`, a process with a private, writable proc mount, as before. Failures are
 * worded as sysctl(8) words them and typed as iproute2's were (KernelRejectedError naming `sysctl -w ...`).
 */
export async function writeSysctlsOrFallBack(
  netns: string | undefined,
  assignments: readonly string[],
): Promise<void> {
  const operation = `sysctl -w ${assignments.join(' ')}`;
  try {
    writeSysctls(netns, assignments);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EROFS') {
      const path = (e as NodeJS.ErrnoException).path?.replace(/^\/proc\/sys\//, '') ?? '';
      const why =
        code === 'ENOENT'
          ? `sysctl: cannot stat /proc/sys/${path}: No such file or directory`
          : `sysctl: setting key "${sysctlPrintedKey(path)}": ${code ?? String(e)}`;
      throw classifyIpFailure(operation, why, {
        ...(netns === undefined ? {} : { netns }),
        cause: new CommandError(['sysctl', '-w', ...assignments], 255, why, ''),
      });
    }
  }
  try {
    await createRunner(netns).sysctlWrite(assignments);
  } catch (e) {
    if (!isCommandError(e)) throw e;
    throw classifyIpFailure(operation, e.stderr, { ...(netns === undefined ? {} : { netns }), cause: e });
  }
}
