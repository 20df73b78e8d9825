import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  formatLabelSelector,
  matchesLabelSelector,
  validateLabelSelector,
  type LabelSelector,
  type LabelSelectorRequirement,
  type Labels,
} from './selector.js';
import type { LabelSelector as ApiLabelSelector } from '@fabrik/api';
import { isInvalidArgumentError } from './errors.js';

const req = (key: string, operator: string, values?: string[]): LabelSelectorRequirement => ({
  key,
  operator,
  ...(values && { values }),
});
const exprs = (...matchExpressions: LabelSelectorRequirement[]): LabelSelector => ({ matchExpressions });

// Cases re-expressed from Kubernetes' apimachinery labels/selector_test.go (TestSelectorMatches,
// TestRequirementSelectorMatching) in LabelSelector form: `x=y` is matchLabels, `x!=y` NotIn with one
// value, `x` Exists, `!x` DoesNotExist. (Gt/Lt have no LabelSelector form.)
const matchCases: { name: string; selector: LabelSelector; labels: Labels; match: boolean }[] = [
  { name: 'empty selector', selector: {}, labels: { x: 'y' }, match: true },
  { name: 'x=y', selector: { matchLabels: { x: 'y' } }, labels: { x: 'y' }, match: true },
  { name: 'x=y,z=w', selector: { matchLabels: { x: 'y', z: 'w' } }, labels: { x: 'y', z: 'w' }, match: true },
  {
    name: 'x!=y,z!=w on other values',
    selector: exprs(req('x', 'NotIn', ['y']), req('z', 'NotIn', ['w'])),
    labels: { x: 'z', z: 'a' },
    match: true,
  },
  {
    name: 'key named notin',
    selector: { matchLabels: { notin: 'in' } },
    labels: { notin: 'in' },
    match: true,
  },
  { name: 'x (exists)', selector: exprs(req('x', 'Exists')), labels: { x: 'z' }, match: true },
  { name: '!x (absent)', selector: exprs(req('x', 'DoesNotExist')), labels: { y: 'z' }, match: true },
  { name: 'x=z on no labels', selector: { matchLabels: { x: 'z' } }, labels: {}, match: false },
  { name: 'x=y on x=z', selector: { matchLabels: { x: 'y' } }, labels: { x: 'z' }, match: false },
  {
    name: 'x=y,z=w with x wrong',
    selector: { matchLabels: { x: 'y', z: 'w' } },
    labels: { x: 'w', z: 'w' },
    match: false,
  },
  {
    name: 'x!=y,z!=w with z=w',
    selector: exprs(req('x', 'NotIn', ['y']), req('z', 'NotIn', ['w'])),
    labels: { x: 'z', z: 'w' },
    match: false,
  },
  { name: 'x (exists) on other key', selector: exprs(req('x', 'Exists')), labels: { y: 'z' }, match: false },
  { name: '!x on x present', selector: exprs(req('x', 'DoesNotExist')), labels: { x: 'z' }, match: false },
  {
    name: 'foo=bar,baz=blah on both',
    selector: { matchLabels: { foo: 'bar', baz: 'blah' } },
    labels: { foo: 'bar', baz: 'blah' },
    match: true,
  },
  {
    name: 'extra required label missing',
    selector: { matchLabels: { foo: 'bar', foobar: 'bar', baz: 'blah' } },
    labels: { foo: 'bar', baz: 'blah' },
    match: false,
  },
  {
    name: 'x in (foo), y notin (alpha)',
    selector: exprs(req('x', 'In', ['foo']), req('y', 'NotIn', ['alpha'])),
    labels: { x: 'foo', y: 'baz' },
    match: true,
  },
  {
    name: 'x in (foo), y in (alpha)',
    selector: exprs(req('x', 'In', ['foo']), req('y', 'In', ['alpha'])),
    labels: { x: 'foo', y: 'baz' },
    match: false,
  },
  {
    name: 'x notin ("") with x absent, y exists with empty value',
    selector: exprs(req('x', 'NotIn', ['']), req('y', 'Exists')),
    labels: { y: '' },
    match: true,
  },
  {
    name: '!x, y exists with empty value',
    selector: exprs(req('x', 'DoesNotExist'), req('y', 'Exists')),
    labels: { y: '' },
    match: true,
  },
  {
    name: 'x notin (""), !y with y present',
    selector: exprs(req('x', 'NotIn', ['']), req('y', 'DoesNotExist')),
    labels: { y: '' },
    match: false,
  },
  {
    name: 'x in ("") with x absent',
    selector: exprs(req('x', 'In', [''])),
    labels: { y: 'baz' },
    match: false,
  },
  { name: 'x= matches an empty value', selector: { matchLabels: { x: '' } }, labels: { x: '' }, match: true },
  {
    name: 'matchLabels AND matchExpressions (TestLabelSelectorAsSelector)',
    selector: { matchLabels: { foo: 'bar' }, matchExpressions: [req('baz', 'In', ['qux', 'norf'])] },
    labels: { foo: 'bar', baz: 'norf' },
    match: true,
  },
  {
    name: 'matchLabels holds, matchExpressions does not',
    selector: { matchLabels: { foo: 'bar' }, matchExpressions: [req('baz', 'In', ['qux', 'norf'])] },
    labels: { foo: 'bar', baz: 'other' },
    match: false,
  },
  {
    name: 'prefixed keys',
    selector: exprs(req('this-is-another-dns.domain.com/key-with-dash', 'In', ['so', 'what'])),
    labels: { 'this-is-another-dns.domain.com/key-with-dash': 'what' },
    match: true,
  },
  {
    name: 'NotIn with several values, key present with another value',
    selector: exprs(req('0.1.2.domain/99', 'NotIn', ['10.10.100.1', 'tick.tack.clock'])),
    labels: { '0.1.2.domain/99': 'x' },
    match: true,
  },
];

