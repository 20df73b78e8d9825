import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkBgpdConfig } from './runtime/bgpd-check.js';
import { checkFrrConfig } from './runtime/check.js';
import { FRR_TEMPLATE_SETS, isFrrIntentError } from './intent.js';
import { renderFrrConfig } from './render.js';

// Golden files: __fixtures__/<case>.input.(yaml|json) -> <case>.<set>.golden.conf for every
// template set. UPDATE_GOLDEN=1 rewrites them. Each golden is also checked by real FRR
// (`vtysh -C` for the grammar, `bgpd -C` for what bgpd's handlers refuse), so a golden that FRR
// would reject cannot be committed.
const fixtures = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const update = process.env.UPDATE_GOLDEN === '1';
const cases = (await readdir(fixtures))
  .filter((f) => /\.input\.(ya?ml|json)$/.test(f))
  .map((f) => ({ name: f.replace(/\.input\.(ya?ml|json)$/, ''), file: f }))
  .sort((a, b) => a.name.localeCompare(b.name));

describe.each(cases)('golden $name', ({ name, file }) => {
  it.each(FRR_TEMPLATE_SETS)('[%s] matches the golden file and passes vtysh -C and bgpd -C', async (mode) => {
    const intent: unknown = parse(await readFile(join(fixtures, file), 'utf8'));
    const golden = join(fixtures, `${name}.${mode}.golden.conf`);
    const refused = join(fixtures, `${name}.${mode}.golden.error`);
    let text: string;
    try {
      text = renderFrrConfig(intent, { mode, hostname: 'fabrik-lab' });
    } catch (e) {
      // What a template set cannot express is refused, naming the field: that message is the golden.
      if (!isFrrIntentError(e)) throw e;
      if (update) await writeFile(refused, `${e.message}\n`);
      expect(`${e.message}\n`).toBe(await readFile(refused, 'utf8'));
      expect(existsSync(golden)).toBe(false);
      return;
    }
    if (update) await writeFile(golden, text);
    expect(text).toBe(await readFile(golden, 'utf8'));
    expect(existsSync(refused)).toBe(false);
    // The same text twice: rendering is deterministic.
    expect(renderFrrConfig(intent, { mode, hostname: 'fabrik-lab' })).toBe(text);
    expect(await checkFrrConfig(text)).toEqual({ ok: true });
    expect(await checkBgpdConfig(text)).toEqual({ ok: true });
  });
});

// Intents written for @fabrik/frr 0.1 render as they did then, apart from the fabric loop guard
// (on by default since) and vrf-ibgp's VRF router IDs and route distinguishers (0.1 gave every
// VRF the node's router ID, so no iBGP session between a VRF and the default VRF came up):
// __fixtures__/v0.1 holds 0.1's goldens.
describe.each(['full', 'l2-only', 'minimal'])('0.1 golden %s', (name) => {
  it.each(FRR_TEMPLATE_SETS)('[%s] is reproduced with fabricLoopGuard disabled', async (mode) => {
    const file = cases.find((c) => c.name === name)?.file ?? '';
    const intent = parse(await readFile(join(fixtures, file), 'utf8')) as Record<string, unknown>;
    const text = renderFrrConfig(
      { ...intent, fabricLoopGuard: { enabled: false } },
      { mode, hostname: 'fabrik-lab' },
    );
    expect(text).toBe(await readFile(join(fixtures, 'v0.1', `${name}.${mode}.golden.conf`), 'utf8'));
  });
});

it('finds the fixtures (an empty list would pass vacuously)', () => {
  expect(cases.map((c) => c.name)).toEqual(
    expect.arrayContaining([
      'full',
      'l2-only',
      'minimal',
      'loop-guard',
      'one-asn',
      'vrf-peers',
      'ipv6',
      'route-reflectors',
      'filters',
      'route-targets',
      'bfd-timers',
      'name-collisions',
      'set-actions',
      'graceful',
    ]),
  );
});
