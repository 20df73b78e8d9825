import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRD_DIR, renderCrdFiles } from '../../scripts/crd-files.js';

const dir = fileURLToPath(new URL(`../../../../${CRD_DIR}/`, import.meta.url));

describe('deploy/crds', () => {
  it('holds exactly what the zod schemas generate (run `npm run gen:crds` after changing a schema)', async () => {
    const expected = renderCrdFiles();
    const present = (await readdir(dir)).filter((n) => n.endsWith('.yaml')).sort();
    expect(present).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) {
      expect(await readFile(`${dir}${name}`, 'utf8'), name).toBe(text);
    }
  });
});
