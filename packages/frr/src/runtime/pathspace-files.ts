import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { validateNetnsName, withFileLock } from '@fabrik/netcore';
import { showRunningConfig, type FrrTarget } from './vtysh.js';

// The files of a pathspace that a reload reads and writes besides FRR itself: the reload lock,
// the last-applied record, the configuration file and a reload's temporary files.

/** The configuration directory of a pathspace: where frr.conf and a reload's temporary files live. */
export const configDirOf = (target: FrrTarget & { readonly configDir?: string }): string =>
  target.configDir ?? join('/etc/frr', validateNetnsName(target.pathspace));

/** The run directory of a pathspace: where the reload lock and the last-applied record live. */
export const runDirOf = (target: FrrTarget & { readonly runDir?: string }): string =>
  target.runDir ?? join('/run/frr', validateNetnsName(target.pathspace));

/**
 * Runs `fn` holding the reload lock of the pathspace (`flock` on RUNDIR/fabrik-reload.lock, the
 * one {@link reloadFrr} takes): for tools that change FRR's configuration by other means and must
 * not interleave with a reload. Released however `fn` ends, and by the kernel if this process dies.
 */
export function withFrrReloadLock<T>(
  target: FrrTarget & { readonly runDir?: string; readonly lockTimeoutMs?: number },
  fn: () => Promise<T>,
): Promise<T> {
  return withFileLock(
    join(runDirOf(target), 'fabrik-reload.lock'),
    target.lockTimeoutMs === undefined ? {} : { timeoutMs: target.lockTimeoutMs },
    fn,
  );
}

/** What the last successful reload of a pathspace applied, as hashes (no secrets on disk twice). */
interface LastApplied {
  /** SHA-256 of the configuration text given to reloadFrr. */
  readonly config: string;
  /** SHA-256 of `show running-config` right after it was applied. */
  readonly running: string;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const lastAppliedFile = (target: FrrTarget & { readonly runDir?: string }): string =>
  join(runDirOf(target), 'fabrik-last-applied.json');

/**
 * FRR's running configuration when it is the one {@link reloadFrr} left after applying `config`
 * (the pathspace's last-applied record: both hashes match); undefined otherwise. Then FRR runs
 * `config` and frr-reload.py would change nothing: one `show running-config`, no frr-reload.py.
 */
export async function runningAsApplied(
  target: FrrTarget & { readonly runDir?: string },
  config: string,
): Promise<string | undefined> {
  const last = await readLastApplied(lastAppliedFile(target));
  if (last?.config !== sha256(config)) return undefined;
  const running = await showRunningConfig(target);
  return last.running === sha256(running) ? running : undefined;
}

/** Records that `config` was applied and FRR then ran `running` (both as hashes). */
export async function recordApplied(
  target: FrrTarget & { readonly runDir?: string },
  config: string,
  running: string,
): Promise<void> {
  const record: LastApplied = { config: sha256(config), running: sha256(running) };
  await writeFileAtomic(lastAppliedFile(target), `${JSON.stringify(record)}\n`);
}

/** Drops the record: until a reload succeeds again, nothing is known to be applied. */
export async function forgetApplied(target: FrrTarget & { readonly runDir?: string }): Promise<void> {
  await rm(lastAppliedFile(target), { force: true });
}

async function readLastApplied(file: string): Promise<LastApplied | undefined> {
  try {
    const v = JSON.parse(await readFile(file, 'utf8')) as Partial<LastApplied>;
    return typeof v.config === 'string' && typeof v.running === 'string'
      ? { config: v.config, running: v.running }
      : undefined;
  } catch {
    return undefined; // missing or unreadable: no record, reload in full
  }
}

/** What a reload writes beside frr.conf for a moment: its passes' files and writeFileAtomic's temporary files. */
const RELOAD_TEMP_FILE = /^\.(fabrik-(vnis|vrfs|restore|apply)-[0-9a-f]{8}\.conf|[0-9a-f]{12}\.tmp)$/;

/**
 * Removes the temporary files of a reload that was killed (SIGKILL skips its cleanup). Called
 * holding the pathspace's reload lock, so no other reload is writing them.
 */
export async function removeStaleReloadFiles(configDir: string): Promise<void> {
  const names = await readdir(configDir).catch(() => [] as string[]);
  await Promise.all(
    names.filter((n) => RELOAD_TEMP_FILE.test(n)).map((n) => rm(join(configDir, n), { force: true })),
  );
}

/** Writes through a temporary file and rename; keeps the owner and mode of an existing file (0600 otherwise). */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { mode: 0o600 });
    const existing = await stat(file).catch(() => null);
    if (existing) {
      await chown(tmp, existing.uid, existing.gid);
      await chmod(tmp, existing.mode & 0o7777);
    }
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
