import { access, chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { runCommand, runInNetns, validateNetnsName } from '@fabrik/netcore';
import { isRunning, killPidfile, readPid } from './daemon.js';

export type FrrDaemon = 'zebra' | 'bgpd' | 'staticd' | 'bfdd';

/** FRR's zebra and bgpd (and optionally more daemons) running inside one netns with pathspace `-N NAME`. */
export interface FrrInstance {
  /** The netns and the FRR pathspace (they share the name). */
  readonly netns: string;
  /** /etc/frr/NAME: frr.conf and vtysh.conf live here. */
  readonly configDir: string;
  /** `vtysh -N NAME -c CMD...`; returns what vtysh printed. */
  vtysh(...commands: string[]): Promise<string>;
  /** `show running-config` */
  runningConfig(): Promise<string>;
  /** SIGKILL to these daemons (a crash). */
  killDaemons(...daemons: FrrDaemon[]): Promise<void>;
  /** Starts these daemons again with the boot configuration, in order, as watchfrr does after a crash. */
  startDaemons(...daemons: FrrDaemon[]): Promise<void>;
  /** Stops every daemon and removes /etc/frr/NAME and /run/frr/NAME; safe to call twice. */
  stop(): Promise<void>;
}

export interface StartFrrOptions {
  /** An existing netns; its name is also the pathspace. */
  readonly netns: string;
  /** Initial configuration (frr.conf). Default: a hostname line only. */
  readonly config?: string;
  /** Daemons to start, in order. Default: zebra, bgpd. */
  readonly daemons?: readonly FrrDaemon[];
}

const FRR_LIB = '/usr/lib/frr';

function frrIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'frr'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await access(path); // the vty file is a socket: it exists, it cannot be read
      return;
    } catch {
      if (Date.now() > until) throw new Error(`FRR did not create ${path} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Starts FRR daemons in `netns` with pathspace `-N netns`, the layout frr-reload.py and
 * `vtysh -N` expect: /etc/frr/NS/{frr.conf,vtysh.conf} and sockets in /run/frr/NS.
 */
export async function startFrr(options: StartFrrOptions): Promise<FrrInstance> {
  const netns = validateNetnsName(options.netns);
  const configDir = join('/etc/frr', netns);
  const runDir = join('/run/frr', netns);
  const { uid, gid } = frrIds();
  await mkdir(configDir, { recursive: true });
  await mkdir(runDir, { recursive: true });
  await chown(configDir, uid, gid);
  await chown(runDir, uid, gid);
  const conf = join(configDir, 'frr.conf');
  await writeFile(conf, options.config ?? 'frr defaults datacenter\n!\n');
  await writeFile(join(configDir, 'vtysh.conf'), 'service integrated-vtysh-config\n');
  await chown(conf, uid, gid);
  const daemons = options.daemons ?? ['zebra', 'bgpd'];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const d of [...daemons].reverse()) await killPidfile(join(runDir, `${d}.pid`));
    await rm(configDir, { recursive: true, force: true });
    await rm(runDir, { recursive: true, force: true });
  };
  const startDaemons = async (...which: FrrDaemon[]) => {
    for (const d of which) {
      await rm(join(runDir, `${d}.vty`), { force: true });
      await runInNetns(netns, join(FRR_LIB, d), ['-d', '-N', netns, '-f', conf, '-u', 'frr', '-g', 'frr']);
      await waitForFile(join(runDir, `${d}.vty`), 10_000);
    }
  };
  try {
    await startDaemons(...daemons);
  } catch (e) {
    await stop();
    throw e;
  }
  const vtysh = async (...commands: string[]) =>
    (await runCommand('vtysh', ['-N', netns, ...commands.flatMap((c) => ['-c', c])])).stdout;
  const killDaemons = async (...which: FrrDaemon[]) => {
    for (const d of which) {
      const pid = await readPid(join(runDir, `${d}.pid`));
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        continue; // already gone
      }
      while (isRunning(pid)) await new Promise((r) => setTimeout(r, 20));
    }
  };
  return {
    netns,
    configDir,
    vtysh,
    runningConfig: () => vtysh('show running-config'),
    killDaemons,
    startDaemons,
    stop,
  };
}
