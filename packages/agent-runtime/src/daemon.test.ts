import { pino } from 'pino';
import { until } from '@fabrik/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon, type ReconcileRequest } from './daemon.js';
import type { IntentSource } from './intent.js';
import { createAgentMetrics, type AgentMetrics } from './metrics.js';

// The daemon loop in process, with a source that has always synced and a reconcile that records its
// triggers and says it verified the node as it ended (or not): which observed changes it covered.

const source: IntentSource = {
  description: 'test',
  start: async () => {},
  hasSynced: () => true,
  snapshot: () => ({ objects: [], problems: [] }),
  stop: async () => {},
};

describe('the daemon ignores observed changes the last reconcile covered', () => {
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });

  async function start(during?: (request: ReconcileRequest) => void, options = { verifies: true }) {
    const runs: string[][] = [];
    const metrics: AgentMetrics = createAgentMetrics({ prefix: 'test', processMetrics: false });
    daemon = await startDaemon({
      logger: pino({ level: 'silent' }),
      metrics,
      source,
      reconcile: async (request) => {
        runs.push([...request.trigger]);
        during?.(request);
        await new Promise((r) => setTimeout(r, 20)); // changes may arrive while it runs
        return { result: 'success', ...(options.verifies ? { verifiedAt: Date.now() } : {}) };
      },
    });
    await daemon.idle();
    const ignored = async () =>
      (await metrics.registry.getSingleMetric('test_own_changes_ignored_total')!.get()).values[0]?.value ?? 0;
    return { agent: daemon, runs, ignored };
  }

  it('drops a change made before the last reconcile verified the node, and follows one made after', async () => {
    const { agent, runs, ignored } = await start();
    expect(runs).toEqual([['start']]);
    const ended = Date.now();
    agent.enqueue('link tr.100 deleted', ended - 1000);
    await agent.idle();
    expect(runs).toHaveLength(1);
    expect(await ignored()).toBe(1);

    agent.enqueue('link tr.100 deleted', Date.now() + 1);
    await until('the reconcile of a later change', async () => runs.length === 2);
    expect(runs[1]).toEqual(['link tr.100 deleted']);
  });

  it('holds changes that arrive during a reconcile and drops those made before it verified the node', async () => {
    let first = true;
    const { agent, runs, ignored } = await start((request) => {
      if (!first) return;
      first = false;
      // The reconcile's own change, reported while it still runs.
      daemon!.enqueue(`ovsdb Port tr.100 created (reconcile ${request.id})`, Date.now());
    });
    await agent.idle();
    expect(runs).toEqual([['start']]);
    expect(await ignored()).toBe(1);
  });

  it('follows a change stamped after the running reconcile verified the node, and requests without a stamp', async () => {
    let first = true;
    const { agent, runs } = await start(() => {
      if (!first) return;
      first = false;
      // Seen during the reconcile but made after it (a stamp later than its end).
      daemon!.enqueue('link tr.200 deleted', Date.now() + 60_000);
      daemon!.enqueue('intent file changed');
    });
    await until('the second reconcile', async () => runs.length === 2);
    await agent.idle();
    expect(runs).toEqual([['start'], ['intent file changed', 'link tr.200 deleted']]);
  });

  it('follows a change made during a reconcile that verified nothing (covered: only what it read at its start)', async () => {
    let first = true;
    const { agent, runs, ignored } = await start(
      () => {
        if (!first) return;
        first = false;
        daemon!.enqueue('link tr.100 deleted', Date.now());
      },
      { verifies: false },
    );
    await until('the second reconcile', async () => runs.length === 2);
    await agent.idle();
    expect(runs).toEqual([['start'], ['link tr.100 deleted']]);
    expect(await ignored()).toBe(0);
  });

  // Links the agent expects (vx1 goes away in the first reconcile), changes of them seen while that
  // reconcile runs, judged again by what the agent expects after it.
  function linkChanges(
    during: (change: (link: string, what: 'deleted' | 'set down' | 'set up') => void) => void,
  ) {
    let expected = new Set(['vx1', 'vx2']);
    const down = new Set<string>();
    let first = true;
    const change = (link: string, what: 'deleted' | 'set down' | 'set up') => {
      if (what === 'set down') down.add(link);
      if (what === 'set up') down.delete(link);
      const reason = () =>
        expected.has(link) && (what === 'deleted' || down.has(link)) ? `link ${link} ${what}` : undefined;
      daemon!.enqueue(`link ${link} ${what}`, Date.now(), { key: `link ${link}`, reason });
    };
    return () => {
      if (!first) return;
      first = false;
      during(change);
      expected = new Set(['vx2']);
    };
  }

  it('judges held changes again after the reconcile: drops those it now expects, only the last of an object counts', async () => {
    const during = linkChanges((change) => {
      change('vx1', 'deleted'); // its own deletion
      change('vx2', 'set down'); // by hand, and back up by hand before the end
      change('vx2', 'set up');
    });
    const { runs, ignored } = await start(during, { verifies: false });
    expect(runs).toEqual([['start']]);
    expect(await ignored()).toBe(3);
  });

  it('follows a held change that still contradicts what the agent expects after the reconcile', async () => {
    const during = linkChanges((change) => {
      change('vx1', 'deleted');
      change('vx2', 'set down'); // by hand, while the apply runs
    });
    const { runs, ignored } = await start(during, { verifies: false });
    await until('the repair', async () => runs.length === 2);
    expect(runs).toEqual([['start'], ['link vx2 set down']]);
    expect(await ignored()).toBe(1);
  });
});

describe('the daemon reports whether it is busy', () => {
  it('reconcile_active is 1 while a reconcile runs, and workqueue_depth counts what waits behind it', async () => {
    const metrics = createAgentMetrics({ prefix: 'test', processMetrics: false });
    const gauge = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;
    const releases: (() => void)[] = [];
    const seen: number[][] = [];
    const daemon = await startDaemon({
      logger: pino({ level: 'silent' }),
      metrics,
      source,
      reconcile: async () => {
        seen.push([await gauge('test_reconcile_active'), await gauge('test_workqueue_depth')]);
        await new Promise<void>((r) => releases.push(r));
        return { result: 'success' };
      },
    });
    try {
      await until('the first reconcile running', async () => releases.length === 1);
      daemon.enqueue('intent file changed');
      expect(await gauge('test_workqueue_depth')).toBe(1);
      releases[0]!();
      await until('the second reconcile running', async () => releases.length === 2);
      releases[1]!();
      await daemon.idle();
      expect(seen).toEqual([
        [1, 0],
        [1, 0],
      ]);
      expect(await gauge('test_reconcile_active')).toBe(0);
      expect(await gauge('test_workqueue_depth')).toBe(0);
    } finally {
      releases.forEach((r) => r());
      await daemon.stop();
    }
  });
});
