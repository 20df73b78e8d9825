import { readFile } from 'node:fs/promises';

// Stopping the daemons tests start (ovsdb-server, ovs-vswitchd, FRR), by pid or pidfile.

/** The pid in a daemon's pidfile; undefined when there is none. */
export const readPid = async (pidfile: string): Promise<number | undefined> => {
  const pid = Number((await readFile(pidfile, 'utf8').catch(() => '')).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/** True while the process exists. */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function exited(pid: number, withinMs: number): Promise<boolean> {
  for (const until = Date.now() + withinMs; Date.now() < until;) {
    if (!isRunning(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return !isRunning(pid);
}

/** Waits `graceMs` for the process to exit by itself, then SIGTERM, then SIGKILL. */
export async function stopProcess(pid: number | undefined, graceMs = 0): Promise<void> {
  if (pid === undefined || (await exited(pid, graceMs))) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  if (await exited(pid, 2000)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** Stops the daemon named by a pidfile (SIGTERM, then SIGKILL). */
export const killPidfile = async (pidfile: string): Promise<void> => stopProcess(await readPid(pidfile));
