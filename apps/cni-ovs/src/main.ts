import { runPlugin, SPEC_VERSIONS } from './skel/index.js';
import { fabrikOvsPlugin } from './plugin.js';

// Entry point of the bundled `fabrik-ovs` binary: a CNI plugin, or `fabrik-ovs install --dir DIR`.

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<number> {
  const [sub, ...rest] = process.argv.slice(2);
  if (sub === 'install') return (await import('./install.js')).runInstall(rest, process.argv[1] ?? '');
  const env = process.env;
  const deps = async () => ({ env, openOvs: (await import('./ovs-session.js')).openOvsSession });
  let out = '';
  const code = await runPlugin(
    fabrikOvsPlugin(deps),
    { versions: SPEC_VERSIONS },
    { env, stdin: await readStdin(), stdout: (t) => (out += t) },
  );
  await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`fabrik-ovs: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
