import { describe, expect, it } from 'vitest';
import { validateTaint, withoutTaint, withTaint, type Taint } from './node.js';
import { isInvalidArgumentError } from './errors.js';

const startup: Taint = { key: 'fabrik.dev/not-ready', effect: 'NoSchedule' };
const kubelet: Taint = {
  key: 'node.kubernetes.io/not-ready',
  effect: 'NoExecute',
  timeAdded: '2026-11-30T10:00:00Z',
};

describe('taint helpers', () => {
  it('withTaint appends a new taint and keeps the others untouched', () => {
    expect(withTaint([kubelet], startup)).toEqual([kubelet, startup]);
    expect(withTaint(undefined, startup)).toEqual([startup]);
  });

  it('withTaint identifies a taint by key and effect: same value -> unchanged, other value -> replaced', () => {
    const list = [kubelet, { ...startup, value: 'a' }];
    expect(withTaint(list, { ...startup, value: 'a' })).toEqual(list);
    expect(withTaint(list, { ...startup, value: 'b' })).toEqual([kubelet, { ...startup, value: 'b' }]);
    expect(withTaint(list, { ...startup, effect: 'NoExecute' })).toHaveLength(3);
  });

  it('withoutTaint removes by key, or by key and effect', () => {
    const list = [kubelet, startup, { ...startup, effect: 'NoExecute' as const }];
    expect(withoutTaint(list, startup.key)).toEqual([kubelet]);
    expect(withoutTaint(list, startup.key, 'NoSchedule')).toEqual([
      kubelet,
      { ...startup, effect: 'NoExecute' },
    ]);
    expect(withoutTaint(list, 'absent')).toEqual(list);
  });

  it.each([
    [{ key: '', effect: 'NoSchedule' }, 'taint.key'],
    [{ key: 'a/b/c', effect: 'NoSchedule' }, 'taint.key'],
    [{ key: 'ok', value: 'has space', effect: 'NoSchedule' }, 'taint.value'],
    [{ key: 'ok', effect: 'Sometimes' }, 'taint.effect'],
  ])('refuses an invalid taint %j naming %s', (taint, field) => {
    let thrown: unknown;
    try {
      validateTaint(taint as Taint);
    } catch (e) {
      thrown = e;
    }
    expect(isInvalidArgumentError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ field });
  });
});
