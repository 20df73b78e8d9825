import { access, constants, readFile, writeFile } from 'node:fs/promises';
import { CommandError, runCommand, type RunResult } from '../exec/run.js';
import { streamLines, type LineStream } from '../exec/stream.js';
import { NETNS_RUN_DIR } from '../netns/netns.js';
import { parseNetnsTarget, type NetnsTarget } from './names.js';

/**
 * Runs iproute2, bridge and sysctl inside one network namespace. The only module of the netlink
 * layer that starts processes.
 *
 * A named netns uses `ip -n NAME` / `bridge -n NAME` (no extra process). `ip -n` only takes
 * names, so a namespace given by path (CNI's `/proc/PID/ns/net`, `/var/run/netns/cni-...`) is
 * entered with `nsenter --net=PATH` (util-linux) in front of the same argument array; no shell,
 * no bind mount, nothing left behind. sysctls are written the same way (/proc/sys/net shows the
 * namespace of the process that opens it). Where this process's /proc/sys is read-only (a container
 * runtime mounts it so in every unprivileged container: agent-host doing a Pod's attachment in its
 * DaemonSet), through `unshare --mount-proc` as well: a fresh proc mount, private to that one
 * process's new mount namespace, is writable and goes away with the process. Where it is writable
 * (a host process, the CNI plugin), without: the extra process and the copy of the mount table
 * cost every CNI ADD about 5 ms. nsenter --net leaves the mount namespace as it is, so the
 * writability seen here is the one sysctl sees.
 *
 * In the caller's own namespace (an agent in its pod's namespace), sysctls are read and written
 * in this process through /proc/sys, which is that namespace's: a reconcile reads them before and
 * after applying, and a process start is the dearest step of a small reconcile (in the lab's
 * kernel, about half a second under load).
 */
export interface NetnsRunner {
  /** The namespace as given, for messages (`undefined` = the caller's own namespace). */
  readonly netns: string | undefined;
  ip(args: readonly string[], input?: string): Promise<RunResult>;
  bridge(args: readonly string[], input?: string): Promise<RunResult>;
  /**
   * `sysctl -e PATHS` (slash form, `net/ipv4/conf/tr.100/arp_accept`): the values of the paths that
   * exist, one `KEY = VALUE` line each as sysctl prints them (dots and slashes swapped).
   */
  sysctlRead(paths: readonly string[]): Promise<RunResult>;
  /** `sysctl -q -w PATH=VALUE ...`. A failure is a CommandError with sysctl's message. */
  sysctlWrite(assignments: readonly string[]): Promise<void>;
  /** `ip ARGS` as a long-running process whose output lines go to `onLine` (`ip monitor`). */
  ipStream(args: readonly string[], onLine: (line: string) => void): LineStream;
}

export function createRunner(netns?: string): NetnsRunner {
  const target: NetnsTarget | undefined = netns === undefined ? undefined : parseNetnsTarget(netns);
  const argv = (file: 'ip' | 'bridge', args: readonly string[]): [string, string[]] => {
    if (target === undefined) return [file, [...args]];
    if (target.kind === 'name') return [file, ['-n', target.name, ...args]];
    return ['nsenter', [`--net=${target.path}`, file, ...args]];
  };
  const tool = (file: 'ip' | 'bridge', args: readonly string[], input?: string): Promise<RunResult> =>
    runCommand(...argv(file, args), input === undefined ? {} : { input });
  const nsPath =
    target === undefined
      ? undefined
      : target.kind === 'name'
        ? `${NETNS_RUN_DIR}/${target.name}`
        : target.path;
  return {
    netns,
    ip: (args, input) => tool('ip', args, input),
    bridge: (args, input) => tool('bridge', args, input),
    ipStream: (args, onLine) => streamLines(...argv('ip', args), onLine),
    sysctlRead: (paths) => {
      if (nsPath === undefined) return readOwnSysctls(paths);
      return sysctlInNetns(nsPath, ['-e', ...paths]);
    },
    sysctlWrite: async (assignments) => {
      if (nsPath === undefined) await writeOwnSysctls(assignments);
      else await sysctlInNetns(nsPath, ['-q', '-w', ...assignments]);
    },
  };
}

async function sysctlInNetns(nsPath: string, args: readonly string[]): Promise<RunResult> {
  const privateProc = (await procSysWritable()) ? [] : ['unshare', '--mount-proc'];
  return runCommand('nsenter', [`--net=${nsPath}`, ...privateProc, 'sysctl', ...args]);
}

/** A slash-form sysctl path as sysctl prints it: net/ipv4/conf/tr.100/arp_accept -> net.ipv4.conf.tr/100.arp_accept. */
export const sysctlPrintedKey = (path: string): string =>
  path.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));

const errnoOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** `sysctl -e PATHS` in this process's namespace: a path that does not exist is left out. */
async function readOwnSysctls(paths: readonly string[]): Promise<RunResult> {
  const values = await Promise.all(
    paths.map(async (path) => {
      try {
        return `${sysctlPrintedKey(path)} = ${(await readFile(`/proc/sys/${path}`, 'utf8')).trim()}`;
      } catch (e) {
        if (errnoOf(e) === 'ENOENT') return undefined;
        const why = `sysctl: reading key "${sysctlPrintedKey(path)}": ${errnoOf(e) ?? String(e)}`;
        throw new CommandError(['sysctl', '-e', path], 255, why, '');
      }
    }),
  );
  const lines = values.filter((v): v is string => v !== undefined);
  return { stdout: lines.map((l) => `${l}\n`).join(''), stderr: '' };
}

/** `sysctl -q -w PATH=VALUE ...` in this process's namespace, one assignment after another. */
async function writeOwnSysctls(assignments: readonly string[]): Promise<void> {
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=');
    const path = assignment.slice(0, eq);
    try {
      await writeFile(`/proc/sys/${path}`, assignment.slice(eq + 1));
    } catch (e) {
      // Worded as sysctl(8) words them: the error reads as it did when sysctl ran.
      const why =
        errnoOf(e) === 'ENOENT'
          ? `sysctl: cannot stat /proc/sys/${path}: No such file or directory`
          : `sysctl: setting key "${sysctlPrintedKey(path)}": ${errnoOf(e) ?? String(e)}`;
      throw new CommandError(['sysctl', '-q', '-w', assignment], 255, why, '');
    }
  }
}

/** A per-interface sysctl file every network namespace has: where /proc/sys's writability is asked. */
const PROC_SYS_PROBE = '/proc/sys/net/ipv4/conf/all/arp_notify';
let procSysWritableOnce: Promise<boolean> | undefined;

/**
 * Whether this process may write /proc/sys (asked once: a mount does not turn read-only under a
 * running process). A read-only mount answers EROFS; anything else that fails counts as read-only,
 * which only costs the private proc mount.
 */
function procSysWritable(): Promise<boolean> {
  procSysWritableOnce ??= access(PROC_SYS_PROBE, constants.W_OK).then(
    () => true,
    () => false,
  );
  return procSysWritableOnce;
}
