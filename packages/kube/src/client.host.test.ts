// customObjects' typed errors and the event recorder, against the test API server.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { customObjects } from './custom-objects.js';
import {
  isAlreadyExistsError,
  isConflictError,
  isInvalidError,
  isNotFoundError,
  isObjectSchemaError,
  isUnreachableError,
  type InvalidError,
} from './errors.js';
import { createEventRecorder } from './events.js';
import { EVENTS, ObjectMeta } from './resource.js';
import {
  createNode,
  memoryLogger,
  startTestCluster,
  Widget,
  widget,
  WIDGETS,
  type TestCluster,
} from './testing/cluster.js';

/**
 * The client ports of the TCP connections to or from `port` that the kernel lists now
 * (/proc/net/tcp), listening sockets aside.
 */
function clientPortsOf(port: number): number[] {
  // Only this process's sockets: kube-apiserver keeps loopback connections to its own port.
  const own = new Set(
    readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1]];
      } catch {
        return []; // closed meanwhile
      }
    }),
  );
  const ports = new Set<number>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, remote, state, , , , , , inode] = line.trim().split(/\s+/);
    if (!local || !remote || state === '0A' || !own.has(inode)) continue;
    const remotePort = parseInt(remote.split(':')[1] ?? '', 16);
    if (remotePort === port) ports.add(parseInt(local.split(':')[1] ?? '', 16));
  }
  return [...ports];
}

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(() => cluster.server.destroy());

const CoreEvent = z.looseObject({
  metadata: ObjectMeta,
  reason: z.string(),
  message: z.string(),
  count: z.number(),
  type: z.string(),
  involvedObject: z.looseObject({ kind: z.string(), name: z.string() }),
  source: z.looseObject({ component: z.string(), host: z.string() }),
});

describe('customObjects', () => {
  it('get, replace with the resourceVersion read, and a stale replace is a ConflictError', async () => {
    await cluster.widgets.create(widget('crud', {}, { size: 1 }));
    const read = await cluster.widgets.get('crud');
    const replaced = await cluster.widgets.replace({ ...read, spec: { size: 2 } });
    expect(replaced.spec?.size).toBe(2);
    await expect(cluster.widgets.replace({ ...read, spec: { size: 3 } })).rejects.toSatisfy(isConflictError);
    expect((await cluster.widgets.get('crud')).spec?.size).toBe(2);
  });

  it('typed errors: NotFound, AlreadyExists, Invalid naming the field, ObjectSchema', async () => {
    await expect(cluster.widgets.get('missing')).rejects.toSatisfy(isNotFoundError);
    await expect(cluster.widgets.delete('missing')).rejects.toSatisfy(isNotFoundError);
    await cluster.widgets.create(widget('dup', {}));
    await expect(cluster.widgets.create(widget('dup', {}))).rejects.toSatisfy(isAlreadyExistsError);

    const invalid = await cluster.widgets.create(widget('big', {}, { size: 99 })).catch((e: unknown) => e);
    expect(isInvalidError(invalid)).toBe(true);
    expect((invalid as InvalidError).causes.map((c) => c.field)).toContain('spec.size');

    await cluster.rawWidgets.create(widget('green', {}, { color: 'green' }));
    await expect(cluster.widgets.get('green')).rejects.toSatisfy(isObjectSchemaError);
    const { items, invalid: refused } = await cluster.widgets.list();
    expect(items.map((w) => w.metadata.name)).not.toContain('green');
    expect(refused.map((r) => r.key)).toEqual(['green']);
  });

  it('delete with a resourceVersion precondition refuses a changed object', async () => {
    const created = await cluster.widgets.create(widget('precondition', {}, { size: 1 }));
    await cluster.widgets.patch('precondition', { spec: { size: 2 } });
    await expect(
      cluster.widgets.delete('precondition', { resourceVersion: created.metadata.resourceVersion! }),
    ).rejects.toSatisfy(isConflictError);
    await cluster.widgets.delete('precondition');
  });

  it('an API server that is down is UnreachableError (fabrik-ipam: CNI code 11)', async () => {
    await cluster.server.stop();
    try {
      await expect(cluster.widgets.get('crud')).rejects.toSatisfy(isUnreachableError);
    } finally {
      await cluster.server.start();
    }
  });

  it('keepAlive: sequential requests share one connection; a read after a server restart gets a new one', async () => {
    const own = await startTestCluster();
    try {
      const port = Number(new URL(own.server.url).port);
      const widgets = customObjects(own.kc, WIDGETS, Widget, { keepAlive: true });
      // Connections of other clients of this process (the cluster's own setup) do not count.
      const before = new Set(clientPortsOf(port));
      const seen = new Set<number>();
      for (let i = 0; i < 10; i++) {
        await widgets.list();
        for (const p of clientPortsOf(port)) if (!before.has(p)) seen.add(p);
      }
      expect(seen.size).toBe(1);
      // The pooled connection is dead, and the client has not noticed yet: the GET is sent again.
      await own.server.restart();
      expect((await widgets.list()).items).toEqual([]);
    } finally {
      await own.server.destroy();
    }
  });

  it('a request without answer within the timeout is UnreachableError too', async () => {
    const slow = customObjects(cluster.kc, WIDGETS, Widget, { timeoutMs: 1 });
    await expect(slow.list()).rejects.toSatisfy(isUnreachableError);
  });
});

