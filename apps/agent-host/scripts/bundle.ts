// Bundles fabrik-agent-host into one file, dist/fabrik-agent-host.cjs, which bin/fabrik-agent-host.mjs
// runs (see @fabrik/cni-bundle): one file to read instead of hundreds of modules, compiled with a V8
// code cache per verb.
import { bundleProgram } from '@fabrik/cni-bundle';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'fabrik-agent-host.cjs');
const size = await bundleProgram({
  entry: join(root, 'src', 'cli.ts'),
  outfile,
  codeCache: {
    dir: '/var/cache/fabrik/agent-host/code-cache',
    env: 'FABRIK_AGENT_HOST_CODE_CACHE_DIR',
    key: 'verb',
  },
  // Its code cache for a fresh node's first start (see @fabrik/cni-bundle).
  warmUp: { args: ['--version'] },
});
process.stdout.write(`${outfile} (${Math.round(size / 1024)} KiB)\n`);
