import { randomBytes } from 'node:crypto';
import { netnsAdd, netnsDel, netnsPath, runInNetns, runCommand, type RunResult } from '@fabrik/netcore';

/** A network namespace that exists only for one test. */
export interface TempNetns {
  readonly name: string;
  /** /run/netns/NAME, for tools that take a path (CNI_NETNS). */
  readonly path: string;
  /** Runs a program inside the namespace (no shell). */
  exec(file: string, args: readonly string[], input?: string): Promise<RunResult>;
  /** `ip -n NAME ARGS...` */
  ip(...args: string[]): Promise<string>;
  /** Deletes the namespace and every interface in it; safe to call twice. */
  destroy(): Promise<void>;
}

/** A short random name: namespace names end up in interface names and FRR pathspaces. */
export const uniqueName = (prefix: string): string => `${prefix}${randomBytes(3).toString('hex')}`;

/**
 * Creates `fabrik-test-<random>` (or `<prefix><random>`) with loopback up. Pair it with
 * `onTestFinished(() => ns.destroy())` or use {@link withTempNetns}.
 */
export async function createTempNetns(prefix = 'fabrik-test-'): Promise<TempNetns> {
  const name = uniqueName(prefix);
  await netnsAdd(name);
  let destroyed = false;
  const ns: TempNetns = {
    name,
    path: netnsPath(name),
    exec: (file, args, input) => runInNetns(name, file, args, input === undefined ? {} : { input }),
    ip: async (...args) => (await runCommand('ip', ['-n', name, ...args])).stdout,
    destroy: async () => {
      if (destroyed) return;
      destroyed = true;
      await netnsDel(name);
    },
  };
  await ns.ip('link', 'set', 'lo', 'up');
  return ns;
}

/** Runs `fn` with a fresh namespace and always deletes it afterwards, even when `fn` throws. */
export async function withTempNetns<T>(fn: (ns: TempNetns) => Promise<T>, prefix?: string): Promise<T> {
  const ns = await createTempNetns(prefix);
  try {
    return await fn(ns);
  } finally {
    await ns.destroy();
  }
}
