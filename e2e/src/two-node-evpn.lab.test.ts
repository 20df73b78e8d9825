import { expect, it } from 'vitest';
import { uniqueName } from '@fabrik/testkit';
import { LabReport } from './report.js';
import { runTwoNodeEvpn } from './two-node-evpn/scenario.js';

it('two-node EVPN lab: every step and check passes', async () => {
  const lines: string[] = [];
  const report = new LabReport((l) => lines.push(l));
  await runTwoNodeEvpn(report, { prefix: uniqueName('e') + '-' });
  const verdict = report.finish();
  expect(report.failures, lines.join('\n')).toEqual([]);
  expect(report.checksPassed).toBeGreaterThanOrEqual(5);
  expect(verdict).toBe(0);
}, 300_000);
