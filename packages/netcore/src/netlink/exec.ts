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
 * namespace of the process that opens it), through `unshare --mount-proc`: a container runtime
 * mounts /proc/sys read-only in every unprivileged container (agent-host doing a Pod's attachment
 * in its DaemonSet), and a fresh proc mount, private to that one process's new mount namespace, is
 * writable; it goes away with the process.
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
    sysctl: (args) =>
      nsPath === undefined
        ? runCommand('sysctl', args)
        : runCommand('nsenter', [`--net=${nsPath}`, 'unshare', '--mount-proc', 'sysctl', ...args]),
  };
}
