// `npm run test:chaos`: the reliability suite. Runs inside the lab kernel (tools/ci/chaos.sh boots
// it). FABRIK_CHAOS=reduced runs a small plan, FABRIK_CHAOS=bad-input only the bad-input matrix,
// FABRIK_CHAOS=churn only the full plan's churn.
import { BAD_INPUT_PLAN, CHURN_PLAN, chaosResult, FULL_PLAN, REDUCED_PLAN, runChaos } from './chaos/suite.js';
import { LabReport } from './report.js';

const PLANS = {
  full: FULL_PLAN,
  reduced: REDUCED_PLAN,
  'bad-input': BAD_INPUT_PLAN,
  churn: CHURN_PLAN,
} as const;
const planName = (process.env['FABRIK_CHAOS'] ?? 'full') as keyof typeof PLANS;
const plan = PLANS[planName] ?? FULL_PLAN;
const report = new LabReport();
process.stdout.write(
  `fabrik chaos: the lab cluster broken on purpose (${planName} plan, seed ${plan.seed})\n\n`,
);
const trials = await runChaos(report, plan);
const verdict = report.finish();
const failed = trials.filter((t) => !t.converged || t.leaked > 0);
for (const t of failed) process.stdout.write(`trial failed: ${t.suite} ${t.name}: ${t.detail ?? ''}\n`);
process.stdout.write(`${chaosResult(trials)}\n`);
process.exitCode = verdict !== 0 || failed.length > 0 || trials.length === 0 ? 1 : 0;
