import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Koffi from 'koffi';
import { FabrikError, errorGuard } from '../../errors.js';

// libc through koffi (an FFI whose npm package carries prebuilt binaries for Linux x64, arm64 and
// musl): the few system calls Node has no binding for. Loaded once per process, on first use,
// never on import; every call is synchronous on the calling thread, which is what makes setns
// safe here (see namespace.ts).

/** koffi or libc cannot be loaded here (an unsupported platform, or koffi not installed). */
export class NativeNetlinkUnavailableError extends FabrikError<'NATIVE_NETLINK_UNAVAILABLE'> {
  override readonly name = 'NativeNetlinkUnavailableError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(
      'NATIVE_NETLINK_UNAVAILABLE',
      `native netlink is unavailable on ${process.platform}/${process.arch}: ${reason}`,
      options,
    );
  }
}
export const isNativeNetlinkUnavailableError = errorGuard(NativeNetlinkUnavailableError);

/** The system calls the backend makes; each returns -1 and leaves `errno()` set on failure. */
export interface Libc {
  socket(domain: number, type: number, protocol: number): number;
  bind(fd: number, addr: Buffer, len: number): number;
  setsockopt(fd: number, level: number, name: number, value: Buffer, len: number): number;
  sendto(fd: number, buf: Buffer, len: number, flags: number, addr: null, addrLen: number): number;
  recv(fd: number, buf: Buffer, len: number, flags: number): number;
  /**
   * Waits on a thread of the pool until `fd` is readable (> 0) or `timeoutMs` passed (0): the
   * monitor's wait for multicast messages. -1 on failure, whose errno stays on that thread.
   */
  pollReadable(fd: number, timeoutMs: number): Promise<number>;
  setns(fd: number, nstype: number): number;
  close(fd: number): number;
  errno(): number;
  strerror(errno: number): string;
}

let loaded: Libc | NativeNetlinkUnavailableError | undefined;
/** The pollfd buffers of poll calls running on the pool (see pollReadable). */
const pollsInFlight = new Set<Buffer>();

/**
 * Loads koffi and libc now (once per process) rather than at the first netlink call: a daemon
 * calls it at start-up so that an unsupported platform is said then, not at the first Pod.
 * Throws NativeNetlinkUnavailableError.
 */
export function loadNativeNetlink(): void {
  libc();
}

/** libc's bindings, loaded once; NativeNetlinkUnavailableError (the same one each time) when they cannot be. */
export function libc(): Libc {
  loaded ??= load();
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

function load(): Libc | NativeNetlinkUnavailableError {
  if (process.platform !== 'linux')
    return new NativeNetlinkUnavailableError('rtnetlink exists on Linux only');
  let koffi: typeof Koffi;
  try {
    koffi = loadKoffi();
  } catch (e) {
    return new NativeNetlinkUnavailableError(
      `the koffi package (a dependency of @fabrik/netcore) cannot be loaded: ${(e as Error).message}`,
      { cause: e },
    );
  }
  try {
    // glibc's soname; musl's libc answers to the same functions under its own name.
    const lib = openLibc(koffi);
    const poll = lib.func('int poll(_Inout_ void *, unsigned long, int)');
    return {
      socket: lib.func('int socket(int, int, int)'),
      bind: lib.func('int bind(int, const void *, uint32_t)'),
      setsockopt: lib.func('int setsockopt(int, int, int, const void *, uint32_t)'),
      sendto: lib.func('intptr_t sendto(int, const void *, size_t, int, const void *, uint32_t)'),
      recv: lib.func('intptr_t recv(int, _Out_ void *, size_t, int)'),
      pollReadable: (fd, timeoutMs) =>
        new Promise((resolve, reject) => {
          // struct pollfd { int fd; short events = POLLIN; short revents; }
          const pollfd = Buffer.alloc(8);
          pollfd.writeInt32LE(fd, 0);
          pollfd.writeInt16LE(1, 4);
          // The pool thread writes revents into this buffer after the call returned here: held
          // until the callback, or the collector may reuse its memory under the kernel's write.
          pollsInFlight.add(pollfd);
          poll.async(pollfd, 1, timeoutMs, (err: unknown, n: number) => {
            pollsInFlight.delete(pollfd);
            if (err) reject(err);
            else resolve(n);
          });
        }),
      setns: lib.func('int setns(int, int)'),
      close: lib.func('int close(int)'),
      errno: () => koffi.errno(),
      strerror: lib.func('const char *strerror(int)'),
    };
  } catch (e) {
    return new NativeNetlinkUnavailableError(`libc cannot be bound: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * koffi's native module, taken straight from its prebuilt package when it is there, else through
 * koffi's own loader. The loader finds the same file, but first reads Node's ELF header to tell
 * glibc from musl and wraps the module for deprecated names: measured here (load 17-28, fresh
 * processes alternated) `require('koffi')` 41-230 ms against 4-34 ms for this, binding libc
 * included, paid by every process that makes a netlink call (the standalone CNI plugin: every
 * call). The binary exports what this module uses (load, func, errno) under the same names.
 */
function loadKoffi(): typeof Koffi {
  const require = createRequire(import.meta.url);
  try {
    const loader = require.resolve('koffi');
    const { version } = JSON.parse(readFileSync(join(dirname(loader), 'package.json'), 'utf8')) as {
      version: string;
    };
    const prebuilt = createRequire(loader).resolve(
      `@koromix/koffi-${process.platform}-${process.arch}/package.json`,
    );
    const dir = prebuilt.slice(0, -'package.json'.length);
    // glibc's build first; musl's (Alpine) when glibc's cannot be loaded.
    for (const libcName of [process.platform, 'musl'])
      try {
        const native = require(`${dir}${libcName}_${process.arch}/koffi.node`) as typeof Koffi & {
          version?: string;
        };
        if (native.version === version) return native;
      } catch {
        // the other build, or koffi's loader
      }
  } catch {
    // no prebuilt package here: koffi's loader says why
  }
  return require('koffi') as typeof Koffi;
}

function openLibc(koffi: typeof Koffi): ReturnType<typeof koffi.load> {
  try {
    return koffi.load('libc.so.6');
  } catch {
    return koffi.load(`/lib/ld-musl-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}.so.1`);
  }
}
