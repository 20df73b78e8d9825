import { readFile, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { isCommandError, validateNetnsName } from '@fabrik/netcore';
import {
  diffConfigLines,
  droppedL3Vnis,
  expectedL3Vnis,
  frrMessage,
  l3VniReleaseCommands,
  newVrfBlocksOnly,
  parseReloadTest,
  runningConfigFile,
  withVrfBlocksOf,
  type FrrConfigChange,
} from '../config-text.js';
import {
  configDirOf,
  forgetApplied,
  recordApplied,
  removeStaleReloadFiles,
  runningAsApplied,
  withFrrReloadLock,
  writeFileAtomic,
} from './pathspace-files.js';
import {
  checkVniMapping,
  FrrReloadError,
  FrrVniMappingError,
  isFrrReloadError,
  type FrrReloadStage,
} from './reload-errors.js';
import { vtyshApplyCommands } from './reload-plan.js';
import { parseVtyshJson, runFrrTool, showRunningConfig, vtyshCommands, type FrrTarget } from './vtysh.js';

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
  /** Where the reload lock and the last-applied record live. Default: /run/frr/PATHSPACE. */
  readonly runDir?: string;
  /** How long to wait for another process's reload of this pathspace. Default: 5 minutes. */
  readonly lockTimeoutMs?: number;
}

export interface FrrReloadResult {
  /** The file that was applied. */
  readonly file: string;
  /** False when the running configuration already matched. */
  readonly changed: boolean;
  /**
   * True when frr-reload.py did not run at all: the configuration is the one this pathspace last
   * applied, and the running configuration is still what that apply left (see {@link reloadFrr}).
   */
  readonly skipped: boolean;
  readonly added: readonly FrrConfigChange[];
  readonly removed: readonly FrrConfigChange[];
  /**
   * `show running-config` (as {@link showRunningConfig} returns it) right after the reload, or the
   * one that matched when skipped: a caller that remembers what ran need not ask vtysh again.
   */
  readonly running: string;
}

/**
 * Applies a configuration to running FRR daemons: writes it atomically, finds what would change
 * (by comparing the text with the running configuration when that shows additions only, else
 * with `frr-reload.py -N PATHSPACE --test`), applies additions with `vtysh -f` and anything else
 * with `frr-reload.py --reload --stdout`, then checks with `show vrf vni json` that every L3 VNI of the file is
 * mapped to its VRF.
 *
 * One reload per pathspace at a time, across processes (the agent and an operator's tool): the
 * whole reload holds {@link withFrrReloadLock}. frr-reload.py is skipped entirely (`skipped:
 * true`) when the text is byte for byte the one this pathspace last applied successfully AND the
 * running configuration's SHA-256 is the one recorded right after that apply; after a reboot, an
 * FRR restart, a change made by hand with vtysh, or a failed reload, the full `--test`/`--reload`
 * runs. Only hashes are recorded (RUNDIR/fabrik-last-applied.json), no configuration text.
 *
 * Throws {@link FrrReloadError} with FRR's message when frr-reload.py fails (after reloading the
 * previous configuration, unless `restoreOnFailure: false`; when that fails too, the error
 * reports both), {@link FrrVniMappingError} when the VRF-to-VNI check fails, netcore's
 * FileLockTimeoutError when another process holds the lock longer than `lockTimeoutMs`.
 */
