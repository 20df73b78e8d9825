import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  findCondition,
  formatKubeTime,
  removeCondition,
  setCondition,
  type Condition,
  type ConditionInput,
} from './conditions.js';
import { isInvalidArgumentError } from './errors.js';

const t0 = new Date('2026-11-30T10:00:00.123Z');
const t1 = new Date('2026-11-30T10:05:00.999Z');

const ready = (
  status: Condition['status'],
  reason = 'Applied',
  message = '',
  observedGeneration?: number,
): ConditionInput => ({
  type: 'Ready',
  status,
  reason,
  message,
  ...(observedGeneration !== undefined && { observedGeneration }),
});

describe('setCondition (apimachinery SetStatusCondition semantics)', () => {
  it('adds a new condition with now as lastTransitionTime, whole seconds', () => {
    const r = setCondition(undefined, ready('True'), t0);
    expect(r).toEqual({
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Applied',
          message: '',
          lastTransitionTime: '2026-11-30T10:00:00Z',
        },
      ],
      changed: true,
      transitioned: true,
    });
  });

  it('keeps lastTransitionTime when only reason, message or observedGeneration change', () => {
    const first = setCondition([], ready('False', 'Provisioning', 'waiting', 1), t0).conditions;
    const r = setCondition(first, ready('False', 'FrrReloadFailed', 'vtysh said no', 2), t1);
    expect(r.changed).toBe(true);
    expect(r.transitioned).toBe(false);
    expect(r.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'FrrReloadFailed',
        message: 'vtysh said no',
        observedGeneration: 2,
        lastTransitionTime: '2026-11-30T10:00:00Z',
      },
    ]);
  });

  it('moves lastTransitionTime when the status changes', () => {
    const first = setCondition([], ready('False'), t0).conditions;
    const r = setCondition(first, ready('True'), t1);
    expect(r.transitioned).toBe(true);
    expect(r.conditions[0]!.lastTransitionTime).toBe('2026-11-30T10:05:00Z');
  });

  it('reports no change for an identical condition, at any later time', () => {
    const first = setCondition([], ready('True', 'Applied', 'ok', 3), t0).conditions;
    const r = setCondition(first, ready('True', 'Applied', 'ok', 3), t1);
    expect(r).toEqual({ conditions: first, changed: false, transitioned: false });
  });

  it('touches only its own type and keeps the order', () => {
    const list: Condition[] = [
      { type: 'A', status: 'True', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
      {
        type: 'Ready',
        status: 'False',
        reason: 'R',
        message: '',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      { type: 'B', status: 'Unknown', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
    ];
    const r = setCondition(list, ready('True'), t0);
    expect(r.conditions.map((c) => c.type)).toEqual(['A', 'Ready', 'B']);
    expect(r.conditions[0]).toBe(list[0]);
    expect(r.conditions[2]).toBe(list[2]);
    expect(list[1]!.status).toBe('False'); // the input list is not modified
  });

  it('drops observedGeneration when the new condition has none', () => {
    const first = setCondition([], ready('True', 'Applied', '', 4), t0).conditions;
    const r = setCondition(first, ready('True'), t1);
    expect(r.changed).toBe(true);
    expect(r.conditions[0]).not.toHaveProperty('observedGeneration');
  });

  it.each([
    [{ ...ready('True'), reason: '' }, 'condition.reason'],
    [{ ...ready('True'), reason: 'not camel case' }, 'condition.reason'],
    [{ ...ready('True'), status: 'Yes' as Condition['status'] }, 'condition.status'],
    [{ ...ready('True'), type: '' }, 'condition.type'],
    [{ ...ready('True'), observedGeneration: -1 }, 'condition.observedGeneration'],
  ])('refuses an invalid condition naming %#: %s', (cond, field) => {
    let thrown: unknown;
    try {
      setCondition([], cond, t0);
    } catch (e) {
      thrown = e;
    }
    expect(isInvalidArgumentError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ field });
  });

  it('property: lastTransitionTime changes exactly when the status does', () => {
    const status = fc.constantFrom<Condition['status']>('True', 'False', 'Unknown');
    const reason = fc.constantFrom('A', 'B');
    fc.assert(
      fc.property(fc.array(fc.tuple(status, reason), { minLength: 1, maxLength: 12 }), (steps) => {
        let list: Condition[] = [];
        let previous: Condition | undefined;
        steps.forEach(([s, r], i) => {
          const now = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
          const res = setCondition(list, ready(s, r), now);
          const cond = findCondition(res.conditions, 'Ready')!;
          expect(res.transitioned).toBe(previous?.status !== s);
          expect(cond.lastTransitionTime).toBe(
            res.transitioned ? formatKubeTime(now) : previous!.lastTransitionTime,
          );
          expect(res.changed).toBe(!previous || previous.status !== s || previous.reason !== r);
          expect(res.conditions).toHaveLength(1);
          list = res.conditions;
          previous = cond;
        });
      }),
    );
  });
});

describe('removeCondition', () => {
  it('removes only that type and says whether it was there', () => {
    const list = setCondition([], ready('True'), t0).conditions;
    expect(removeCondition(list, 'Ready')).toEqual({ conditions: [], changed: true });
    expect(removeCondition(list, 'Other')).toEqual({ conditions: list, changed: false });
  });
});
