import { runCommand, type RunResult } from '../exec/run.js';
import { NETNS_RUN_DIR } from '../netns/netns.js';
import { parseNetnsTarget, type NetnsTarget } from './names.js';

/**
 * Runs iproute2, bridge and sysctl inside one network namespace. The only module of the netlink
 * layer that starts processes.
 *
 * A named netns uses `ip -n NAME` / `bridge -n NAME` (no extra process). `ip -n` only takes
 * names, so a namespace given by path (CNI's `/proc/PID/ns/net`, `/var/run/netns/cni-...`) is
 * entered with `nsenter --net=PATH` (util-linux) in front of the same argument array; no shell,
 * no bind mount, nothing left behind. sysctls are written the same way: /proc/sys/net shows the
 * namespace of the process that opens it.
 */
export interface NetnsRunner {
  /** The namespace as given, for messages (`undefined` = the caller's own namespace). */
  readonly netns: string | undefined;
  ip(args: readonly string[], input?: string): Promise<RunResult>;
  bridge(args: readonly string[], input?: string): Promise<RunResult>;
  sysctl(args: readonly string[]): Promise<RunResult>;
}

export function createRunner(netns?: string): NetnsRunner {
  const target: NetnsTarget | undefined = netns === undefined ? undefined : parseNetnsTarget(netns);
  const tool = (file: 'ip' | 'bridge', args: readonly string[], input?: string): Promise<RunResult> => {
    const options = input === undefined ? {} : { input };
    if (target === undefined) return runCommand(file, args, options);
    if (target.kind === 'name') return runCommand(file, ['-n', target.name, ...args], options);
    return runCommand('nsenter', [`--net=${target.path}`, file, ...args], options);
  };
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
    sysctl: (args) =>
      nsPath === undefined
        ? runCommand('sysctl', args)
        : runCommand('nsenter', [`--net=${nsPath}`, 'sysctl', ...args]),
  };
}
