// `npm run deploy:render -- [KUSTOMIZATION] [--kubectl 1.20|1.32] [--validate]`: prints what
// `kubectl apply -k KUSTOMIZATION` would apply (default deploy/base), rendered by the kubectl
// release fetched by tools/ci/ensure-deps.sh; --validate checks every object against the
// Kubernetes OpenAPI schemas and exits 1 naming each problem.
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { KUBECTL_VERSIONS, objectId, renderKustomization, type KubectlVersion } from './render.js';
import { validateObject } from './validate.js';

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: deploy:render [KUSTOMIZATION] [--kubectl ${KUBECTL_VERSIONS.join('|')}] [--validate]\n`,
  );
  process.exit(2);
}

let dir = 'deploy/base';
let version: KubectlVersion = '1.32';
let validate = false;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === '--kubectl') {
    const v = args[++i];
    if (!KUBECTL_VERSIONS.includes(v as KubectlVersion))
      usage(`--kubectl ${v ?? ''}: not one of ${KUBECTL_VERSIONS.join(', ')}`);
    version = v as KubectlVersion;
  } else if (arg === '--validate') validate = true;
  else if (!arg.startsWith('-')) dir = arg;
  else usage(`unknown option ${arg}`);
}

const { objects } = await renderKustomization(resolve(dir), version);
if (validate) {
  const problems: string[] = [];
  for (const o of objects) for (const p of await validateObject(o)) problems.push(`${objectId(o)}: ${p}`);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(1);
  }
}
process.stdout.write(objects.map((o) => `---\n${stringify(o)}`).join(''));