// Cases re-expressed from TestRequirementConstructor and TestLabelSelectorAsSelector: invalid
// requirements are refused with the field named.
const invalidCases: { name: string; selector: LabelSelector; field: string }[] = [
  {
    name: 'In without values',
    selector: exprs(req('x1', 'In')),
    field: 'selector.matchExpressions[0].values',
  },
  {
    name: 'NotIn with an empty list',
    selector: exprs(req('x2', 'NotIn', [])),
    field: 'selector.matchExpressions[0].values',
  },
  {
    name: 'Exists with a value',
    selector: exprs(req('x8', 'Exists', ['foo'])),
    field: 'selector.matchExpressions[0].values',
  },
  {
    name: 'DoesNotExist with values',
    selector: exprs(req('baz', 'DoesNotExist', ['qux', 'norf'])),
    field: 'selector.matchExpressions[0].values',
  },
  {
    name: 'key longer than a DNS name allows',
    selector: exprs(req('a'.repeat(254), 'Exists')),
    field: 'selector.matchExpressions[0].key',
  },
  {
    name: 'value longer than 63 characters',
    selector: exprs(req('x16', 'In', ['a'.repeat(254)])),
    field: 'selector.matchExpressions[0].values[0]',
  },
  {
    name: 'value with a space',
    selector: exprs(req('x17', 'In', ['a b'])),
    field: 'selector.matchExpressions[0].values[0]',
  },
  {
    name: 'unsupported operator',
    selector: exprs(req('x18', 'unsupportedOp')),
    field: 'selector.matchExpressions[0].operator',
  },
  {
    name: 'Gt has no LabelSelector form',
    selector: exprs(req('x', 'Gt', ['1'])),
    field: 'selector.matchExpressions[0].operator',
  },
  {
    name: 'matchLabels value too long (TestValidatedSelectorFromSet)',
    selector: { matchLabels: { Key: 'axahm2EJ8Phiephe2eixohbee9eGeiyees1thuozi1xoh0GiuH3diewi8iem7Nui' } },
    field: 'selector.matchLabels["Key"]',
  },
  {
    name: 'matchLabels key with two slashes',
    selector: { matchLabels: { 'a/b/c': 'x' } },
    field: 'selector.matchLabels["a/b/c"]',
  },
  {
    name: 'uppercase prefix',
    selector: exprs(req('Example.com/x', 'Exists')),
    field: 'selector.matchExpressions[0].key',
  },
  {
    name: 'second expression named by index',
    selector: exprs(req('ok', 'Exists'), req('x', 'In', [])),
    field: 'selector.matchExpressions[1].values',
  },
];

