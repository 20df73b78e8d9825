// Bundles fabrik-agent-netns into one file, dist/fabrik-agent-netns.cjs, which
// bin/fabrik-agent-netns.mjs runs (see @fabrik/cni-bundle): one file to read instead of hundreds of
// modules, compiled with a V8 code cache per verb. @fabrik/frr's built-in templates go beside it,
// where the bundled renderer looks for them (./templates/ of the bundle's file).
import { bundleProgram } from '@fabrik/cni-bundle';
import { BUILTIN_TEMPLATES_DIR } from '@fabrik/frr';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'fabrik-agent-netns.cjs');
const size = await bundleProgram({
  entry: join(root, 'src', 'main.ts'),
  outfile,
  codeCache: {
    dir: '/var/cache/fabrik/agent-netns/code-cache',
    env: 'FABRIK_AGENT_NETNS_CODE_CACHE_DIR',
    key: 'verb',
  },
  assets: [{ from: BUILTIN_TEMPLATES_DIR, to: 'templates' }],
  // Its code cache for a fresh node's first start (see @fabrik/cni-bundle).
  warmUp: { args: ['--version'] },
});
process.stdout.write(`${outfile} (${Math.round(size / 1024)} KiB)\n`);
