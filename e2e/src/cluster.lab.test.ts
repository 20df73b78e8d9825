import { expect, it } from 'vitest';
import { uniqueName } from '@fabrik/testkit';
import { runClusterLab } from './cluster/scenario.js';
import { LabReport } from './report.js';

it('the lab cluster (npm run lab): every step and check passes', async () => {
  const lines: string[] = [];
  const report = new LabReport((l) => lines.push(l));
  await runClusterLab(report, { prefix: uniqueName('e') + '-' });
  const verdict = report.finish();
  expect(report.failures, lines.join('\n')).toEqual([]);
  expect(report.checksPassed).toBeGreaterThanOrEqual(15);
  expect(verdict).toBe(0);
}, 900_000);
