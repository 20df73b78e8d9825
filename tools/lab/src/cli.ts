import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInLab } from './uml.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const usage = `fabrik-lab: run commands inside the real-kernel lab (User-Mode Linux)

  fabrik-lab run [--env K=V]... -- COMMAND [ARGS...]   boot the lab, run COMMAND, exit with its code
  fabrik-lab test [VITEST ARGS...]                     run the *.lab.test.ts files (all, or those the
                                                       path filters in VITEST ARGS name) in one vitest process
`;

async function main(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === 'run') {
    const env: Record<string, string> = {};
    while (rest[0] === '--env') {
      const [k, ...v] = (rest[1] ?? '').split('=');
      if (!k) throw new Error('--env takes KEY=VALUE');
      env[k] = v.join('=');
      rest.splice(0, 2);
    }
    if (rest[0] === '--') rest.shift();
    if (rest.length === 0) throw new Error('run: no command given\n' + usage);
    return (await runInLab({ command: rest, env })).exitCode;
  }
  if (verb === 'test') {
    // From the repository root whatever the caller's directory (a package's `test:lab` script
    // runs in the package): vitest's config and the path filters are the root's.
    const vitest = join(REPO_ROOT, 'node_modules/.bin/vitest');
    // CI=1: the lab console is a terminal, but nobody watches it interactively.
    return (
      await runInLab({
        command: [vitest, 'run', '--project', 'lab', ...rest],
        env: { CI: '1' },
        cwd: REPO_ROOT,
        // Every lab test file in one boot: about 25 min on a quiet machine (the kill -9 trials
        // alone take minutes); CI's budget is 90 min for the whole of npm test.
        timeoutMs: 60 * 60_000,
      })
    ).exitCode;
  }
  process.stdout.write(usage);
  return verb === '--help' || verb === '-h' ? 0 : 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`fabrik-lab: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
