import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCommandError } from '@fabrik/netcore';
import { frrMessage, parseReloadTest, type FrrConfigChange } from '../config-text.js';
import { runningAsApplied } from './pathspace-files.js';
import { FrrReloadError } from './reload-errors.js';
import { FRR_RELOAD_SCRIPT } from './reload.js';
import { runFrrTool, type FrrTarget } from './vtysh.js';

/**
 * What applying `config` would change in the running FRR, without changing anything: the lines
 * frr-reload.py would add and remove. The configuration goes to a private temporary file (never
 * to FRR's own frr.conf). Throws {@link FrrReloadError} (stage `test`) with FRR's words when
 * frr-reload.py refuses the file. Nothing, without running frr-reload.py, when FRR runs `config`
 * as {@link reloadFrr} last applied it ({@link runningAsApplied}).
 * Equivalent to: `python3 frr-reload.py -N PATHSPACE --test FILE`.
 */
export async function pendingFrrChanges(
  target: FrrTarget & { readonly runDir?: string },
  config: string,
): Promise<{ added: FrrConfigChange[]; removed: FrrConfigChange[] }> {
  if ((await runningAsApplied(target, config)) !== undefined) return { added: [], removed: [] };
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-frr-test-'));
  try {
    const file = join(dir, 'frr.conf');
    await writeFile(file, config, { mode: 0o600 });
    let stdout: string;
    try {
      ({ stdout } = await runFrrTool(target, 'python3', [
        FRR_RELOAD_SCRIPT,
        '-N',
        target.pathspace,
        '--test',
        file,
      ]));
    } catch (e) {
      if (!isCommandError(e)) throw e;
      throw new FrrReloadError('test', frrMessage(e.stdout, e.stderr) || `exit code ${e.exitCode}`, false);
    }
    return parseReloadTest(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
