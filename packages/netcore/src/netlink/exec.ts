import { access, constants } from 'node:fs/promises';
import { runCommand, type RunResult } from '../exec/run.js';
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
 */
export interface NetnsRunner {
  /** The namespace as given, for messages (`undefined` = the caller's own namespace). */
  readonly netns: string | undefined;
  ip(args: readonly string[], input?: string): Promise<RunResult>;
  bridge(args: readonly string[], input?: string): Promise<RunResult>;
  sysctl(args: readonly string[]): Promise<RunResult>;
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
    sysctl: async (args) => {
      if (nsPath === undefined) return runCommand('sysctl', args);
      const privateProc = (await procSysWritable()) ? [] : ['unshare', '--mount-proc'];
      return runCommand('nsenter', [`--net=${nsPath}`, ...privateProc, 'sysctl', ...args]);
    },
  };
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
