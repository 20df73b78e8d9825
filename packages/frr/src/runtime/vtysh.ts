import { runCommand, runInNetns, validateNetnsName, type RunResult } from '@fabrik/netcore';
import { runningConfigFile } from '../config-text.js';

/** Where FRR runs: its pathspace (`-N NAME`) and, optionally, the netns to run tools in. */
export interface FrrTarget {
  /** FRR pathspace (`-N NAME`): /etc/frr/NAME, /run/frr/NAME. */
  readonly pathspace: string;
  /** Run FRR's tools inside this netns (`ip netns exec NS ...`); default: where we are. */
  readonly netns?: string;
  /**
   * How long one run of an FRR tool may take (a vtysh call, each frr-reload.py step of a reload):
   * a hung FRR fails the call instead of holding its caller. Default: 120 s.
   */
  readonly toolTimeoutMs?: number;
}

const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

/** Runs an FRR tool for `target`, inside its netns when one is given, within `target.toolTimeoutMs`. */
export function runFrrTool(target: FrrTarget, file: string, args: readonly string[]): Promise<RunResult> {
  validateNetnsName(target.pathspace);
  const timeoutMs = target.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return target.netns === undefined
    ? runCommand(file, args, { timeoutMs })
    : runInNetns(target.netns, file, args, { timeoutMs });
}

/** `vtysh -N PATHSPACE -c COMMAND`; resolves with what vtysh printed. */
export async function vtysh(target: FrrTarget, command: string): Promise<string> {
  return (await runFrrTool(target, 'vtysh', ['-N', target.pathspace, '-c', command])).stdout;
}

/**
 * Several commands through one vtysh process (`vtysh -E -c A -c B ...`); resolves with each
 * command's output, in order. A vtysh start is about half a second of CPU in the lab kernel. vtysh
 * prints the outputs back to back, and some commands print nothing at all (`show evpn vni json`
 * without VNIs), so the outputs are told apart by vtysh's echo (`-E`): `PROMPT# COMMAND` before each.
 */
export async function vtyshCommands(target: FrrTarget, commands: readonly string[]): Promise<string[]> {
  if (commands.length === 0) return [];
  const args = ['-N', target.pathspace, '-E', ...commands.flatMap((c) => ['-c', c])];
  return splitEchoedOutput((await runFrrTool(target, 'vtysh', args)).stdout, commands);
}

/**
 * The outputs of `vtysh -E -c ...` per command: the lines after each command's echo (`PROMPT#
 * COMMAND`, the prompt being a hostname) up to the next one's. Pure; throws when an echo is
 * missing (a vtysh that does not echo), rather than giving one command's output to another.
 */
export function splitEchoedOutput(stdout: string, commands: readonly string[]): string[] {
  const lines = stdout.split('\n');
  const isEcho = (line: string, command: string) => {
    const at = line.length - command.length - 2;
    return at > 0 && line.endsWith(`# ${command}`) && !/\s/.test(line.slice(0, at));
  };
  const starts: number[] = [];
  let from = 0;
  for (const command of commands) {
    const at = lines.findIndex((l, i) => i >= from && isEcho(l, command));
    if (at < 0) throw new Error(`vtysh did not echo "${command}": cannot tell its output apart`);
    starts.push(at);
    from = at + 1;
  }
  return starts.map((at, i) => {
    const body = lines.slice(at + 1, starts[i + 1] ?? lines.length).join('\n');
    return i === starts.length - 1 || body === '' ? body : `${body}\n`;
  });
}

/** `show running-config` without vtysh's "Building configuration..." preamble: a loadable file. */
export async function showRunningConfig(target: FrrTarget): Promise<string> {
  return runningConfigFile(await vtysh(target, 'show running-config'));
}

/** Parses vtysh JSON output; FRR prints nothing at all for some empty tables. */
export function parseVtyshJson(text: string): unknown {
  return text.trim() === '' ? {} : JSON.parse(text);
}
