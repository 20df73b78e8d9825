import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, startCommand } from '@fabrik/netcore';
import { LabCrashedError, LabModuleError, LabUnavailableError } from './errors.js';

/** Kernel modules every lab boot loads; the host kernel here lacks the first three. */
export const LAB_MODULES = [
  'vrf',
  '8021q',
  'dummy',
  'vxlan',
  'bridge',
  'veth',
  'macvlan',
  'openvswitch',
  'tun',
] as const;

export interface RunInLabOptions {
  /** The program and its arguments, run inside the lab kernel (no shell). */
  readonly command: readonly string[];
  /** Working directory inside the lab (this machine's filesystem is the lab's root). Default: cwd. */
  readonly cwd?: string;
  /** Extra environment for the command. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the lab after this long. Default: 30 minutes. */
  readonly timeoutMs?: number;
  /** Memory of the lab kernel in MiB. Default: 3072. */
  readonly memoryMiB?: number;
  /**
   * Where tools/ci/lab-kernel.sh put the faster kernel. Default: `FABRIK_LAB_KERNEL_DIR`, else
   * /var/cache/fabrik/lab-kernel. Without a kernel there, Debian's 6.1 boots.
   */
  readonly kernelDir?: string;
  /** Receives the command's output (stdout and stderr share the lab console). Default: process.stdout. */
  readonly onOutput?: (chunk: string) => void;
}

export interface LabRunResult {
  readonly exitCode: number;
  readonly durationMs: number;
  /** The run's state directory (kernel `init=` and argv); removed when the run returns. */
  readonly stateDir: string;
}

const here = fileURLToPath(new URL('.', import.meta.url));
const SHIM_SOURCE = resolve(here, '../native/xstate-shim.c');
const START_MARK = '@@fabrik-lab-command@@';
const END_MARK = '@@fabrik-lab-done@@';
const MODULE_FAILURE = 'fabrik-lab: module failed:';
// An exit code our init uses only when a module failed to load.
const MODULE_EXIT = 197;

/** The first executable `name` on PATH, as a shell's `command -v` finds it. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A lab kernel: its binary, its modules, and how it runs its processes. */
interface LabKernel {
  readonly binary: string;
  readonly modulesDir: string;
  readonly kernelVersion: string;
  /**
   * How the kernel runs its processes: `seccomp` where the kernel has the option (its `--help`
   * lists it; booted with `seccomp=on`), else `ptrace` (Debian's 6.1), which costs several host
   * context switches per syscall and page fault.
   */
  readonly mode: 'seccomp' | 'ptrace';
}

/** Where tools/ci/lab-kernel.sh unpacks the faster kernel (`current/linux.uml`, `current/modules/<version>`). */
export const DEFAULT_KERNEL_DIR = process.env['FABRIK_LAB_KERNEL_DIR'] ?? '/var/cache/fabrik/lab-kernel';

function onlyVersion(base: string): string | undefined {
  return existsSync(base) ? readdirSync(base)[0] : undefined;
}

/**
 * The kernel the lab boots: the one tools/ci/lab-kernel.sh fetched (UML 7.2, seccomp mode) when it
 * is there, else Debian's `user-mode-linux` package (6.1, ptrace: about half as fast).
 */
async function locateUml(kernelDir: string): Promise<LabKernel> {
  const fetched = join(kernelDir, 'current');
  const fetchedVersion = onlyVersion(join(fetched, 'modules'));
  const [binary, base, kernelVersion] =
    fetchedVersion && existsSync(join(fetched, 'linux.uml'))
      ? [join(fetched, 'linux.uml'), join(fetched, 'modules'), fetchedVersion]
      : [onPath('linux.uml'), '/usr/lib/uml/modules', onlyVersion('/usr/lib/uml/modules')];
  if (binary === undefined) {
    throw new LabUnavailableError(
      'linux.uml not found: install the Debian package user-mode-linux (tools/ci/ensure-deps.sh does)',
    );
  }
  if (!kernelVersion) throw new LabUnavailableError(`no UML kernel modules under ${base}`);
  // The kernel's own help lists the options it has (it prints them and exits, no boot). Seccomp
  // mode lets lab processes reach the UML kernel's memory: the lab is no security boundary anyway
  // (its processes are this machine's root, on this machine's filesystem).
  const help = await runCommand(binary, ['--help']).then(
    (r) => r.stdout,
    () => '',
  );
  const mode = /^seccomp=/m.test(help) ? 'seccomp' : 'ptrace';
  return { binary, modulesDir: join(base, kernelVersion), kernelVersion, mode };
}

/** Compiles the ptrace shim once per source change into the lab cache. */
async function buildShim(cacheDir: string): Promise<string> {
  const out = join(cacheDir, 'xstate-shim.so');
  if (existsSync(out) && statSync(out).mtimeMs >= statSync(SHIM_SOURCE).mtimeMs) return out;
  try {
    await runCommand('cc', ['-O2', '-shared', '-fPIC', '-o', out, SHIM_SOURCE, '-ldl']);
  } catch (e) {
    throw new LabUnavailableError(
      `cannot build the UML ptrace shim (is a C compiler installed?): ${String(e)}`,
      {
        cause: e,
      },
    );
  }
  return out;
}

