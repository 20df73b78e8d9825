// `npm run gen:crds`: writes deploy/crds/<plural>.<group>.yaml from the zod schemas and removes
// generated files of kinds that no longer exist. Run with
// node --conditions=@fabrik/source --import tsx packages/api/scripts/gen-crds.ts
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CRD_DIR, renderCrdFiles } from './crd-files.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = join(root, CRD_DIR);
await mkdir(dir, { recursive: true });
const files = renderCrdFiles();
for (const name of await readdir(dir)) {
  if (name.endsWith('.yaml') && !files.has(name)) {
    await rm(join(dir, name));
    console.log(`removed ${CRD_DIR}/${name}`);
  }
}
for (const [name, text] of files) {
  const path = join(dir, name);
  const old = await readFile(path, 'utf8').catch(() => undefined);
  if (old === text) continue;
  await writeFile(path, text);
  console.log(`wrote ${CRD_DIR}/${name}`);
}
