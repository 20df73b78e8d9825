import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCommandError, runCommand } from '@fabrik/netcore';
import { redactConfigText } from '../intent.js';

/** One line FRR rejected. */
export interface FrrCheckProblem {
  /** 1-based line of the checked text; null when FRR did not say. */
  readonly line: number | null;
  /** FRR's own message, passwords redacted. */
  readonly message: string;
}

/** The outcome of {@link checkFrrConfig}: FRR accepted the text, or what it said against it. */
export type FrrCheckResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly message: string; readonly problems: readonly FrrCheckProblem[] };

/**
 * Checks the syntax of FRR configuration text offline with `vtysh -C -f FILE` (a dry run: no
 * daemon is contacted, nothing changes). Semantic errors such as an undefined peer-group are
 * only found by a reload against running daemons ({@link reloadFrr}).
 * Rejects with the netcore CommandNotFoundError when vtysh is not installed.
 */
export async function checkFrrConfig(text: string): Promise<FrrCheckResult> {
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-frr-check-'));
  const file = join(dir, 'frr.conf');
  try {
    await writeFile(file, text, { mode: 0o600 });
    await runCommand('vtysh', ['-C', '-f', file]);
    return { ok: true };
  } catch (e) {
    if (!isCommandError(e)) throw e;
    const message =
      redactConfigText(`${e.stderr}\n${e.stdout}`.trim()) || `vtysh -C exited with code ${e.exitCode}`;
    return { ok: false, message, problems: parseProblems(message) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `line 2: % Unknown command[25]:  neighbr x` -> { line: 2, message: '% Unknown command[25]:  neighbr x' } */
function parseProblems(output: string): FrrCheckProblem[] {
  const problems = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^line (\d+): (.*)$/.exec(l);
      return m ? { line: Number(m[1]), message: m[2] ?? '' } : { line: null, message: l };
    });
  return problems;
}
