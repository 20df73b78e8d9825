import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { NETNS_RUN_DIR } from '../../netns/netns.js';
import { parseNetnsTarget } from '../names.js';
import { CLONE_NEWNET } from './constants.js';
import { libc } from './libc.js';
import { NetlinkSocket, systemError } from './socket.js';

// Entering another network namespace from Node: setns(2) moves only the calling thread, and a
// socket keeps the namespace it was created in. So the thread enters the namespace, creates what
// must belong to it (a netlink socket, an open /proc/sys file), and returns, all in one
// synchronous call: no JavaScript of anyone else runs in between, and libuv's pool threads never
// leave the original namespace. Measured here against a worker thread that would live in the
// namespace: setns there and back 0.09 ms, a socket opened in the namespace 0.21 ms, a worker's
// start and exit 88 ms (before it has loaded any module): per call, the switch wins.

/** The path of the netns file `netns` (a name under /run/netns, or a path) designates. */
export function netnsFilePath(netns: string): string {
  const t = parseNetnsTarget(netns);
  return t.kind === 'name' ? `${NETNS_RUN_DIR}/${t.name}` : t.path;
}

/**
 * Runs `fn` synchronously with the calling thread inside the namespace `netns` (name or path),
 * then returns the thread to the namespace it was in, whatever `fn` did. If the way back fails the
 * thread would keep working in a foreign namespace: the process aborts rather than go on.
 */
export function inNetns<T>(netns: string | undefined, fn: () => T): T {
  if (netns === undefined) return fn();
  const c = libc();
  const home = openSync('/proc/thread-self/ns/net', 'r');
  try {
    const target = openSync(netnsFilePath(netns), 'r');
    try {
      if (c.setns(target, CLONE_NEWNET) < 0) throw systemError(c, `setns(${netns})`);
    } finally {
      closeSync(target);
    }
    try {
      return fn();
    } finally {
      if (c.setns(home, CLONE_NEWNET) < 0) {
        process.stderr.write(`fatal: ${systemError(c, 'setns(back to the original namespace)').message}\n`);
        process.abort();
      }
    }
  } finally {
    closeSync(home);
  }
}

/**
 * Writes sysctls (`net/ipv4/conf/eth1/arp_notify=1`, slash form) of the namespace `netns`:
 * /proc/sys/net shows the namespace of the thread that opens the file, so each file is opened
 * inside it (and written there: a write is cheap).
 */
export function writeSysctls(netns: string | undefined, assignments: readonly string[]): void {
  inNetns(netns, () => {
    for (const assignment of assignments) {
      const eq = assignment.indexOf('=');
      writeFileSync(`/proc/sys/${assignment.slice(0, eq)}`, assignment.slice(eq + 1));
    }
  });
}

/** Reads sysctl values (slash form) of the namespace `netns`; a path that does not exist is left out. */
export function readSysctls(netns: string | undefined, paths: readonly string[]): Map<string, string> {
  return inNetns(netns, () => {
    const out = new Map<string, string>();
    for (const path of paths) {
      try {
        out.set(path, readFileSync(`/proc/sys/${path}`, 'utf8').trim());
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return out;
  });
}

/** A NETLINK_ROUTE socket of the namespace `netns` (default: the calling thread's own). */
export const openSocketIn = (netns: string | undefined, groups = 0): NetlinkSocket =>
  inNetns(netns, () => NetlinkSocket.open(groups));
