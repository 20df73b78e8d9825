import { redactConfigText } from './intent.js';

export interface DiffOptions {
  /** Label of the old side (`--- LABEL`). */
  readonly fromLabel?: string;
  /** Label of the new side (`+++ LABEL`). */
  readonly toLabel?: string;
  /** Unchanged lines shown around each change. Default: 3. */
  readonly context?: number;
}

type Op = { kind: ' ' | '-' | '+'; line: string };

/**
 * A unified diff of two texts, line by line (Myers' O(ND) algorithm); '' when they are equal.
 * Pure, for `fabrik-frr diff` and for logging what a reload would change: every printed line goes
 * through `redactConfigText`, so a changed BGP password shows as a changed line without either
 * secret, and unchanged ones in the context lines are hidden too.
 */
export function diffLines(from: string, to: string, options: DiffOptions = {}): string {
  const a = splitLines(from);
  const b = splitLines(to);
  const ops = myers(a, b);
  if (ops.every((o) => o.kind === ' ')) return '';
  const context = options.context ?? 3;
  const out = [`--- ${options.fromLabel ?? 'a'}`, `+++ ${options.toLabel ?? 'b'}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]?.kind === ' ') {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is at most 2*context unchanged lines away.
    const start = Math.max(0, i - context);
    let end = i;
    let quiet = 0;
    for (let j = i; j < ops.length; j++) {
      if (ops[j]?.kind === ' ') {
        if (++quiet > 2 * context) break;
      } else {
        quiet = 0;
        end = j;
      }
    }
    const stop = Math.min(ops.length, end + 1 + context);
    const before = ops.slice(0, start);
    const hunk = ops.slice(start, stop);
    const aStart = before.filter((o) => o.kind !== '+').length;
    const bStart = before.filter((o) => o.kind !== '-').length;
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aStart + 1},${aLen} +${bStart + 1},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${redactConfigText(o.line)}`);
    i = stop;
  }
  return `${out.join('\n')}\n`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function myers(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  const at = (arr: Int32Array, k: number) => arr[offset + k] ?? 0;
  // trace[d] is the furthest-reaching frontier before round d.
  const trace: Int32Array[] = [];
  search: for (let d = 0; d <= n + m; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && at(v, k - 1) < at(v, k + 1)) ? at(v, k + 1) : at(v, k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) break search;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const frontier = trace[d] ?? v;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(frontier, k - 1) < at(frontier, k + 1)) ? k + 1 : k - 1;
    const prevX = at(frontier, prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x] ?? '' });
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: '+', line: b[prevY] ?? '' });
      else ops.push({ kind: '-', line: a[prevX] ?? '' });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}
