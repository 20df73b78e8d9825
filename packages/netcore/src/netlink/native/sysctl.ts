import { CommandError, isCommandError } from '../../exec/run.js';
import { classifyIpFailure } from '../errors.js';
import { createRunner, sysctlPrintedKey } from '../exec.js';
import { sysctlAssignments, type NumericSysctls } from '../objects.js';
import { ipv4ConfRequest } from './encode-link.js';
import { writeSysctls } from './namespace.js';
import type { NativeSession } from './session.js';

/**
 * Sets a link's managed sysctls in the session's namespace. arp_accept and arp_notify travel as
 * one netlink message (IFLA_INET_CONF): no file, so a read-only /proc/sys (agent-host in its
 * unprivileged DaemonSet container) does not matter. accept_dad has no message: it is written to
 * /proc/sys opened inside the namespace, and where that mount is read-only (EROFS), through
 * `nsenter ... unshare --mount-proc sysctl -w`, a process with a private, writable proc mount.
 */
export async function setSysctls(s: NativeSession, dev: string, sysctls: NumericSysctls): Promise<void> {
  const { acceptDad, ...ipv4 } = sysctls;
  if (ipv4.arpAccept !== undefined || ipv4.arpNotify !== undefined) {
    const text = `sysctl -w ${sysctlAssignments(dev, ipv4).join(' ')}`;
    s.run(text, () => ipv4ConfRequest(dev, ipv4), { linkName: dev });
  }
  if (acceptDad !== undefined) await writeSysctlFiles(s.netns, sysctlAssignments(dev, { acceptDad }));
}

/** Writes sysctl files of `netns` in this process, or through a process where /proc/sys is read-only. */
async function writeSysctlFiles(netns: string | undefined, assignments: readonly string[]): Promise<void> {
  const operation = `sysctl -w ${assignments.join(' ')}`;
  const context = netns === undefined ? {} : { netns };
  try {
    writeSysctls(netns, assignments);
    return;
  } catch (e) {
    const { code, path: file } = e as NodeJS.ErrnoException;
    if (code !== 'EROFS') {
      // Worded as sysctl(8) words it: the error reads as it did when sysctl ran.
      const path = file?.replace(/^\/proc\/sys\//, '') ?? '';
      const why =
        code === 'ENOENT'
          ? `sysctl: cannot stat /proc/sys/${path}: No such file or directory`
          : `sysctl: setting key "${sysctlPrintedKey(path)}": ${code ?? String(e)}`;
      const cause = new CommandError(['sysctl', '-w', ...assignments], 255, why, '');
      throw classifyIpFailure(operation, why, { ...context, cause });
    }
  }
  try {
    await createRunner(netns).sysctlWrite(assignments);
  } catch (e) {
    if (!isCommandError(e)) throw e;
    throw classifyIpFailure(operation, e.stderr, { ...context, cause: e });
  }
}
