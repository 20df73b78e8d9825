import fc from 'fast-check';
import { propertyRunOptions, shuffledIntent } from '@fabrik/testkit/arbitraries';
import { validFrrIntentArbitrary as frrIntentArbitrary } from '../test/intent-arbitrary.js';
import { describe, expect, it } from 'vitest';
import { FRR_TEMPLATE_SETS, isFrrIntentError, parseFrrIntent, type FrrIntentInput } from './intent.js';
import { renderFrrConfig } from './render.js';

// Property tests over generated valid intents (seeded; FABRIK_PROPERTY_RUNS=N for more runs).
// That FRR accepts the rendered text is render.property.host.test.ts's job.

/** What a template set may refuse of a valid intent, by the path of the field. */
const SET_REFUSALS = [
  /^vrfs\[\d+\]\.importVrfs\[\d+\]$/,
  /^vrfs\[\d+\]\.addressFamilies$/,
  /^vrfs\[\d+\]\.vni$/,
  /^routerId$/,
];

function renderOrRefusal(intent: FrrIntentInput, mode: (typeof FRR_TEMPLATE_SETS)[number]): string {
  try {
    return renderFrrConfig(intent, { mode, hostname: 'fabrik-lab' });
  } catch (e) {
    if (!isFrrIntentError(e) || mode !== 'vrf-ibgp') throw e;
    expect(e.issues.every((i) => SET_REFUSALS.some((r) => r.test(i.path)))).toBe(true);
    // Paths cite array indices, which a shuffle changes: only the refusal itself must not change.
    return 'refused by the template set';
  }
}

describe('generated valid intents', () => {
  it('are valid', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(frrIntentArbitrary(), (intent) => {
        expect(() => parseFrrIntent(intent)).not.toThrow();
      }),
      propertyRunOptions(100),
    );
  });

  it.each(FRR_TEMPLATE_SETS)(
    '[%s] render the same text twice and with every array shuffled',
    { timeout: 120_000 },
    (mode) => {
      fc.assert(
        fc.property(frrIntentArbitrary(), fc.integer(), (intent, seed) => {
          const text = renderOrRefusal(intent, mode);
          expect(renderOrRefusal(intent, mode)).toBe(text);
          let state = seed;
          const random = () => {
            // A small deterministic generator (mulberry32): the shuffle replays with the seed.
            state = (state + 0x6d2b79f5) | 0;
            let t = Math.imul(state ^ (state >>> 15), 1 | state);
            t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
            return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
          };
          expect(renderOrRefusal(shuffledIntent(intent, random), mode)).toBe(text);
        }),
        propertyRunOptions(50),
      );
    },
  );
});