export async function reloadFrr(options: ReloadFrrOptions): Promise<FrrReloadResult> {
  // The pathspace names a directory: validate it before anything is written.
  validateNetnsName(options.pathspace);
  if (options.netns !== undefined) validateNetnsName(options.netns);
  // Two frr-reload.py runs against the same daemons interleave their diffs: one at a time per
  // pathspace. The queue keeps this process's reloads in call order (the last one wins); the lock
  // keeps other processes out.
  const locked = () => withFrrReloadLock(options, () => reloadNow(options));
  const previous = reloadQueue.get(options.pathspace) ?? Promise.resolve();
  const run = previous.then(locked, locked);
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
  const configDir = configDirOf(options);
  const file = options.file ?? join(configDir, 'frr.conf');
  if (options.config === undefined && options.file === undefined)
    throw new TypeError('reloadFrr: give config or file');
  await removeStaleReloadFiles(configDir);
  if (options.config !== undefined) await writeFileAtomic(file, options.config);
  const config = options.config ?? (await readFile(file, 'utf8'));
  const runningBefore = await runningAsApplied(options, config);
  const unchanged = runningBefore !== undefined;

  let result: Omit<FrrReloadResult, 'running'>;
  // Whether vtysh alone applied the changes (see vtyshApplyCommands).
  let byVtysh = false;
  let previous = '';
  if (unchanged) {
    result = { file, changed: false, skipped: true, added: [], removed: [] };
  } else {
    // Until this reload has succeeded, nothing is known to be applied.
    await forgetApplied(options);
    previous = await showRunningConfig(options);
    const { changes, commands } = await changesToApply(options, file, previous, config);
    const changed = changes.added.length + changes.removed.length > 0;
    // Nothing to change: skip frr-reload.py --reload, the slow half (seconds in the lab). Only
    // additions (a new node, a new VRF or network) and the removals vtyshApplyCommands knows: the
    // whole file through one `vtysh -f`, as FRR loads its configuration at start (`vtysh -b`), the
    // running lines applied again unchanged; frr-reload.py --reload would compute the same diff
    // again (seconds of Python in the lab) and feed the added lines without leaving their
    // contexts (see applyInTwoPasses).
    if (changed) {
      byVtysh = commands !== undefined;
      await restoringOnFailure(options, configDir, previous, async () => {
        if (commands === undefined) return applyWithFrrReload(options, configDir, file, config, previous);
        await applyWithVtysh(options, configDir, file, config, commands);
      });
    }
    result = { file, changed, skipped: false, ...changes };
  }
  // One vtysh for both reads (seconds of CPU per reload in the lab kernel otherwise).
  const readBack = () =>
    vtyshCommands(options, ['show vrf vni json', ...(unchanged ? [] : ['show running-config'])]);
  let [vrfVni = '', runningNow = ''] = await readBack();
  const left = runningConfigFile(runningNow);
  if (byVtysh && diffConfigLines(left, config).removed.length > 0) {
    // FRR runs a line the file lacks after vtysh applied it (a removal that left something):
    // frr-reload.py's to remove.
    await restoringOnFailure(options, configDir, previous, () =>
      applyWithFrrReload(options, configDir, file, config, left),
    );
    [vrfVni = '', runningNow = ''] = await readBack();
  }
  const running = runningBefore ?? runningConfigFile(runningNow);
  const mismatches = checkVniMapping(expectedL3Vnis(config), parseVtyshJson(vrfVni));
  if (mismatches.length > 0) {
    await forgetApplied(options);
    throw new FrrVniMappingError(mismatches, { ...result, running });
  }
  if (unchanged) return { ...result, running };
  await recordApplied(options, config, running);
  return { ...result, running };
}

/**
 * What applying `config` changes, and the commands that apply it with vtysh alone
 * ({@link vtyshApplyCommands}; undefined: frr-reload.py's). When FRR runs a part of `config`, line for line as written (a
 * new node, a network or VRF added), the text comparison ({@link diffConfigLines}) is the answer:
 * frr-reload.py --test (its Python and a `vtysh -m -f` of the file, seconds of CPU per node in
 * the lab) would find the same nothing to remove. Anything else, removals or lines FRR prints
 * otherwise, is frr-reload.py's to compute. The text comparison does not check the file's syntax
 * as `--test` does: a line FRR refuses fails the `vtysh -f` that applies it, and the reload then
 * restores the previous configuration like any failed reload.
 */
async function changesToApply(
  target: FrrTarget,
  file: string,
  running: string,
  config: string,
): Promise<{
  changes: { added: FrrConfigChange[]; removed: FrrConfigChange[] };
  commands: string[] | undefined;
}> {
  const byText = diffConfigLines(running, config);
  const commands = vtyshApplyCommands(byText, running);
  if (commands !== undefined) return { changes: byText, commands };
  const changes = parseReloadTest(await runReload(target, ['--test', file], 'test'));
  return { changes, commands: vtyshApplyCommands(changes, running) };
}

/**
 * The file through one `vtysh -f`, followed by `commands` (the removals vtyshApplyCommands found).
 * With commands, both go in one temporary file in the configuration directory (where a killed
 * reload's files are removed by the next one), one vtysh start instead of two (about half a second
 * of the lab kernel each); the commands come last, as the file's first line may be `frr defaults`.
 * A file given outside that directory (whose directory may be read-only) keeps them apart.
 */
async function applyWithVtysh(
  target: FrrTarget,
  configDir: string,
  file: string,
  config: string,
  commands: readonly string[],
): Promise<void> {
  if (commands.length === 0) return runVtyshFile(target, file);
  if (dirname(file) !== configDir) {
    await runVtyshFile(target, file);
    return runVtyshForReload(target, ['-c', 'configure terminal', ...commands.flatMap((c) => ['-c', c])]);
  }
  const combined = join(configDir, `.fabrik-apply-${randomBytes(4).toString('hex')}.conf`);
  try {
    await writeFileAtomic(combined, `${config.trimEnd()}\n!\n${commands.join('\n')}\n`);
    await runVtyshFile(target, combined);
  } finally {
    await rm(combined, { force: true });
  }
}

/** Runs `apply`; when FRR refuses it, reloads `previous` (unless `restoreOnFailure: false`) and throws FRR's words. */
async function restoringOnFailure(
  options: ReloadFrrOptions,
  configDir: string,
  previous: string,
  apply: () => Promise<void>,
): Promise<void> {
  try {
    await apply();
  } catch (e) {
    if (!isFrrReloadError(e) || options.restoreOnFailure === false) throw e;
    const restoreError = await restore(options, configDir, previous);
    throw new FrrReloadError('reload', e.frrMessage, restoreError === undefined, restoreError);
  }
}

