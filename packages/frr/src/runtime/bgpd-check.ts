import { mkdtemp, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCommandError, runCommand } from '@fabrik/netcore';
import type { FrrCheckProblem, FrrCheckResult } from './check.js';
import { redactConfigText } from '../intent.js';

// `vtysh -C` checks grammar only: `aggregate-address 10.0.0.1/32`, a peer-group nobody defined or
// `import vrf route-map` without a name all pass it. bgpd's own dry run (`bgpd -C`) runs the real
// command handlers, so it refuses what a reload would refuse. It exits 0 either way: the verdict
// is in what it prints.

/** Where Debian and FRR's packages install the daemons. */
export const FRR_DAEMON_DIR = '/usr/lib/frr';

/** Where FRR daemons keep a crash-log directory per process (`bgpd.<pid>`), never removed by `-C`. */
const FRR_CRASHLOG_DIR = '/var/tmp/frr';

/**
 * Checks the BGP part of FRR configuration text with `bgpd -C` (a dry run: nothing is contacted,
 * nothing changes). Blocks that belong to other daemons (`vrf NAME ... exit-vrf` of zebra and
 * staticd, `bfd ... exit` of bfdd, static routes) are blanked first, keeping line numbers, so the
 * problems' `line` is a line of `text`.
 * Rejects with the netcore CommandNotFoundError when bgpd is not installed.
 */
export async function checkBgpdConfig(text: string): Promise<FrrCheckResult> {
  const dir = await mkdtemp(join(tmpdir(), 'fabrik-bgpd-check-'));
  const file = join(dir, 'bgpd.conf');
  const before = await crashLogDirs();
  try {
    await writeFile(file, bgpdPart(text), { mode: 0o600 });
    let output: string;
    try {
      // -S: stay root, so the 0600 file stays readable; -Z: no zebra to talk to.
      const result = await runCommand(join(FRR_DAEMON_DIR, 'bgpd'), ['-S', '-Z', '-C', '-f', file]);
      output = `${result.stderr}\n${result.stdout}`;
    } catch (e) {
      if (!isCommandError(e)) throw e;
      const said = `${e.stderr}\n${e.stdout}`.trim();
      return (
        failure(said) ?? {
          ok: false,
          message: redactConfigText(said) || `bgpd -C exited with code ${e.exitCode}`,
          problems: [],
        }
      );
    }
    return failure(output) ?? { ok: true };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await removeCrashLogDirs(before);
  }
}

/** The lines bgpd reads; the lines of other daemons become empty lines. */
export function bgpdPart(text: string): string {
  let skipping: 'vrf' | 'bfd' | null = null;
  return text
    .split('\n')
    .map((line) => {
      if (skipping === null) {
        if (/^vrf \S+$/.test(line)) skipping = 'vrf';
        else if (line === 'bfd') skipping = 'bfd';
        else if (/^(ip|ipv6) route /.test(line)) return '';
        else return line;
        return '';
      }
      if ((skipping === 'vrf' && line === 'exit-vrf') || (skipping === 'bfd' && line === 'exit'))
        skipping = null;
      return '';
    })
    .join('\n');
}

/**
 * bgpd's complaints: `... Config Failed on config line 7: ...`, and `% ...` messages, which
 * either explain such a line or, for a few handlers, are the only sign of a refusal.
 */
function failure(output: string): FrrCheckResult | null {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const failedLines: FrrCheckProblem[] = [];
  const bareMessages: FrrCheckProblem[] = [];
  const said: string[] = [];
  for (const l of lines) {
    const m = /on config line (\d+):/.exec(l);
    const text = l.replace(/^.*?\] /, '');
    if (m) failedLines.push({ line: Number(m[1]), message: redactConfigText(text) });
    else if (l.startsWith('%')) bareMessages.push({ line: null, message: redactConfigText(l) });
    // Log lines (timestamped) that are not about a config line are noise (zclient, MPLS).
    else if (/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /.test(l)) continue;
    said.push(text);
  }
  const problems = failedLines.length > 0 ? failedLines : bareMessages;
  if (problems.length === 0) return null;
  return { ok: false, message: redactConfigText(said.join('\n')), problems };
}

async function crashLogDirs(): Promise<Set<string>> {
  try {
    return new Set((await readdir(FRR_CRASHLOG_DIR)).filter((n) => n.startsWith('bgpd.')));
  } catch {
    return new Set();
  }
}

/**
 * `bgpd -C` leaves an empty `/var/tmp/frr/bgpd.<pid>` behind. Removes the ones that appeared
 * during the check and whose process is gone; rmdir (not rm -r) never touches a crash log.
 */
async function removeCrashLogDirs(before: ReadonlySet<string>): Promise<void> {
  for (const name of await crashLogDirs()) {
    if (before.has(name) || existsSync(join('/proc', name.slice('bgpd.'.length)))) continue;
    await rmdir(join(FRR_CRASHLOG_DIR, name)).catch(() => undefined);
  }
}
