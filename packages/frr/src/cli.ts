#!/usr/bin/env node
// The fabrik-frr executable: see cli-run.ts for the commands, README.md for examples.
import { runFrrCli } from './cli-run.js';

runFrrCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`fabrik-frr: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
