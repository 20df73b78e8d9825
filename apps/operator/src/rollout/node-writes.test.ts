import { describe, expect, it } from 'vitest';
import type { NodeNetworkConfigSpec } from '@fabrik/api';
import { nodeWritesOf, rolloutNodeOf, ROLLOUT_ANNOTATIONS, type ConfigOnServer } from './node-writes.js';
import type { RolloutPlan } from './plan.js';

const NOW = new Date('2026-12-02T12:00:00.000Z');
const EARLIER = '2026-12-02T11:00:00.000Z';
const specAt = (revision: string, vni: number): NodeNetworkConfigSpec => ({
  vrfs: [{ name: 'red', spec: { vni } }],
  revision,
});
const OLD = specAt('000000000000000a', 1);
const NEW = specAt('000000000000000b', 2);

const onServer = (spec: unknown, annotations: Record<string, string> = {}, status = {}): ConfigOnServer => ({
  metadata: { name: 'n1', annotations },
  spec,
  status,
});
const plan = (over: Partial<RolloutPlan>): RolloutPlan => ({
  phase: 'progressing',
  counts: { ready: 0, updating: 0, failed: 0, total: 1 },
  move: [],
  rollBack: [],
  failures: [],
  settle: [],
  ...over,
});
const writes = (p: RolloutPlan, existing: ConfigOnServer | undefined) =>
  nodeWritesOf(p, new Map([['n1', NEW]]), () => existing, NOW);

describe('nodeWritesOf', () => {
  it('a move writes the rendered spec, recording the spec the node had and when', () => {
    expect(writes(plan({ move: ['n1'] }), onServer(OLD))).toEqual([
      {
        name: 'n1',
        spec: NEW,
        annotations: {
          [ROLLOUT_ANNOTATIONS.previousSpec]: JSON.stringify(OLD),
          [ROLLOUT_ANNOTATIONS.writtenAt]: NOW.toISOString(),
        },
      },
    ]);
  });

  it('a rollback writes the recorded spec and drops the record', () => {
    const moved = onServer(NEW, {
      [ROLLOUT_ANNOTATIONS.previousSpec]: JSON.stringify(OLD),
      [ROLLOUT_ANNOTATIONS.writtenAt]: EARLIER,
    });
    const p = plan({ phase: 'failed', rollBack: [{ node: 'n1', revision: OLD.revision }] });
    expect(writes(p, moved)).toEqual([
      { name: 'n1', spec: OLD, annotations: { [ROLLOUT_ANNOTATIONS.writtenAt]: NOW.toISOString() } },
    ]);
  });

  it('settling keeps the spec and its time, and drops the record', () => {
    const moved = onServer(NEW, {
      [ROLLOUT_ANNOTATIONS.previousSpec]: JSON.stringify(OLD),
      [ROLLOUT_ANNOTATIONS.writtenAt]: EARLIER,
    });
    expect(writes(plan({ phase: 'complete', settle: ['n1'] }), moved)).toEqual([
      { name: 'n1', spec: NEW, annotations: { [ROLLOUT_ANNOTATIONS.writtenAt]: EARLIER } },
    ]);
  });

  it('writes nothing to a node the plan leaves alone, and the rendered spec over an invalid one', () => {
    expect(writes(plan({}), onServer(OLD))).toEqual([]);
    expect(writes(plan({}), onServer({ revision: 'not hex' }))).toMatchObject([{ spec: NEW }]);
  });
});

describe('rolloutNodeOf', () => {
  it('reads the revisions, the time of the move and each agent report; an unreadable report is none', () => {
    const config = onServer(
      NEW,
      { [ROLLOUT_ANNOTATIONS.previousSpec]: JSON.stringify(OLD), [ROLLOUT_ANNOTATIONS.writtenAt]: EARLIER },
      { host: { appliedRevision: NEW.revision, heartbeat: EARLIER }, netns: { heartbeat: 'yesterday' } },
    );
    expect(rolloutNodeOf('n1', NEW, config, true)).toEqual({
      name: 'n1',
      canary: true,
      rendered: NEW.revision,
      written: NEW.revision,
      previous: OLD.revision,
      writtenAt: new Date(EARLIER),
      agents: { host: { appliedRevision: NEW.revision, heartbeat: new Date(EARLIER) }, netns: undefined },
    });
  });
});