describe('matchesLabelSelector (cases of Kubernetes selector_test.go)', () => {
  it.each(matchCases)('$name -> $match', ({ selector, labels, match }) => {
    expect(matchesLabelSelector(selector, labels)).toBe(match);
  });

  it('an absent selector matches every node (fabrik nodeSelector meaning), also without labels', () => {
    expect(matchesLabelSelector(undefined, { any: 'thing' })).toBe(true);
    expect(matchesLabelSelector(undefined, undefined)).toBe(true);
  });

  it('objects without labels: only NotIn / DoesNotExist / empty selectors match', () => {
    expect(matchesLabelSelector({}, undefined)).toBe(true);
    expect(matchesLabelSelector(exprs(req('x', 'NotIn', ['a'])), undefined)).toBe(true);
    expect(matchesLabelSelector(exprs(req('x', 'DoesNotExist')), undefined)).toBe(true);
    expect(matchesLabelSelector(exprs(req('x', 'Exists')), undefined)).toBe(false);
    expect(matchesLabelSelector({ matchLabels: { x: '' } }, undefined)).toBe(false);
  });

  it("takes @fabrik/api's LabelSelector (the nodeSelector of fabrik's kinds) as it is", () => {
    const nodeSelector: ApiLabelSelector = {
      matchLabels: { 'fabrik.dev/rack': 'r1' },
      matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'DoesNotExist' }],
    };
    expect(matchesLabelSelector(nodeSelector, { 'fabrik.dev/rack': 'r1' })).toBe(true);
    expect(
      matchesLabelSelector(nodeSelector, {
        'fabrik.dev/rack': 'r1',
        'node-role.kubernetes.io/control-plane': '',
      }),
    ).toBe(false);
  });

  it('does not mistake inherited properties for labels', () => {
    expect(matchesLabelSelector(exprs(req('constructor', 'Exists')), {})).toBe(false);
    expect(matchesLabelSelector(exprs(req('toString', 'DoesNotExist')), {})).toBe(true);
  });
});

describe('invalid selectors (TestRequirementConstructor)', () => {
  it.each(invalidCases)('$name: refused naming $field', ({ selector, field }) => {
    let thrown: unknown;
    try {
      matchesLabelSelector(selector, { x1: 'a' });
    } catch (e) {
      thrown = e;
    }
    expect(isInvalidArgumentError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ field });
  });

  it('names the field under the path the caller gives', () => {
    expect(() => validateLabelSelector(exprs(req('x', 'In')), 'spec.nodeSelector')).toThrow(
      /^spec\.nodeSelector\.matchExpressions\[0\]\.values: must not be empty for operator In$/,
    );
  });
});

describe('formatLabelSelector (TestToString, TestLabelSelectorAsSelector)', () => {
  it.each([
    { selector: {}, text: '' },
    { selector: { matchLabels: { foo: 'bar' } }, text: 'foo=bar' },
    { selector: exprs(req('baz', 'In', ['qux', 'norf'])), text: 'baz in (norf,qux)' },
    {
      selector: { matchLabels: { foo: 'bar' }, matchExpressions: [req('baz', 'In', ['qux', 'norf'])] },
      text: 'baz in (norf,qux),foo=bar',
    },
    {
      selector: exprs(req('x', 'In', ['abc', 'def']), req('y', 'NotIn', ['jkl']), req('z', 'Exists')),
      text: 'x in (abc,def),y notin (jkl),z',
    },
    {
      selector: exprs(req('x', 'NotIn', ['abc', 'def']), req('z', 'DoesNotExist')),
      text: 'x notin (abc,def),!z',
    },
  ])('$text', ({ selector, text }) => {
    expect(formatLabelSelector(selector)).toBe(text);
  });

  it('undefined selects everything', () => {
    expect(formatLabelSelector(undefined)).toBe('');
  });
});

