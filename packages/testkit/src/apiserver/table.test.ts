import { describe, expect, it } from 'vitest';
import { humanDuration, jsonPathValues } from './table.js';

describe('printer column JSONPath', () => {
  const node = {
    metadata: { name: 'n' },
    status: {
      conditions: [
        { type: 'A', status: 'x' },
        { type: 'Ready', status: 'True' },
      ],
      list: [1, 2],
    },
  };
  it('selects fields, indexes, wildcards and filters', () => {
    expect(jsonPathValues(node, '.metadata.name')).toEqual(['n']);
    expect(jsonPathValues(node, '.status.list[1]')).toEqual([2]);
    expect(jsonPathValues(node, '.status.list[*]')).toEqual([1, 2]);
    expect(jsonPathValues(node, '.status.conditions[?(@.type=="Ready")].status')).toEqual(['True']);
    expect(jsonPathValues(node, '.spec.missing')).toEqual([]);
  });
});

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  it.each([
    [5_000, '5s'],
    [119_000, '119s'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [3 * 3600_000 + 60_000, '3h1m'],
    [10 * 3600_000, '10h'],
    [3 * 86400_000 + 3600_000, '3d1h'],
    [30 * 86400_000, '30d'],
    [-5_000, '<invalid>'],
  ])('%d ms -> %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
