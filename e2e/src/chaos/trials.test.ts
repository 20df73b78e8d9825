import { describe, expect, it } from 'vitest';
import { percentile, resultLine, seededRandom, summarize } from './trials.js';

describe('chaos trials', () => {
  it('percentile is nearest-rank', () => {
    expect(percentile([], 95)).toBe(0);
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95)).toBe(19);
    expect(percentile([30, 10, 20], 50)).toBe(20);
  });

  it('summarizes trials into the RESULT line', () => {
    const s = summarize([
      { suite: 'kill', name: '1', converged: true, leaked: 0, recoverMs: 100 },
      { suite: 'kill', name: '2', converged: false, leaked: 2, recoverMs: 900.4 },
      { suite: 'bad input', name: 'x', converged: true, leaked: 0 },
    ]);
    expect(s).toEqual({ trials: 3, converged: 2, leaked: 1, recoverP95Ms: 900 });
    expect(resultLine(s)).toBe('RESULT chaos trials=3 converged=2 leaked=1 recover_p95_ms=900');
  });

  it('the random sequence depends only on the seed', () => {
    const [a, b, c] = [seededRandom(7), seededRandom(7), seededRandom(8)];
    const take = (r: () => number) => Array.from({ length: 5 }, r);
    const first = take(a);
    expect(take(b)).toEqual(first);
    expect(take(c)).not.toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
