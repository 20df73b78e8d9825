import { describe, expect, it } from 'vitest';
import { budgetOf, planRollout, type RolloutInput, type RolloutNode, type RolloutSettings } from './plan.js';

const NOW = new Date('2026-12-02T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const SETTINGS: RolloutSettings = {
  maxUnavailable: 1,
  heartbeatMaxAgeMs: 30_000,
  nodeTimeoutMs: 60_000,
  paused: false,
};
const OLD = '000000000000000a';
const NEW = '000000000000000b';

/** Agents that report `revision` applied, `ageMs` ago. */
const reporting = (revision: string, ageMs = 1_000) => ({
  host: { appliedRevision: revision, configStatus: 'provisioned' as const, heartbeat: ago(ageMs) },
  netns: { appliedRevision: revision, configStatus: 'provisioned' as const, heartbeat: ago(ageMs) },
});

/** A node on OLD, its agents reporting it, to be moved to NEW. */
const pendingNode = (name: string, extra: Partial<RolloutNode> = {}): RolloutNode => ({
  name,
  canary: false,
  rendered: NEW,
  written: OLD,
  writtenAt: ago(3_600_000),
  agents: reporting(OLD),
  ...extra,
});

/** A node moved to NEW `sinceMs` ago, its agents still reporting OLD. */
const movedNode = (name: string, sinceMs: number, extra: Partial<RolloutNode> = {}): RolloutNode =>
  pendingNode(name, { written: NEW, previous: OLD, writtenAt: ago(sinceMs), ...extra });

const plan = (nodes: RolloutNode[], extra: Partial<RolloutInput> = {}) =>
  planRollout({ nodes, failures: [], settings: SETTINGS, now: NOW, ...extra });

describe('budgetOf', () => {
  it('takes a number as it is and a percentage of the gated nodes, never below one', () => {
    expect(budgetOf(3, 10)).toBe(3);
    expect(budgetOf('10%', 200)).toBe(20);
    expect(budgetOf('10%', 5)).toBe(1);
    expect(budgetOf('100%', 7)).toBe(7);
  });
});

describe('planRollout', () => {
  it('moves one node at a time by name, canaries first', () => {
    const p = plan([pendingNode('b'), pendingNode('a'), pendingNode('z', { canary: true })]);
    expect(p).toMatchObject({ phase: 'progressing', move: ['z'], rollBack: [] });
    expect(p.counts).toEqual({ ready: 0, updating: 1, failed: 0, total: 3 });
  });

  it('moves the other nodes only once every canary is updated', () => {
    const nodes = [
      movedNode('z', 1_000, { canary: true }),
      pendingNode('a'),
      pendingNode('y', { canary: true }),
    ];
    expect(plan(nodes, { settings: { ...SETTINGS, maxUnavailable: 5 } }).move).toEqual(['y']);
  });

  it('waits while a moved node is not updated, then moves the next one', () => {
    expect(plan([movedNode('a', 1_000), pendingNode('b')]).move).toEqual([]);
    const updated = movedNode('a', 5_000, { agents: reporting(NEW) });
    expect(plan([updated, pendingNode('b')]).move).toEqual(['b']);
  });

  it('never counts a stale heartbeat, nor a report written before the move', () => {
    const stale = movedNode('a', 120_000, { agents: reporting(NEW, 31_000) });
    expect(
      plan([stale, pendingNode('b')], { settings: { ...SETTINGS, nodeTimeoutMs: 600_000 } }),
    ).toMatchObject({ move: [], counts: { ready: 0, updating: 1 } });
    const beforeMove = movedNode('a', 2_000, { agents: reporting(NEW, 3_000) });
    expect(plan([beforeMove, pendingNode('b')]).move).toEqual([]);
  });

  it('needs every agent: one section missing keeps the node updating', () => {
    const halfReported = movedNode('a', 1_000, { agents: { ...reporting(NEW), netns: undefined } });
    expect(plan([halfReported, pendingNode('b')]).counts.updating).toBe(1);
  });

  it('rolls every moved node back when one reports a failure, naming the node, objects and why', () => {
    const objectErrors = [
      { kind: 'Layer2Network' as const, name: 'l2', field: 'spec.mtu', message: 'too large' },
    ];
    const failing = movedNode('b', 1_000, {
      agents: {
        ...reporting(NEW),
        netns: { appliedRevision: NEW, configStatus: 'degraded', heartbeat: ago(500), objectErrors },
      },
    });
    const p = plan([movedNode('a', 9_000, { agents: reporting(NEW) }), failing, pendingNode('c')]);
    expect(p.phase).toBe('failed');
    expect(p.move).toEqual([]);
    expect(p.rollBack).toEqual([
      { node: 'a', revision: OLD },
      { node: 'b', revision: OLD },
    ]);
    expect(p.failures).toEqual([
      { node: 'b', revision: NEW, objects: objectErrors, why: 'agent netns reports degraded' },
    ]);
    expect(p.counts).toEqual({ ready: 1, updating: 0, failed: 1, total: 3 });
  });

  it('fails a node that is not updated within the timeout', () => {
    const p = plan([movedNode('a', 60_000), pendingNode('b')]);
    expect(p).toMatchObject({ phase: 'failed', rollBack: [{ node: 'a', revision: OLD }] });
    expect(p.failures[0]?.why).toBe('not updated within 60000 ms of the move');
  });

  it('does not move to a failed revision again, until the node renders another one', () => {
    const failure = { node: 'a', revision: NEW, objects: [], why: 'timeout' };
    const nodes = [pendingNode('a'), pendingNode('b')];
    expect(plan(nodes, { failures: [failure] })).toMatchObject({ phase: 'failed', move: [] });
    const changed = [pendingNode('a', { rendered: '000000000000000c' }), pendingNode('b')];
    expect(plan(changed, { failures: [failure] })).toMatchObject({
      phase: 'progressing',
      move: ['a'],
      failures: [],
    });
  });

  it('does not gate nodes whose rendered revision did not change, even unhealthy ones', () => {
    const unchanged = pendingNode('a', { rendered: OLD, agents: reporting(OLD, 3_600_000) });
    const p = plan([unchanged, pendingNode('b')]);
    expect(p).toMatchObject({ phase: 'progressing', move: ['b'] });
    expect(p.counts).toEqual({ ready: 0, updating: 1, failed: 0, total: 2 });
  });

  it('gives a node with no spec yet its rendered one at once', () => {
    const p = plan([pendingNode('new', { written: undefined }), movedNode('a', 1_000)]);
    expect(p.move).toEqual(['new']);
  });

  it('moves nothing while paused, and still rolls back on a failure', () => {
    const paused = { settings: { ...SETTINGS, paused: true } };
    expect(plan([pendingNode('a')], paused)).toMatchObject({ phase: 'paused', move: [] });
    expect(plan([movedNode('a', 61_000)], paused)).toMatchObject({
      phase: 'failed',
      rollBack: [{ node: 'a' }],
    });
  });

  it('completes when every moved node is updated, and settles them', () => {
    const p = plan([
      movedNode('a', 1_000, { agents: reporting(NEW) }),
      movedNode('b', 1_000, { agents: reporting(NEW) }),
    ]);
    expect(p).toMatchObject({ phase: 'complete', settle: ['a', 'b'], move: [], rollBack: [] });
    expect(p.counts).toEqual({ ready: 2, updating: 0, failed: 0, total: 2 });
  });
});
