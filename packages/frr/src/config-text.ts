import { redactConfigText } from './intent.js';

// Pure reading of FRR configuration text and of what FRR's tools print about it: the blocks of a
// configuration, its vrf blocks and L3 VNIs, frr-reload.py's --test output, FRR's messages.

/** One line frr-reload.py adds or removes, with the context lines it sits in. */
export interface FrrConfigChange {
  /** Enclosing blocks, outermost first: ['router bgp 65000 vrf red', 'address-family ipv4 unicast']. */
  readonly context: readonly string[];
  readonly line: string;
}

/** `show running-config` as vtysh prints it, without the "Building configuration..." preamble: a loadable file. */
export function runningConfigFile(output: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Current configuration:'));
  return `${lines
    .slice(start + 1)
    .join('\n')
    .trim()}\n`;
}

/** Top-level blocks of a configuration: each starts at an unindented line (`!`, `exit`, `end` excluded). */
export function splitConfigBlocks(config: string): string[][] {
  const blocks: string[][] = [];
  for (const raw of config.split('\n')) {
    const line = raw.trimEnd();
    if (line === '' || line === '!' || line === 'end') continue;
    const last = blocks[blocks.length - 1];
    if (last && (line.startsWith(' ') || line === 'exit' || line === 'exit-vrf')) last.push(line);
    else blocks.push([line]);
  }
  return blocks;
}

const isVrfBlock = (b: readonly string[]) => /^vrf \S+$/.test(b[0] ?? '');

/**
 * The running configuration with the `vrf` blocks of `config` added or replaced (running `vrf`
 * blocks that `config` drops are kept: they go in the second pass, after their BGP instances).
 * Null when the `vrf` blocks of `config` are all running already.
 */
export function withVrfBlocksOf(running: string, config: string): string | null {
  const text = (b: readonly string[]) => b.join('\n');
  const runningBlocks = splitConfigBlocks(running);
  const wanted = splitConfigBlocks(config).filter(isVrfBlock);
  const runningVrfs = new Set(runningBlocks.filter(isVrfBlock).map(text));
  if (wanted.every((b) => runningVrfs.has(text(b)))) return null;
  const wantedNames = new Set(wanted.map((b) => b[0]));
  const blocks = [
    ...runningBlocks.filter((b) => !isVrfBlock(b)),
    ...wanted,
    ...runningBlocks.filter((b) => isVrfBlock(b) && !wantedNames.has(b[0])),
  ];
  return `${blocks.map(text).join('\n!\n')}\n!\n`;
}

/**
 * The `vrf` blocks of `config` whose VRF is not running at all, as a file of commands, when they
 * are the only `vrf` blocks that differ from the running ones; null otherwise.
 */
export function newVrfBlocksOnly(running: string, config: string): string | null {
  const text = (b: readonly string[]) => b.join('\n');
  const runningVrfs = splitConfigBlocks(running).filter(isVrfBlock);
  const runningNames = new Set(runningVrfs.map((b) => b[0]));
  const runningTexts = new Set(runningVrfs.map(text));
  const differing = splitConfigBlocks(config)
    .filter(isVrfBlock)
    .filter((b) => !runningTexts.has(text(b)));
  if (differing.length === 0 || differing.some((b) => runningNames.has(b[0]))) return null;
  return `${differing.map(text).join('\n!\n')}\n!\n`;
}

/**
 * The L3 VNI of every running `vrf` block that `config` drops (running order). bgpd refuses to
 * delete a VRF's BGP instance while zebra maps an L3 VNI to the VRF ("Please unconfigure l3vni
 * N"), and frr-reload.py removes `router bgp ASN vrf X` before the `vrf X` block: the VNI goes first.
 */
export function droppedL3Vnis(running: string, config: string): { vrf: string; vni: number }[] {
  const wanted = new Set(
    splitConfigBlocks(config)
      .filter(isVrfBlock)
      .map((b) => b[0]),
  );
  return splitConfigBlocks(running)
    .filter((b) => isVrfBlock(b) && !wanted.has(b[0]))
    .flatMap((b) => {
      const vni = b.map((l) => /^ vni (\d+)/.exec(l)?.[1]).find((v) => v !== undefined);
      return vni === undefined ? [] : [{ vrf: b[0]!.slice('vrf '.length), vni: Number(vni) }];
    });
}

/** vtysh commands that take each L3 VNI off its VRF (`vrf X` / ` no vni N` / `exit-vrf`). */
export const l3VniReleaseCommands = (vnis: readonly { vrf: string; vni: number }[]): string =>
  `${vnis.map((v) => `vrf ${v.vrf}\n no vni ${v.vni}\nexit-vrf`).join('\n!\n')}\n!\n`;

/** The L3 VNI of every `vrf NAME` block of a configuration. */
export function expectedL3Vnis(config: string): { vrf: string; vni: number }[] {
  const out: { vrf: string; vni: number }[] = [];
  let vrf: string | null = null;
  for (const raw of config.split('\n')) {
    const line = raw.trimEnd();
    const open = /^vrf (\S+)$/.exec(line);
    if (open) {
      vrf = open[1] ?? null;
      continue;
    }
    // Any line without indentation (exit-vrf, !, the next block) closes the vrf block.
    if (!line.startsWith(' ')) vrf = null;
    const vni = /^ vni (\d+)$/.exec(line);
    if (vrf !== null && vni) out.push({ vrf, vni: Number(vni[1]) });
  }
  return out;
}

