import { createHash } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';

// A lock per IPPool among the fabrik-ipam callers of one node: its processes, and agent-host, which
// runs its verbs in-process for the CNI fast path (its own calls take turns the same way).
// Correctness never depends on it: every status write carries the resourceVersion it read, and the API server refuses the loser.
// But a node that starts fifty Pods at once would otherwise have fifty processes read the pool,
// plan the same first free address, and all but one lose the write, read again, and so on: most
// of the requests the API server answers are wasted, and each process waits through backoffs.
// Taking turns on the node, each process reads and writes once.
//
// The lock is a listening Unix socket in the abstract namespace (Linux; no file to clean up):
// whoever binds the name holds the lock, and the kernel releases it when the holder exits, however
// it exits. A waiter connects to the holder and learns of the release when the connection closes.
// It is local to the network namespace the caller runs in: the runtime's, which is the host's, as is
// agent-host's (host network).

/** Locks that are held; `release` is idempotent. */
export interface HeldLock {
  /** The names whose lock is held. */
  readonly names: readonly string[];
  release(): void;
}

/**
 * `@fabrik-ipam/<name>` in `ss -xl` (who waits shows up with `ss -xp`). A socket name has at most
 * 107 bytes: a longer pool name (object names have up to 253) is replaced by its hash.
 */
function socketPath(name: string): string {
  const readable = `fabrik-ipam/${name}`;
  const id =
    Buffer.byteLength(readable) <= 100
      ? readable
      : `fabrik-ipam/#${createHash('sha256').update(name).digest('hex')}`;
  return `\0${id}`;
}

/** Binds the name: the lock, `busy` when another process holds it, `unavailable` when no socket can be made. */
function tryBind(name: string): Promise<HeldLock | 'busy' | 'unavailable'> {
  return new Promise((resolve) => {
    const peers = new Set<Socket>();
    const server: Server = createServer((peer) => {
      peers.add(peer);
      peer.on('error', () => undefined);
      peer.on('close', () => peers.delete(peer));
    });
    server.once('error', (e: NodeJS.ErrnoException) =>
      resolve(e.code === 'EADDRINUSE' ? 'busy' : 'unavailable'),
    );
    server.listen({ path: socketPath(name) }, () => {
      server.unref();
      let released = false;
      resolve({
        names: [name],
        release: () => {
          if (released) return;
          released = true;
          server.close();
          for (const peer of peers) peer.destroy();
        },
      });
    });
  });
}

/** Resolves when the holder of the name lets go (or is gone), or at `deadline` (performance.now()). */
function waitForRelease(name: string, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath(name) });
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, deadline - performance.now()));
    socket.on('error', done);
    socket.on('close', done);
    socket.unref();
  });
}

/**
 * Takes the node lock of every name (in sorted order, so two callers never wait for each other),
 * waiting until `deadline` (a performance.now() time). What could not be taken by then is skipped:
 * the caller goes on without it, as safe and only slower.
 */
export async function lockNames(names: readonly string[], deadline: number): Promise<HeldLock> {
  const held: HeldLock[] = [];
  for (const name of [...new Set(names)].sort()) {
    for (;;) {
      const lock = await tryBind(name);
      if (typeof lock === 'object') {
        held.push(lock);
        break;
      }
      if (lock === 'unavailable' || performance.now() >= deadline) break;
      await waitForRelease(name, deadline);
    }
  }
  return { names: held.flatMap((l) => l.names), release: () => held.forEach((l) => l.release()) };
}

/**
 * Runs `write` holding the node locks of `pools`, waited for at most half of `timeoutMs`; `write`
 * gets what is left of `timeoutMs` (measured from `start`) as its own deadline.
 */
export async function withPoolLocks<T>(
  pools: readonly string[],
  timeoutMs: number,
  start: number,
  write: (deadlineMs: number) => Promise<T>,
): Promise<T> {
  const lock = await lockNames(pools, start + timeoutMs / 2);
  try {
    return await write(Math.max(0, start + timeoutMs - performance.now()));
  } finally {
    lock.release();
  }
}