/** A POSIX-shell single-quoted literal; used only for paths this module chose itself. */
const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function initScript(state: string, modroot: string, cwd: string, mode: LabKernel['mode']): string {
  // The host's AVX-512 state is not switched between processes in UML 6.1 (see native/xstate-shim.c).
  const ptraceOnly =
    mode === 'ptrace'
      ? 'export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX512_VBMI,-AVX512_VBMI2\n'
      : '';
  return `#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
# /tmp stays this machine's (a checkout may live there); the lab's own temp files go to tmpfs.
mkdir -p /run/netns /run/frr /run/tmp /var/run/openvswitch /var/tmp/frr /etc/frr
export TMPDIR=/run/tmp
# /etc/frr and /var/tmp/frr live on this machine's disk (hostfs): keep the lab's FRR state private.
mount -t tmpfs tmpfs /var/tmp/frr; mount -t tmpfs tmpfs /etc/frr
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
${ptraceOnly}dmesg -n 1
failed=""
for m in ${LAB_MODULES.join(' ')}; do modprobe -d ${quote(modroot)} $m || failed="$failed $m"; done
if [ -n "$failed" ]; then echo "${MODULE_FAILURE}$failed"; echo ${MODULE_EXIT} > ${quote(join(state, 'rc'))}; halt -f -p; fi
ip link set lo up; hostname fabrik-lab   # FRR cannot parse its own "hostname (none)"
cd ${quote(cwd)}
echo ${START_MARK}
xargs -0 -a ${quote(join(state, 'argv'))} sh -c '"$@"; echo $? > "$0"' ${quote(join(state, 'rc'))}
echo ${END_MARK}
halt -f -p
`;
}

/**
 * Boots a User-Mode Linux kernel whose root filesystem is this machine's (hostfs), runs
 * `command` inside it as the only job, streams its output and resolves with its exit code.
 * The lab's processes are all killed and its state directory removed when this returns.
 */
export async function runInLab(options: RunInLabOptions): Promise<LabRunResult> {
  const startedAt = Date.now();
  const uml = await locateUml(options.kernelDir ?? DEFAULT_KERNEL_DIR);
  const cacheDir = resolve(here, '../../../node_modules/.cache/fabrik-lab');
  await mkdir(cacheDir, { recursive: true });
  // The XSAVE shim is for Debian's 6.1 only, which switches FPU state through ptrace.
  const preload = uml.mode === 'ptrace' ? { LD_PRELOAD: await buildShim(cacheDir) } : {};
  const state = await mkdtemp('/var/tmp/fabrik-lab-');
  const modroot = join(state, 'modroot');
  await mkdir(join(modroot, 'lib/modules'), { recursive: true });
  await symlink(uml.modulesDir, join(modroot, 'lib/modules', uml.kernelVersion));
  const envArgs = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`);
  // FABRIK_LAB_KERNEL: which kernel runs the command (timings differ by about two between them).
  const kernelName = `${uml.kernelVersion} (${uml.mode})`;
  const argv = ['env', 'FABRIK_LAB=1', `FABRIK_LAB_KERNEL=${kernelName}`, ...envArgs, ...options.command];
  await writeFile(join(state, 'argv'), argv.join('\0'));
  await writeFile(join(state, 'init'), initScript(state, modroot, options.cwd ?? process.cwd(), uml.mode), {
    mode: 0o755,
  });

  const onOutput = options.onOutput ?? ((s: string) => process.stdout.write(s));
  let tail = '';
  let commandStarted = false;
  let ended = false;
  let pending = '';
  const onData = (chunk: string) => {
    const text = chunk.replace(/\r/g, '');
    tail = (tail + text).slice(-4000);
    if (ended) return;
    if (commandStarted) {
      const end = text.indexOf(END_MARK);
      if (end < 0) return onOutput(text);
      ended = true;
      return onOutput(text.slice(0, end));
    }
    pending += text;
    const at = pending.indexOf(START_MARK);
    if (at >= 0) {
      commandStarted = true;
      const rest = pending.slice(at + START_MARK.length).replace(/^\n/, '');
      if (rest) onOutput(rest);
    } else if (pending.includes(MODULE_FAILURE)) {
      onOutput(pending.slice(pending.indexOf(MODULE_FAILURE)));
      pending = '';
    }
  };
  const kernel = startCommand(
    uml.binary,
    [
      `mem=${options.memoryMiB ?? 3072}M`,
      'root=/dev/root',
      'rootfstype=hostfs',
      'rootflags=/',
      'rw',
      'quiet',
      `init=${join(state, 'init')}`,
      'con=null',
      'con0=null,fd:1',
      ...(uml.mode === 'seccomp' ? ['seccomp=on'] : []),
    ],
    {
      ownProcessGroup: true, // so that every UML host process can be killed at once
      env: { ...process.env, ...preload, TMPDIR: '/dev/shm' },
      onOutput: onData,
    },
  );
  const killAll = () => kernel.kill('SIGKILL');
  const timer = setTimeout(killAll, options.timeoutMs ?? 30 * 60_000);
  const onSignal = () => {
    killAll();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const status = (await kernel.exited).exitCode;
    clearTimeout(timer);
    let rc: number | undefined;
    try {
      rc = Number((await readFile(join(state, 'rc'), 'utf8')).trim());
    } catch {
      rc = undefined;
    }
    if (rc === MODULE_EXIT) {
      const line = tail.split('\n').find((l) => l.startsWith(MODULE_FAILURE)) ?? '';
      throw new LabModuleError(line.slice(MODULE_FAILURE.length).trim().split(/\s+/));
    }
    if (rc === undefined || Number.isNaN(rc)) {
      const why =
        Date.now() - startedAt >= (options.timeoutMs ?? 30 * 60_000) ? 'timed out' : `exited with ${status}`;
      throw new LabCrashedError(`the lab kernel ${why} before the command finished`, tail);
    }
    return { exitCode: rc, durationMs: Date.now() - startedAt, stateDir: state };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    killAll();
    await rm(state, { recursive: true, force: true });
  }
}
