// CNI runtimes for tests: a plugin executed as a runtime executes it (CNI_* environment, config on
// stdin), and libcni's cnitool (tools/cnitool, built by tools/ci/ensure-deps.sh).
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCommandError, runCommand } from '@fabrik/netcore';

/** libcni's cnitool as ensure-deps builds it (spec versions up to 1.0.0; ADD, CHECK, DEL). */
export const CNITOOL = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../node_modules/.cache/fabrik/cnitool',
);
/** Debian's reference plugins (bridge, host-local, static, ...). */
export const DEBIAN_CNI_DIR = '/usr/lib/cni';

const PATH = process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin';

export interface CniExecOptions {
  readonly containerId?: string;
  readonly netns?: string;
  readonly ifname?: string;
  readonly args?: string;
  /** CNI_PATH (directories joined with ':'). */
  readonly path: string;
  /** More environment; the plugin gets nothing else but PATH. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the plugin after this long (default 60 s): the call then fails with code -1. */
  readonly timeoutMs?: number;
}

export interface CniExecResult {
  /** The exit status: 0, 1 for a CNI error, -1 when killed. */
  readonly code: number;
  /** stdout as JSON: the result, the error object, or undefined when empty. */
  readonly out: Record<string, unknown> | undefined;
  readonly stderr: string;
}

/** Executes a plugin as a runtime would: CNI_COMMAND and the other CNI_* variables, `conf` on stdin. */
export async function execCniPlugin(
  binary: string,
  command: string,
  conf: unknown,
  options: CniExecOptions,
): Promise<CniExecResult> {
  const env: Record<string, string> = {
    PATH,
    CNI_COMMAND: command,
    CNI_PATH: options.path,
    ...(options.containerId !== undefined ? { CNI_CONTAINERID: options.containerId } : {}),
    ...(options.netns !== undefined ? { CNI_NETNS: options.netns } : {}),
    ...(options.ifname !== undefined ? { CNI_IFNAME: options.ifname } : {}),
    ...(options.args !== undefined ? { CNI_ARGS: options.args } : {}),
    ...options.env,
  };
  const input = typeof conf === 'string' ? conf : JSON.stringify(conf);
  try {
    const r = await runCommand(binary, [], {
      input,
      env,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    return { code: 0, out: parseOut(r.stdout), stderr: r.stderr };
  } catch (e) {
    if (!isCommandError(e)) throw e;
    return { code: e.exitCode ?? -1, out: parseOut(e.stdout), stderr: e.stderr };
  }
}

const parseOut = (stdout: string): Record<string, unknown> | undefined =>
  stdout ? (JSON.parse(stdout) as Record<string, unknown>) : undefined;

export interface CnitoolOptions {
  /** NETCONFPATH: where `<net>.conflist` is. */
  readonly confDir: string;
  /** CNI_PATH (directories joined with ':'). */
  readonly path: string;
  /** CNITOOL_CACHE: libcni's result cache. */
  readonly cacheDir: string;
  /** CNI_IFNAME, default net1. */
  readonly ifname?: string;
  readonly args?: string;
  /** CAP_ARGS: the runtimeConfig capabilities (mac, ips, ...). */
  readonly capArgs?: unknown;
  /** More environment, passed on to the plugins. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill cnitool after this long (default 60 s). */
  readonly timeoutMs?: number;
  /** Called with cnitool's stderr (the plugins' notes pass through it), whether it succeeded or not. */
  readonly onStderr?: (stderr: string) => void;
}

/**
 * Runs libcni's cnitool (`add|check|del NET NETNS`), the library containerd, CRI-O, podman and
 * Multus use; resolves with stdout (ADD's result), rejects with the CommandError (libcni prints the
 * plugin's error).
 */
export async function cnitool(
  verb: 'add' | 'check' | 'del',
  net: string,
  netnsPath: string,
  options: CnitoolOptions,
): Promise<string> {
  const env: Record<string, string> = {
    PATH,
    NETCONFPATH: options.confDir,
    CNI_PATH: options.path,
    CNITOOL_CACHE: options.cacheDir,
    CNI_IFNAME: options.ifname ?? 'net1',
    ...(options.args ? { CNI_ARGS: options.args } : {}),
    ...(options.capArgs ? { CAP_ARGS: JSON.stringify(options.capArgs) } : {}),
    ...options.env,
  };
  try {
    const r = await runCommand(CNITOOL, [verb, net, netnsPath], {
      env,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    options.onStderr?.(r.stderr);
    return r.stdout;
  } catch (e) {
    if (isCommandError(e)) options.onStderr?.(e.stderr);
    throw e;
  }
}

/** The container id cnitool gives an attachment: derived from the netns path (libcni's cnitool). */
export function cnitoolContainerId(netnsPath: string): string {
  return `cnitool-${createHash('sha512').update(netnsPath).digest('hex')}`.slice(0, 36);
}