describe('createEventRecorder', () => {
  it('deduplicates: the same event three times is one Event with count 3', async () => {
    await createNode(cluster, 'events-1');
    const recorder = createEventRecorder({
      kc: cluster.kc,
      component: 'fabrik-agent-netns',
      host: 'events-1',
    });
    const ref = { apiVersion: 'v1', kind: 'Node', name: 'events-1' };
    for (let i = 0; i < 3; i++)
      recorder.event(ref, 'Warning', 'FrrReloadFailed', 'bgpd refused the configuration');
    recorder.event(ref, 'Normal', 'FrrReloaded', 'FRR configuration applied');
    await recorder.flush();
    const events = customObjects(cluster.kc, EVENTS, CoreEvent);
    const { items } = await events.list({ namespace: 'default' });
    const mine = items.filter((e) => e.involvedObject.name === 'events-1');
    expect(mine.map((e) => [e.reason, e.count, e.type]).sort()).toEqual([
      ['FrrReloadFailed', 3, 'Warning'],
      ['FrrReloaded', 1, 'Normal'],
    ]);
    expect(mine[0]!.source).toEqual({ component: 'fabrik-agent-netns', host: 'events-1' });
  });

  it('rate-limits per object: 30 distinct events, 25 written', async () => {
    const recorder = createEventRecorder({
      kc: cluster.kc,
      component: 'fabrik-agent-host',
      host: 'events-2',
    });
    const ref = { apiVersion: 'v1', kind: 'Node', name: 'events-2' };
    for (let i = 0; i < 30; i++) recorder.event(ref, 'Normal', `Reason${i}`, `message ${i}`);
    await recorder.flush();
    const { items } = await customObjects(cluster.kc, EVENTS, CoreEvent).list({ namespace: 'default' });
    expect(items.filter((e) => e.involvedObject.name === 'events-2')).toHaveLength(25);
  });

  it('a failed write never reaches the caller: logged, and flush still resolves', async () => {
    const log = memoryLogger();
    const recorder = createEventRecorder({ kc: cluster.kc, component: 'c', host: 'h', log });
    await cluster.server.stop();
    try {
      const ref = { kind: 'Node', name: 'events-3' };
      expect(() => recorder.event(ref, 'Warning', 'not camel case', 'x')).not.toThrow();
      expect(() => recorder.event(ref, 'Warning', 'Broken', 'x')).not.toThrow();
      await recorder.flush();
    } finally {
      await cluster.server.start();
    }
    expect(log.lines.map((l) => l.msg)).toEqual(['event refused', 'event could not be written']);
  });
});
