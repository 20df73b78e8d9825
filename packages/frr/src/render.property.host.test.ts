import fc from 'fast-check';
import { propertyRunOptions } from '@fabrik/testkit/arbitraries';
import { validFrrIntentArbitrary as frrIntentArbitrary } from '../test/intent-arbitrary.js';
import { describe, expect, it } from 'vitest';
import { checkBgpdConfig } from './runtime/bgpd-check.js';
import { checkFrrConfig } from './runtime/check.js';
import { FRR_TEMPLATE_SETS, isFrrIntentError } from './intent.js';
import { renderFrrConfig } from './render.js';

// Generated valid intents render, in both template sets, to configurations that real FRR takes:
// vtysh -C (grammar) and bgpd -C (bgpd's command handlers). One bgpd run per configuration, a
// bounded count by default (FABRIK_PROPERTY_RUNS=N for more).
describe('generated valid intents and real FRR', () => {
  it.each(FRR_TEMPLATE_SETS)(
    '[%s] render to configurations vtysh -C and bgpd -C accept',
    { timeout: 300_000 },
    async (mode) => {
      await fc.assert(
        fc.asyncProperty(frrIntentArbitrary(), async (intent) => {
          let text: string;
          try {
            text = renderFrrConfig(intent, { mode, hostname: 'fabrik-lab' });
          } catch (e) {
            // What vrf-ibgp cannot leak is refused (render.property.test.ts checks which paths).
            if (mode === 'vrf-ibgp' && isFrrIntentError(e)) return;
            throw e;
          }
          expect(await checkBgpdConfig(text)).toEqual({ ok: true });
          expect(await checkFrrConfig(text)).toEqual({ ok: true });
        }),
        propertyRunOptions(25),
      );
    },
  );
});
