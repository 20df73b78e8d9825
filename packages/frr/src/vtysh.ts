import { runCommand, runInNetns, validateNetnsName, type RunResult } from '@fabrik/netcore';
import { runningConfigFile } from './config-text.js';

/** Where FRR runs: its pathspace (`-N NAME`) and, optionally, the netns to run tools in. */
export interface FrrTarget {
  /** FRR pathspace (`-N NAME`): /etc/frr/NAME, /run/frr/NAME. */
  readonly pathspace: string;
  /** Run FRR's tools inside this netns (`ip netns exec NS ...`); default: where we are. */
  readonly netns?: string;
}

/** Runs an FRR tool for `target`, inside its netns when one is given. */
export function runFrrTool(
  target: FrrTarget,
  file: string,
  args: readonly string[],
  timeoutMs = 120_000,
): Promise<RunResult> {
  validateNetnsName(target.pathspace);
  return target.netns === undefined
    ? runCommand(file, args, { timeoutMs })
    : runInNetns(target.netns, file, args, { timeoutMs });
}

/** `vtysh -N PATHSPACE -c COMMAND`; resolves with what vtysh printed. */
export async function vtysh(target: FrrTarget, command: string): Promise<string> {
  return (await runFrrTool(target, 'vtysh', ['-N', target.pathspace, '-c', command])).stdout;
}

/** `show running-config` without vtysh's "Building configuration..." preamble: a loadable file. */
export async function showRunningConfig(target: FrrTarget): Promise<string> {
  return runningConfigFile(await vtysh(target, 'show running-config'));
}

/** Parses vtysh JSON output; FRR prints nothing at all for some empty tables. */
export function parseVtyshJson(text: string): unknown {
  return text.trim() === '' ? {} : JSON.parse(text);
}