// Properties over generated selectors and label sets.
const labelKey = fc.constantFrom('a', 'b', 'c', 'example.com/d', 'e_f');
const labelValue = fc.constantFrom('', 'x', 'y', 'z1', 'v.2');
const labelSet = fc.dictionary(labelKey, labelValue, { maxKeys: 5 });
const requirement: fc.Arbitrary<LabelSelectorRequirement> = fc.oneof(
  fc.record({
    key: labelKey,
    operator: fc.constantFrom('In', 'NotIn'),
    values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ key: labelKey, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
);
const selectorArb: fc.Arbitrary<LabelSelector> = fc.record(
  {
    matchLabels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    matchExpressions: fc.array(requirement, { maxLength: 4 }),
  },
  { requiredKeys: [] },
);

describe('selector properties', () => {
  it('a selector is the AND of its parts', () => {
    fc.assert(
      fc.property(selectorArb, labelSet, (selector, labels) => {
        const parts = [
          ...Object.entries(selector.matchLabels ?? {}).map(([k, v]) => ({ matchLabels: { [k]: v } })),
          ...(selector.matchExpressions ?? []).map((r) => exprs(r)),
        ];
        expect(matchesLabelSelector(selector, labels)).toBe(
          parts.every((p) => matchesLabelSelector(p, labels)),
        );
      }),
    );
  });

  it('NotIn is the negation of In, and DoesNotExist the negation of Exists', () => {
    fc.assert(
      fc.property(
        labelKey,
        fc.uniqueArray(labelValue, { minLength: 1, maxLength: 3 }),
        labelSet,
        (key, values, labels) => {
          expect(matchesLabelSelector(exprs(req(key, 'NotIn', values)), labels)).toBe(
            !matchesLabelSelector(exprs(req(key, 'In', values)), labels),
          );
          expect(matchesLabelSelector(exprs(req(key, 'DoesNotExist')), labels)).toBe(
            !matchesLabelSelector(exprs(req(key, 'Exists')), labels),
          );
        },
      ),
    );
  });

  it('a label set matches the matchLabels of any of its subsets, and the empty selector', () => {
    fc.assert(
      fc.property(labelSet, fc.func(fc.boolean()), (labels, keep) => {
        const subset = Object.fromEntries(Object.entries(labels).filter((_, i) => keep(i)));
        expect(matchesLabelSelector({ matchLabels: subset }, labels)).toBe(true);
        expect(matchesLabelSelector({}, labels)).toBe(true);
      }),
    );
  });

  it('adding labels never breaks a selector made only of matchLabels, In and Exists', () => {
    const positive = fc.record(
      {
        matchLabels: fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
        matchExpressions: fc.array(
          requirement.filter((r) => r.operator === 'In' || r.operator === 'Exists'),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(positive, labelSet, labelSet, (selector, labels, extra) => {
        const merged = { ...extra, ...labels };
        if (matchesLabelSelector(selector, labels)) expect(matchesLabelSelector(selector, merged)).toBe(true);
      }),
    );
  });

  it('matching never changes the selector or the labels', () => {
    fc.assert(
      fc.property(selectorArb, labelSet, (selector, labels) => {
        const before = structuredClone({ selector, labels });
        matchesLabelSelector(selector, labels);
        formatLabelSelector(selector);
        expect({ selector, labels }).toEqual(before);
      }),
    );
  });
});
