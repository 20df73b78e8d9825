import { chmod, chown, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { FabrikError, errorGuard, isCommandError, validateNetnsName } from '@fabrik/netcore';
import {
  expectedL3Vnis,
  frrMessage,
  newVrfBlocksOnly,
  parseReloadTest,
  withVrfBlocksOf,
  type FrrConfigChange,
} from './config-text.js';
import { parseShowVrfVni } from './status.js';
import { parseVtyshJson, runFrrTool, showRunningConfig, vtysh, type FrrTarget } from './vtysh.js';

export const FRR_RELOAD_SCRIPT = '/usr/lib/frr/frr-reload.py';

export interface ReloadFrrOptions extends FrrTarget {
  /** Configuration text to apply; written atomically to `file` (default CONFIG_DIR/frr.conf). */
  readonly config?: string;
  /** The configuration file to apply (and to write `config` to, when given). */
  readonly file?: string;
  /** Default: /etc/frr/PATHSPACE. */
  readonly configDir?: string;
  /** After a failed reload, reload the configuration that was running before. Default: true. */
  readonly restoreOnFailure?: boolean;
}

export interface FrrReloadResult {
  /** The file that was applied. */
  readonly file: string;
  /** False when the running configuration already matched. */
  readonly changed: boolean;
  readonly added: readonly FrrConfigChange[];
  readonly removed: readonly FrrConfigChange[];
}

export type FrrReloadStage = 'test' | 'reload';

/** frr-reload.py failed; `frrMessage` is FRR's own output (passwords redacted). */
export class FrrReloadError extends FabrikError<'FRR_RELOAD_FAILED'> {
  override readonly name = 'FrrReloadError';
  constructor(
    readonly stage: FrrReloadStage,
    readonly frrMessage: string,
    /** The configuration that was running before was reloaded again (after a partial apply). */
    readonly restored: boolean,
  ) {
    super(
      'FRR_RELOAD_FAILED',
      `frr-reload.py --${stage} failed${restored ? ' (previous configuration restored)' : ''}: ${frrMessage}`,
    );
  }
}

export const isFrrReloadError = errorGuard(FrrReloadError);

export interface FrrVniMismatch {
  readonly vrf: string;
  readonly vni: number;
  /** What zebra maps the VNI to instead (`default`, another VRF), or null when it has no mapping. */
  readonly actualVrf: string | null;
}

/**
 * The reload succeeded, but zebra does not map every L3 VNI to its VRF (frr-reload.py can
 * partially apply `vrf` blocks and leave the L3 VNI on the default VRF).
 */
export class FrrVniMappingError extends FabrikError<'FRR_VNI_MAPPING'> {
  override readonly name = 'FrrVniMappingError';
  constructor(
    readonly mismatches: readonly FrrVniMismatch[],
    readonly result: FrrReloadResult,
  ) {
    super(
      'FRR_VNI_MAPPING',
      `after the reload zebra maps L3 VNIs wrongly: ${mismatches.map((m) => `VNI ${m.vni} -> ${m.actualVrf ?? 'nothing'} (want ${m.vrf})`).join(', ')}`,
    );
  }
}

export const isFrrVniMappingError = errorGuard(FrrVniMappingError);

/**
 * Applies a configuration to running FRR daemons: writes it atomically, runs
 * `frr-reload.py -N PATHSPACE --test` (what would change), then, when something changes,
 * `--reload --stdout`, then checks
 * with `show vrf vni json` that every L3 VNI of the file is mapped to its VRF.
 *
 * Throws {@link FrrReloadError} with FRR's message when frr-reload.py fails (after reloading the
 * previous configuration, unless `restoreOnFailure: false`), {@link FrrVniMappingError} when
 * the VRF-to-VNI check fails.
 */
export async function reloadFrr(options: ReloadFrrOptions): Promise<FrrReloadResult> {
  // The pathspace names a directory: validate it before anything is written.
  validateNetnsName(options.pathspace);
  if (options.netns !== undefined) validateNetnsName(options.netns);
  // Two frr-reload.py runs against the same daemons interleave their diffs: one at a time per
  // pathspace (within this process; other processes are the caller's to coordinate).
  const previous = reloadQueue.get(options.pathspace) ?? Promise.resolve();
  const run = previous.then(
    () => reloadNow(options),
    () => reloadNow(options),
  );
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  reloadQueue.set(options.pathspace, settled);
  void settled.then(() => {
    if (reloadQueue.get(options.pathspace) === settled) reloadQueue.delete(options.pathspace);
  });
  return run;
}

const reloadQueue = new Map<string, Promise<void>>();

async function reloadNow(options: ReloadFrrOptions): Promise<FrrReloadResult> {
  const configDir = options.configDir ?? join('/etc/frr', options.pathspace);
  const file = options.file ?? join(configDir, 'frr.conf');
  if (options.config === undefined && options.file === undefined)
    throw new TypeError('reloadFrr: give config or file');
  if (options.config !== undefined) await writeFileAtomic(file, options.config);
  const config = options.config ?? (await readFile(file, 'utf8'));

  const changes = parseReloadTest(await runReload(options, ['--test', file], 'test'));
  const changed = changes.added.length + changes.removed.length > 0;
  // Nothing to change: skip frr-reload.py --reload, the slow half (seconds in the lab), so a
  // level-triggered agent can re-apply an unchanged configuration cheaply.
  if (changed) {
    const previous = await showRunningConfig(options);
    try {
      await applyInTwoPasses(options, configDir, file, config, previous);
    } catch (e) {
      if (!isFrrReloadError(e) || options.restoreOnFailure === false) throw e;
      const restored = await restore(options, configDir, previous);
      throw new FrrReloadError('reload', e.frrMessage, restored);
    }
  }
  const result: FrrReloadResult = { file, changed, ...changes };
  const mismatches = checkVniMapping(
    expectedL3Vnis(config),
    parseVtyshJson(await vtysh(options, 'show vrf vni json')),
  );
  if (mismatches.length > 0) throw new FrrVniMappingError(mismatches, result);
  return result;
}

/**
 * frr-reload.py 8.4 feeds the lines it adds to one `vtysh -f` run without leaving the previous
 * context: a `vrf NAME` line that follows `router bgp ... vrf X` lines is taken for bgpd's
 * `vrf-policy NAME` and fails half-way, and the L3 VNI can end up on the default VRF (measured
 * in the lab). So the `vrf` blocks are applied first, on their own (the running configuration
 * with the new `vrf` blocks), then the whole file, which then adds nothing inside `vrf` blocks.
 * Removals are unaffected: frr-reload.py runs each as a single vtysh command.
 */
async function applyInTwoPasses(
  target: FrrTarget,
  configDir: string,
  file: string,
  config: string,
  running: string,
): Promise<void> {
  const vrfPass = withVrfBlocksOf(running, config);
  if (vrfPass !== null) {
    // Blocks that are all new are plain additions: vtysh applies them in a fraction of the time
    // frr-reload.py takes (seconds in the lab). A changed block needs frr-reload.py's diff.
    const additions = newVrfBlocksOnly(running, config);
    const vrfFile = join(configDir, `.fabrik-vrfs-${randomBytes(4).toString('hex')}.conf`);
    try {
      await writeFileAtomic(vrfFile, additions ?? vrfPass);
      if (additions !== null) await runVtyshFile(target, vrfFile);
      else await runReload(target, ['--reload', '--stdout', vrfFile], 'reload');
    } finally {
      await rm(vrfFile, { force: true });
    }
    // frr-reload.py ends with `write memory`, which has just replaced CONFIG_DIR/frr.conf
    // (possibly `file`) with the running configuration of the first pass.
    await writeFileAtomic(file, config);
  }
  await runReload(target, ['--reload', '--stdout', file], 'reload');
}

/** Applies a file of configuration commands as additions. Equivalent to: `vtysh -N PATHSPACE -f FILE`. */
async function runVtyshFile(target: FrrTarget, file: string): Promise<void> {
  try {
    await runFrrTool(target, 'vtysh', ['-N', target.pathspace, '-f', file]);
  } catch (e) {
    if (!isCommandError(e)) throw e;
    throw new FrrReloadError('reload', frrMessage(e.stdout, e.stderr) || `exit code ${e.exitCode}`, false);
  }
}

async function runReload(target: FrrTarget, args: readonly string[], stage: FrrReloadStage): Promise<string> {
  try {
    return (await runFrrTool(target, 'python3', [FRR_RELOAD_SCRIPT, '-N', target.pathspace, ...args])).stdout;
  } catch (e) {
    if (!isCommandError(e)) throw e;
    // Not passed as `cause`: frr-reload.py logs configuration lines, passwords included.
    throw new FrrReloadError(stage, frrMessage(e.stdout, e.stderr) || `exit code ${e.exitCode}`, false);
  }
}

async function restore(target: FrrTarget, configDir: string, previous: string): Promise<boolean> {
  const file = join(configDir, `.fabrik-restore-${randomBytes(4).toString('hex')}.conf`);
  try {
    await writeFileAtomic(file, previous);
    await applyInTwoPasses(target, configDir, file, previous, await showRunningConfig(target));
    return true;
  } catch {
    return false;
  } finally {
    await rm(file, { force: true });
  }
}

/** Compares the wanted L3 VNIs with `show vrf vni json` (as printed, decoded by {@link parseShowVrfVni}). */
export function checkVniMapping(
  expected: readonly { vrf: string; vni: number }[],
  showVrfVni: unknown,
): FrrVniMismatch[] {
  const actual = new Map(parseShowVrfVni(showVrfVni).map((r) => [r.vni, r.vrf]));
  return expected
    .filter((e) => actual.get(e.vni) !== e.vrf)
    .map((e) => ({ ...e, actualVrf: actual.get(e.vni) ?? null }));
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
