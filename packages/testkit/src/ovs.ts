import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, validateNetnsName } from '@fabrik/netcore';
import { isRunning, killPidfile, readPid, stopProcess } from './daemon.js';

/** A private ovsdb-server + ovs-vswitchd pair (userspace datapath), owned by one test file. */
export interface OvsInstance {
  readonly dir: string;
  /** Path of the database's unix socket. */
  readonly socketPath: string;
  /** OVSDB endpoint in ovs-vsctl syntax: `unix:PATH`. */
  readonly endpoint: string;
  /** `ovs-vsctl --db=ENDPOINT ARGS...` (waits for vswitchd unless `--no-wait` is passed). */
  vsctl(...args: string[]): Promise<string>;
  /** Adds a bridge with the userspace datapath (the only one this kernel and UML can forward with). */
  addBridge(name: string): Promise<void>;
  /** Stops ovsdb-server only (the database file is kept): to test reconnects. */
  stopDb(): Promise<void>;
  /** Starts ovsdb-server again on the same database and socket. */
  startDb(): Promise<void>;
  /** SIGKILL to ovs-vswitchd (a crash: its ports' tap devices stay behind). */
  killVswitchd(): Promise<void>;
  /** Starts ovs-vswitchd again (in the same netns), which recreates the ports of the database. */
  startVswitchd(): Promise<void>;
  /** Stops both daemons and removes the directory; safe to call twice. */
  stop(): Promise<void>;
}

const SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

export interface StartOvsOptions {
  /**
   * Run ovs-vswitchd inside this netns (ovsdb-server stays reachable through its socket).
   * The userspace datapath opens ports in the netns vswitchd runs in, so two OVS instances in one
   * kernel (two lab nodes) each need their own.
   */
  readonly netns?: string;
}

// The userspace datapath creates a tap device `ovs-netdev` in the netns ovs-vswitchd runs in: a
// second vswitchd in the same netns cannot create it and never gives its ports an ofport. So at
// most one test OVS runs in the machine's own netns at a time (across vitest workers); others wait.
const ROOT_NETNS_LOCK = '/run/fabrik-testkit-ovs.lock';
const LOCK_WAIT_MS = 15 * 60_000;

async function lockRootNetns(): Promise<() => Promise<void>> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(ROOT_NETNS_LOCK); // atomic: exactly one creator wins
      await writeFile(join(ROOT_NETNS_LOCK, 'pid'), String(process.pid));
      return () => rm(ROOT_NETNS_LOCK, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = await readPid(join(ROOT_NETNS_LOCK, 'pid'));
    // A holder that died (a killed test run) leaves the lock behind: take it over.
    if (holder !== undefined && !isRunning(holder))
      await rm(ROOT_NETNS_LOCK, { recursive: true, force: true });
    if (Date.now() > until)
      throw new Error(`startOvs: ${ROOT_NETNS_LOCK} held by pid ${holder} for too long`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts a private Open vSwitch in a temporary directory. Call `stop()` in an afterAll hook.
 * Without `netns`, vswitchd runs in this machine's netns, one instance at a time (see above):
 * prefer `netns` where the test allows it.
 */
export async function startOvs(options: StartOvsOptions = {}): Promise<OvsInstance> {
  if (options.netns) validateNetnsName(options.netns);
  const unlock = options.netns ? async () => {} : await lockRootNetns();
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-ovs-'));
  const socketPath = join(dir, 'db.sock');
  const endpoint = `unix:${socketPath}`;
  const db = join(dir, 'conf.db');
  await runCommand('ovsdb-tool', ['create', db, SCHEMA]);
  const startDb = async () => {
    await runCommand('ovsdb-server', [
      db,
      `--remote=punix:${socketPath}`,
      `--unixctl=${join(dir, 'db.ctl')}`,
      `--pidfile=${join(dir, 'db.pid')}`,
      `--log-file=${join(dir, 'db.log')}`,
      '--detach',
    ]);
  };
  const vsctl = async (...args: string[]) =>
    (await runCommand('ovs-vsctl', [`--db=${endpoint}`, '--timeout=20', ...args])).stdout;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // The userspace datapath creates its bridge ports as persistent tap devices, which outlive a
    // killed vswitchd: `exit --cleanup` has it delete them first. Killing is the fallback.
    const vswitchd = await readPid(join(dir, 'vs.pid'));
    await runCommand('ovs-appctl', ['-t', join(dir, 'vs.ctl'), 'exit', '--cleanup'], {
      timeoutMs: 10_000,
    }).catch(() => {});
    await stopProcess(vswitchd, 5000);
    await killPidfile(join(dir, 'db.pid'));
    await rm(dir, { recursive: true, force: true });
    await unlock();
  };
  const startVswitchd = async () => {
    const vswitchd = ['ovs-vswitchd', endpoint];
    const [file, ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...vswitchd] : vswitchd;
    await runCommand(file!, [
      ...args,
      `--unixctl=${join(dir, 'vs.ctl')}`,
      `--pidfile=${join(dir, 'vs.pid')}`,
      `--log-file=${join(dir, 'vs.log')}`,
      '--detach',
    ]);
  };
  try {
    await startDb();
    await vsctl('--no-wait', 'init');
    await startVswitchd();
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    dir,
    socketPath,
    endpoint,
    vsctl,
    addBridge: async (name) => {
      await vsctl('add-br', name, '--', 'set', 'bridge', name, 'datapath_type=netdev');
    },
    stopDb: () => killPidfile(join(dir, 'db.pid')),
    startDb,
    killVswitchd: async () => {
      const pid = await readPid(join(dir, 'vs.pid'));
      if (pid === undefined) return;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return; // already gone
      }
      while (isRunning(pid)) await new Promise((r) => setTimeout(r, 20));
    },
    startVswitchd,
    stop,
  };
}
