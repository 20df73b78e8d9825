import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMergePatch, jsonEqual, type JsonValue } from './merge-patch.js';

/** RFC 7386 MergePatch(target, patch), section 2: the server side, to check the patches against. */
function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue | undefined {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: { [key: string]: JsonValue } =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value)!;
  }
  return result;
}

describe('createMergePatch', () => {
  it('is undefined for equal values, whatever the key order', () => {
    expect(createMergePatch({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBeUndefined();
  });

  it('sends only what changed, null for what went away, lists whole', () => {
    const current = {
      configStatus: 'provisioning',
      errorMessage: 'vrf red: spec.vni',
      vrfs: { red: 1, blue: 2 },
      list: [1, 2],
    };
    const desired = { configStatus: 'provisioned', vrfs: { red: 1, blue: 3 }, list: [1] };
    expect(createMergePatch(current, desired)).toEqual({
      configStatus: 'provisioned',
      errorMessage: null,
      vrfs: { blue: 3 },
      list: [1],
    });
  });

  it('treats undefined members as absent and null in desired as "remove"', () => {
    expect(createMergePatch({ a: 1 }, { a: 1, b: undefined })).toBeUndefined();
    expect(createMergePatch({ a: 1, b: 2 }, { a: 1, b: null })).toEqual({ b: null });
    expect(createMergePatch({ a: 1 }, { a: 1, b: null })).toBeUndefined();
  });

  it('replaces a non-object wholesale', () => {
    expect(createMergePatch(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(createMergePatch({ a: 1 }, 'x')).toBe('x');
  });

  const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom<JsonValue>(true, false, 0, 1, 'a', 'b'),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const withoutNulls = (v: JsonValue): JsonValue =>
    Array.isArray(v)
      ? v.map(withoutNulls)
      : typeof v === 'object' && v !== null
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== null)
              .map(([k, x]) => [k, withoutNulls(x)]),
          )
        : v;
  const obj = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), json, { maxKeys: 4 });

  it('property: the server applying the patch to current gets exactly desired', () => {
    fc.assert(
      fc.property(obj, obj, (current, desiredRaw) => {
        const desired = withoutNulls(desiredRaw);
        const patch = createMergePatch(current, desired);
        if (patch === undefined) expect(jsonEqual(current, desired)).toBe(true);
        else expect(applyMergePatch(current, patch)).toEqual(desired);
      }),
    );
  });

  it('property: a patch of one section, applied to a whole status, leaves the other sections alone', () => {
    fc.assert(
      fc.property(obj, obj, obj, (netns, host, desiredRaw) => {
        const desired = withoutNulls(desiredRaw);
        const patch = createMergePatch(netns, desired);
        const status = { netns, host };
        const after = patch === undefined ? status : applyMergePatch(status, { netns: patch });
        expect(after).toEqual({ netns: patch === undefined ? netns : desired, host });
      }),
    );
  });
});
