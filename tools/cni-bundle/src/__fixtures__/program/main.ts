// A program to bundle (bundle.host.test.ts): reads a file beside its module, as @fabrik/frr reads its
// templates, and imports its verb's module on demand.
import { readFileSync } from 'node:fs';

const greeting = readFileSync(new URL('./greetings/hello.txt', import.meta.url), 'utf8').trim();
const verb = process.argv[2] ?? '';
if (verb === 'greet') {
  void import('./verb.js').then(({ shout }) => process.stdout.write(`${shout(greeting)}\n`));
} else {
  process.stderr.write(`unknown verb ${verb}\n`);
  process.exitCode = 2;
}
