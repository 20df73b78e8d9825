import { describe, expect, it } from 'vitest';
import { EventCorrelator, type Correlation, type EventInput } from './event-correlator.js';

const node = { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'u-1' };
const other = { apiVersion: 'v1', kind: 'Node', name: 'node-2', uid: 'u-2' };
const ev = (message: string, reason = 'FrrReloadFailed', involvedObject = node): EventInput => ({
  involvedObject,
  type: 'Warning',
  reason,
  message,
});
const source = { component: 'fabrik-agent-netns', host: 'node-1' };
const MIN = 60_000;

/** Correlates and, like the recorder after a successful write, records the result. */
function record(c: EventCorrelator, e: EventInput, now: number, name = `ev-${now}`): Correlation {
  const r = c.correlate(e, now);
  if (r.action !== 'skip')
    c.recordWritten(r.key, { name: r.name ?? name, count: r.count, firstTimestamp: r.firstTimestamp });
  return r;
}

describe('EventCorrelator (client-go events_cache semantics)', () => {
  it('deduplicates: the same event updates the first one with count + 1', () => {
    const c = new EventCorrelator(source);
    const a = record(c, ev('reload failed'), 0, 'first');
    const b = record(c, ev('reload failed'), 1_000);
    const d = record(c, ev('reload failed'), 2_000);
    expect(a).toMatchObject({ action: 'create', count: 1, firstTimestamp: 0, lastTimestamp: 0 });
    expect(b).toMatchObject({
      action: 'update',
      name: 'first',
      count: 2,
      firstTimestamp: 0,
      lastTimestamp: 1_000,
    });
    expect(d).toMatchObject({ action: 'update', name: 'first', count: 3, lastTimestamp: 2_000 });
  });

  it('keeps events apart that differ in message, reason, type or object', () => {
    const c = new EventCorrelator(source);
    expect(record(c, ev('a'), 0).action).toBe('create');
    expect(record(c, ev('b'), 0).action).toBe('create');
    expect(record(c, ev('a', 'OtherReason'), 0).action).toBe('create');
    expect(record(c, { ...ev('a'), type: 'Normal' }, 0).action).toBe('create');
    expect(record(c, ev('a', 'FrrReloadFailed', other), 0).action).toBe('create');
    expect(record(c, ev('a'), 0).action).toBe('update');
  });

  it('rate-limits per object: a burst of 25, then one per 5 minutes; other objects unaffected', () => {
    const c = new EventCorrelator(source);
    const actions = Array.from({ length: 30 }, (_, i) => record(c, ev(`m${i % 3}`, `Reason${i}`), i).action);
    expect(actions.filter((a) => a !== 'skip')).toHaveLength(25);
    expect(actions.slice(25)).toEqual(['skip', 'skip', 'skip', 'skip', 'skip']);
    expect(record(c, ev('x', 'Other', other), 40).action).toBe('create');
    expect(record(c, ev('x', 'Late'), 4 * MIN).action).toBe('skip');
    expect(record(c, ev('x', 'Late'), 5 * MIN + 30).action).toBe('create');
    expect(record(c, ev('y', 'Late2'), 5 * MIN + 31).action).toBe('skip');
  });

  it('aggregates the 10th and later different messages of one reason into one counted event', () => {
    const c = new EventCorrelator(source);
    const results = Array.from({ length: 14 }, (_, i) => record(c, ev(`vrf v${i}: bad vni`), i * 1_000));
    expect(results.slice(0, 9).every((r) => r.action === 'create')).toBe(true);
    const aggregated = results.slice(9);
    expect(aggregated[0]).toMatchObject({
      action: 'create',
      message: '(combined from similar events): vrf v9: bad vni',
      count: 1,
    });
    expect(aggregated.slice(1).map((r) => (r.action === 'skip' ? r : [r.action, r.count]))).toEqual([
      ['update', 2],
      ['update', 3],
      ['update', 4],
      ['update', 5],
    ]);
  });

  it('starts aggregating anew after the interval', () => {
    const c = new EventCorrelator(source, { burst: 100 });
    for (let i = 0; i < 12; i++) record(c, ev(`m${i}`), i);
    expect(record(c, ev('fresh'), 11 * MIN)).toMatchObject({ action: 'create', message: 'fresh' });
  });

  it('forgets the least recently used entries beyond its cache size', () => {
    const c = new EventCorrelator(source, { cacheSize: 2 });
    record(c, ev('a', 'A', { ...node, name: 'o1' }), 0);
    record(c, ev('a', 'A', { ...node, name: 'o2' }), 0);
    record(c, ev('a', 'A', { ...node, name: 'o3' }), 0);
    expect(record(c, ev('a', 'A', { ...node, name: 'o3' }), 1).action).toBe('update');
    expect(record(c, ev('a', 'A', { ...node, name: 'o1' }), 1).action).toBe('create');
  });
});
