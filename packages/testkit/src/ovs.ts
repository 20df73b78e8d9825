import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, validateNetnsName } from '@fabrik/netcore';

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
  /** Stops both daemons and removes the directory; safe to call twice. */
  stop(): Promise<void>;
}

const SCHEMA = '/usr/share/openvswitch/vswitch.ovsschema';

async function killPidfile(pidfile: string): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(pidfile, 'utf8')).trim());
  } catch {
    return;
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

export interface StartOvsOptions {
  /**
   * Run ovs-vswitchd inside this netns (ovsdb-server stays reachable through its socket).
   * The userspace datapath opens ports in the netns vswitchd runs in, so two OVS instances in one
   * kernel (two lab nodes) each need their own.
   */
  readonly netns?: string;
}

/** Starts a private Open vSwitch in a temporary directory. Call `stop()` in an afterAll hook. */
export async function startOvs(options: StartOvsOptions = {}): Promise<OvsInstance> {
  if (options.netns) validateNetnsName(options.netns);
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
    await killPidfile(join(dir, 'vs.pid'));
    await killPidfile(join(dir, 'db.pid'));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await startDb();
    await vsctl('--no-wait', 'init');
    const vswitchd = ['ovs-vswitchd', endpoint];
    const [file, ...args] = options.netns ? ['ip', 'netns', 'exec', options.netns, ...vswitchd] : vswitchd;
    await runCommand(file!, [
      ...args,
      `--unixctl=${join(dir, 'vs.ctl')}`,
      `--pidfile=${join(dir, 'vs.pid')}`,
      `--log-file=${join(dir, 'vs.log')}`,
      '--detach',
    ]);
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
    stop,
  };
}
