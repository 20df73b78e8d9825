import { describe, expect, it } from 'vitest';
import { ApiValidationError, parseVrf } from './index.js';
import { FabrikError, isFabrikError } from './errors.js';
import { StructuralSchemaError } from './crd/structural.js';
import { FrrIntentError, parseFrrIntent } from './routing-intent/parse.js';

describe('FabrikError', () => {
  it("is the base of api's errors: one guard and the code tell them apart", () => {
    const invalid = parseVrf({
      apiVersion: 'network.fabrik.dev/v1alpha1',
      kind: 'VRF',
      metadata: { name: 'x' },
    });
    const thrown = (() => {
      try {
        parseFrrIntent({});
      } catch (e) {
        return e;
      }
    })();
    const errors: [unknown, string][] = [
      [!invalid.ok && invalid.error, 'API_VALIDATION_FAILED'],
      [thrown, 'FRR_INTENT_INVALID'],
      [new StructuralSchemaError('properties.spec', 'no type'), 'STRUCTURAL_SCHEMA'],
    ];
    for (const [error, code] of errors) {
      expect(error).toBeInstanceOf(FabrikError);
      expect(isFabrikError(error, code)).toBe(true);
      expect(isFabrikError(error, 'OTHER')).toBe(false);
    }
    expect(invalid.ok || invalid.error).toBeInstanceOf(ApiValidationError);
    expect(thrown).toBeInstanceOf(FrrIntentError);
    expect((thrown as Error).name).toBe('FrrIntentError');
  });

  it('takes a numeric code where another specification numbers its errors', () => {
    expect(isFabrikError(new FabrikError(11, 'try again later'), 11)).toBe(true);
    expect(isFabrikError(new Error('plain'))).toBe(false);
  });
});