/** frr-reload.py --reload in the passes FRR 8.4 needs, then its leftovers (see both). */
async function applyWithFrrReload(
  target: FrrTarget,
  configDir: string,
  file: string,
  config: string,
  running: string,
): Promise<void> {
  await applyInTwoPasses(target, configDir, file, config, running);
  await applyLeftovers(target, file, config);
}

/**
 * frr-reload.py 8.4 feeds the lines it adds to one `vtysh -f` run without leaving the previous
 * context: a `vrf NAME` line that follows `router bgp ... vrf X` lines is taken for bgpd's
 * `vrf-policy NAME` and fails half-way, and the L3 VNI can end up on the default VRF (measured
 * in the lab). So the `vrf` blocks are applied first, on their own (the running configuration
 * with the new `vrf` blocks), then the whole file, which then adds nothing inside `vrf` blocks.
 * Removals are unaffected: frr-reload.py runs each as a single vtysh command. Before both, a VRF
 * that goes away loses its L3 VNI (see {@link droppedL3Vnis}): otherwise bgpd refuses to remove
 * its BGP instance. Its kernel device must still exist then ({@link releaseL3Vnis}).
 */
async function applyInTwoPasses(
  target: FrrTarget,
  configDir: string,
  file: string,
  config: string,
  running: string,
): Promise<void> {
  const dropped = droppedL3Vnis(running, config);
  if (dropped.length > 0) await releaseL3VnisNow(target, configDir, dropped);
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

/**
 * Takes each L3 VNI off its VRF (`vrf X` / `no vni N`), holding the pathspace's reload lock.
 *
 * Zebra tells bgpd that a VRF lost its L3 VNI only while the VRF's kernel device exists (FRR 8.4,
 * measured in the lab): once the device is gone, bgpd keeps the VNI and refuses
 * `no router bgp ASN vrf X` ("Please unconfigure l3vni N") until the device is back and the VNI
 * is taken off again. A caller that deletes a VRF's device calls this first, with the device there.
 */
export function releaseL3Vnis(
  target: FrrTarget & {
    readonly configDir?: string;
    readonly runDir?: string;
    readonly lockTimeoutMs?: number;
  },
  vnis: readonly { vrf: string; vni: number }[],
): Promise<void> {
  validateNetnsName(target.pathspace);
  return withFrrReloadLock(target, () => releaseL3VnisNow(target, configDirOf(target), vnis));
}

async function releaseL3VnisNow(
  target: FrrTarget,
  configDir: string,
  vnis: readonly { vrf: string; vni: number }[],
): Promise<void> {
  const vniFile = join(configDir, `.fabrik-vnis-${randomBytes(4).toString('hex')}.conf`);
  try {
    await writeFileAtomic(vniFile, l3VniReleaseCommands(vnis));
    await runVtyshFile(target, vniFile);
  } finally {
    await rm(vniFile, { force: true });
  }
}

/**
 * frr-reload.py 8.4 removes a whole context before the lines inside it, and the `no` command of
 * such a line enters the context again, which creates it anew: after all BFD profiles are removed
 * an empty `bfd` block stays, and after `neighbor X bfd profile P` is removed `neighbor X bfd`
 * stays (BFD still on for that peer). When a reload removed lines, a second `--test` finds what is
 * left over, and a second `--reload` removes it (its deletions no longer nest).
 */
async function applyLeftovers(target: FrrTarget, file: string, config: string): Promise<void> {
  // `write memory` has replaced CONFIG_DIR/frr.conf with the running configuration.
  await writeFileAtomic(file, config);
  const left = parseReloadTest(await runReload(target, ['--test', file], 'test'));
  if (left.added.length + left.removed.length > 0)
    await runReload(target, ['--reload', '--stdout', file], 'reload');
}

/** Applies a file of configuration commands as additions. Equivalent to: `vtysh -N PATHSPACE -f FILE`. */
const runVtyshFile = (target: FrrTarget, file: string): Promise<void> =>
  runVtyshForReload(target, ['-f', file]);

/** vtysh as a step of a reload: a failure is the reload's FrrReloadError, with FRR's message. */
async function runVtyshForReload(target: FrrTarget, args: readonly string[]): Promise<void> {
  try {
    await runFrrTool(target, 'vtysh', ['-N', target.pathspace, ...args]);
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

/** Reloads the configuration that ran before a failed reload; resolves with why it failed, if it did. */
async function restore(target: FrrTarget, configDir: string, previous: string): Promise<Error | undefined> {
  const file = join(configDir, `.fabrik-restore-${randomBytes(4).toString('hex')}.conf`);
  try {
    await writeFileAtomic(file, previous);
    await applyInTwoPasses(target, configDir, file, previous, await showRunningConfig(target));
    return undefined;
  } catch (e) {
    // vtysh's output (a CommandError's stdout) can hold the running configuration: keep FRR's
    // redacted message only.
    if (isCommandError(e))
      return new FrrReloadError('reload', frrMessage(e.stdout, e.stderr) || `exit code ${e.exitCode}`, false);
    return e instanceof Error ? e : new Error(String(e));
  } finally {
    await rm(file, { force: true });
  }
}
