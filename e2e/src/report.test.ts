import { describe, expect, it } from 'vitest';
import { LabReport, StepFailedError } from './report.js';

describe('LabReport', () => {
  it('ends with LAB OK and the number of passed checks', async () => {
    const lines: string[] = [];
    const report = new LabReport((l) => lines.push(l));
    await report.step('build', async () => 'built 3 things');
    await report.check('works', async () => {});
    expect(report.finish()).toBe(0);
    expect(lines.at(-1)).toMatch(/^\nLAB OK 1 checks passed \(\d+\.\d s\)$/);
    expect(lines.some((l) => l.includes('built 3 things'))).toBe(true);
  });

  it('names every failed check and keeps going after one', async () => {
    const lines: string[] = [];
    const report = new LabReport((l) => lines.push(l));
    await report.check('first', async () => {
      throw new Error('nope');
    });
    await report.check('second', async () => {});
    expect(report.finish()).toBe(1);
    expect(lines.at(-1)).toBe('\nLAB FAILED first');
    expect(lines.some((l) => l.includes('nope'))).toBe(true);
  });

  it('a failed step throws StepFailedError with the cause', async () => {
    const report = new LabReport(() => {});
    const err = await report
      .step('boom', async () => Promise.reject(new Error('cause')))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailedError);
    expect((err as StepFailedError).cause).toBeInstanceOf(Error);
    expect(report.finish()).toBe(1);
  });

  it('fails when no check ran', () => {
    const lines: string[] = [];
    expect(new LabReport((l) => lines.push(l)).finish()).toBe(1);
    expect(lines.at(-1)).toBe('\nLAB FAILED no checks ran');
  });
});