/**
 * Lines frr-reload.py never removes (its "unconfigurable" lines): a running one that the file
 * lacks is no change.
 */
const UNREMOVABLE =
  /^(agentx|frr version|frr defaults|username|password|line vty|service integrated-vtysh-config)/;

/**
 * Every configuration line with the lines that open its contexts, as FRR prints them: a line's
 * contexts are the nearest lines above it with less indentation. `!`, `exit...` and `end` close
 * nothing here (the indentation does) and are left out.
 */
function linesInContext(config: string): FrrConfigChange[] {
  const out: FrrConfigChange[] = [];
  const open: { indent: number; line: string }[] = [];
  for (const raw of config.split('\n')) {
    const line = raw.trimEnd();
    const text = line.trim();
    if (text === '' || text === '!' || text === 'end' || text.startsWith('exit')) continue;
    const indent = line.length - line.trimStart().length;
    while (open.length > 0 && open[open.length - 1]!.indent >= indent) open.pop();
    out.push({ context: open.map((o) => o.line), line: text });
    open.push({ indent, line: text });
  }
  return out;
}

/**
 * The lines `config` has and `running` lacks, and the running lines `config` lacks, each with its
 * contexts, compared as text: what frr-reload.py --test reports when FRR prints the configuration
 * as it was written (fabrik's templates are written that way). Where FRR prints a line otherwise,
 * this reports it removed and added again, which frr-reload.py might not: a caller acts on the
 * result alone only when nothing is removed (see vtyshApplyCommands); a line of `config` that
 * is running is no change for either. A line that opens a context stands for itself (the context
 * `['router bgp 65000']` has the line `router bgp 65000` in context []). Pure.
 */
export function diffConfigLines(
  running: string,
  config: string,
): { added: FrrConfigChange[]; removed: FrrConfigChange[] } {
  const key = (c: FrrConfigChange) => [...c.context, c.line].join('\n');
  const runningLines = linesInContext(running);
  const wantedLines = linesInContext(config);
  const runningKeys = new Set(runningLines.map(key));
  const wantedKeys = new Set(wantedLines.map(key));
  const redacted = (c: FrrConfigChange) => ({ context: c.context, line: redactConfigText(c.line) });
  return {
    added: wantedLines.filter((c) => !runningKeys.has(key(c))).map(redacted),
    removed: runningLines
      .filter((c) => !wantedKeys.has(key(c)) && !UNREMOVABLE.test(c.context[0] ?? c.line))
      .map(redacted),
  };
}

/** Parses the "Lines To Delete" / "Lines To Add" sections of `frr-reload.py --test` into running lines removed and lines added. */
export function parseReloadTest(output: string): { added: FrrConfigChange[]; removed: FrrConfigChange[] } {
  const added: FrrConfigChange[] = [];
  const removed: FrrConfigChange[] = [];
  let section: FrrConfigChange[] | null = null;
  let entry: string[] = [];
  const flush = () => {
    const last = entry[entry.length - 1]?.trim();
    if (section && last !== undefined) {
      // The delete section lists the commands that remove a line (`no X` for X, `X` for `no X`):
      // report the running line itself.
      const line = section === removed ? (last.startsWith('no ') ? last.slice(3) : `no ${last}`) : last;
      section.push({ context: entry.slice(0, -1).map((l) => l.trim()), line: redactConfigText(line) });
    }
    entry = [];
  };
  for (const raw of output.split('\n')) {
    const line = raw.trimEnd();
    if (line === 'Lines To Delete' || line === 'Lines To Add') {
      flush();
      section = line === 'Lines To Add' ? added : removed;
      continue;
    }
    if (line === '' || /^=+$/.test(line)) continue;
    // A line without indentation starts a new entry: the context lines, then the changed line.
    if (!line.startsWith(' ')) flush();
    entry.push(line);
  }
  flush();
  return { added, removed };
}

/**
 * What FRR said, without frr-reload.py's INFO logging (which dumps configuration lines):
 * vtysh's `line N: ...` and `% ...` messages and the WARNING/ERROR lines with their
 * continuation, passwords redacted, duplicates dropped.
 */
export function frrMessage(stdout: string, stderr: string): string {
  const kept: string[] = [];
  let continuation = false;
  for (const raw of `${stdout}\n${stderr}`.split('\n')) {
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '').trim();
    if (line === '') continue;
    const logged = /^\d{4}-\d\d-\d\d [\d:,]+\s+(\w+):\s*(.*)$/.exec(line);
    if (logged) {
      continuation = logged[1] === 'WARNING' || logged[1] === 'ERROR' || logged[1] === 'CRITICAL';
      if (continuation && logged[2]) kept.push(logged[2]);
      continue;
    }
    if (continuation || /^line \d+:/.test(line) || line.startsWith('%') || /^Error/i.test(line))
      kept.push(line);
  }
  return redactConfigText([...new Set(kept)].join('\n'));
}
