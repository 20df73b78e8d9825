import { describe, expect, it } from 'vitest';
import { diffLines } from './diff.js';

function newSide(diff: string): string {
  // Rebuilds the new text from the old one and a diff with full context (checks the hunks).
  return diff
    .split('\n')
    .filter((l) => /^[ +]/.test(l) && !l.startsWith('+++'))
    .map((l) => l.slice(1))
    .join('\n');
}

describe('diffLines', () => {
  it('is empty for equal texts', () => {
    expect(diffLines('a\nb\n', 'a\nb\n')).toBe('');
  });
  it('prints a unified diff with hunk headers', () => {
    const diff = diffLines('a\nb\nc\nd\n', 'a\nc\nd\ne\n', { fromLabel: 'running', toLabel: 'rendered' });
    expect(diff).toBe(
      ['--- running', '+++ rendered', '@@ -1,4 +1,4 @@', ' a', '-b', ' c', ' d', '+e', ''].join('\n'),
    );
  });
  it('splits far-apart changes into hunks', () => {
    const a = Array.from({ length: 30 }, (_, i) => `l${i}`);
    const b = [...a];
    b[2] = 'X';
    b[25] = 'Y';
    const diff = diffLines(a.join('\n'), b.join('\n'), { context: 1 });
    expect(diff.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toContain('@@ -2,3 +2,3 @@\n l1\n-l2\n+X\n l3\n');
  });
  it('reconstructs the new text from a full-context diff', () => {
    const a = 'router bgp 1\n x\n y\nexit\n!\nvrf a\nexit-vrf\n';
    const b = 'router bgp 1\n y\n z\nexit\n!\nvrf b\nexit-vrf\n!\n';
    expect(newSide(diffLines(a, b, { context: 100 }))).toBe(b.trimEnd());
    expect(diffLines('', 'x\n')).toContain('+x');
    expect(diffLines('x\n', '')).toContain('-x');
  });
  it('never prints a password, in changed or context lines: the change shows, the secret does not', () => {
    const diff = diffLines(
      'router bgp 1\n neighbor x password old\n neighbor y password same\n neighbor y bfd\n',
      'router bgp 1\n neighbor x password new\n neighbor y password same\n',
    );
    expect(diff).not.toMatch(/old|new|same/);
    expect(diff.split('\n').slice(2)).toEqual([
      '@@ -1,4 +1,3 @@',
      ' router bgp 1',
      '- neighbor x password <redacted>',
      '+ neighbor x password <redacted>',
      '  neighbor y password <redacted>',
      '- neighbor y bfd',
      '',
    ]);
  });
});
