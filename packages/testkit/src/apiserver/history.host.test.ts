// Property: whatever sequence of creates, updates, merge patches, label changes and deletes the
// server takes, a watcher from resourceVersion 0 sees exactly the server's history in commit order,
// a watcher with a label selector sees objects enter (ADDED), change and leave (DELETED) its
// selection, every paginated list taken meanwhile is the replay of the history up to its
// resourceVersion, and the final list is the replay of all of it, as is an exact read at each of its
// versions. fast-check with a fixed seed and a bounded number of runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './server.js';

type Meta = { name: string; resourceVersion: string };
type ConfigMap = { metadata: Meta & { labels?: { team?: string } }; data?: { v: string } };
type Change = {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  value: string;
  team?: string;
};

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-history-'));
  server = await startApiServer({ dir, tls: false, crdDirs: [], historyLimit: 100_000 });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': contentType },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A raw watch stream; `changes` fills as lines arrive. */
function startWatch(path: string): { changes: Change[]; stop: () => void; ready: Promise<void> } {
  const controller = new AbortController();
  const changes: Change[] = [];
  const ready = (async () => {
    const res = await fetch(server.url + path, {
      headers: { Authorization: `Bearer ${server.token}` },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += Buffer.from(value).toString();
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const event = JSON.parse(buffer.slice(0, nl)) as { type: Change['type']; object: ConfigMap };
            buffer = buffer.slice(nl + 1);
            changes.push({
              rv: Number(event.object.metadata.resourceVersion),
              type: event.type,
              name: event.object.metadata.name,
              value: event.object.data?.v ?? '',
              ...(event.object.metadata.labels?.team !== undefined
                ? { team: event.object.metadata.labels.team }
                : {}),
            });
          }
        }
      } catch {
        // aborted at the end of the run
      }
    })();
  })();
  return { changes, stop: () => controller.abort(), ready };
}

function replay(history: Change[], upTo: number): Record<string, string> {
  const state: Record<string, string> = {};
  for (const c of history) {
    if (c.rv > upTo) break;
    if (c.type === 'DELETED') delete state[c.name];
    else state[c.name] = `${c.value}@${c.rv}`;
  }
  return state;
}

/** What a watcher with labelSelector team=x must see: objects entering and leaving the selection. */
function selected(history: Change[]): string[] {
  const team = new Map<string, string | undefined>();
  const events: string[] = [];
  for (const c of history) {
    const was = team.get(c.name) === 'x';
    const is = c.type !== 'DELETED' && c.team === 'x';
    if (c.type === 'DELETED') team.delete(c.name);
    else team.set(c.name, c.team);
    if (was && is) events.push(`MODIFIED ${c.name}@${c.rv}`);
    else if (is) events.push(`ADDED ${c.name}@${c.rv}`);
    else if (was) events.push(`DELETED ${c.name}@${c.rv}`);
  }
  return events;
}

const operation = fc.record({
  kind: fc.constantFrom('create', 'update', 'patch', 'label', 'delete'),
  name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  value: fc.constantFrom('1', '2', '3'),
  team: fc.constantFrom('x', 'y', null),
});

let run = 0;

it('watch and paginated lists agree with the history of random writes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 30 }), async (ops) => {
      const ns = `prop-${run++}`;
      expect((await call('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      const watcher = startWatch(`${base}?watch=true&resourceVersion=0`);
      const teamX = startWatch(`${base}?watch=true&resourceVersion=0&labelSelector=team%3Dx`);
      await Promise.all([watcher.ready, teamX.ready]);

      const history: Change[] = [];
      const lastRv = new Map<string, number>();
      const teams = new Map<string, string | undefined>();
      const snapshots: { rv: number; state: Record<string, string> }[] = [];
      let writing = true;
      const lister = (async () => {
        while (writing) {
          const state: Record<string, string> = {};
          let cont = '';
          let rv = 0;
          do {
            const page = (await call('GET', `${base}?limit=2${cont ? `&continue=${cont}` : ''}`)).body as {
              items: ConfigMap[];
              metadata: { continue?: string; resourceVersion: string };
            };
            for (const item of page.items)
              state[item.metadata.name] = `${item.data?.v ?? ''}@${item.metadata.resourceVersion}`;
            rv = Number(page.metadata.resourceVersion);
            cont = page.metadata.continue ?? '';
          } while (cont);
          snapshots.push({ rv, state });
        }
      })();

      for (const op of ops) {
        const path = `${base}/${op.name}`;
        const metadata = { name: op.name, ...(op.team !== null ? { labels: { team: op.team } } : {}) };
        const res =
          op.kind === 'create'
            ? await call('POST', base, { metadata, data: { v: op.value } })
            : op.kind === 'update'
              ? await call('PUT', path, { metadata, data: { v: op.value } })
              : op.kind === 'patch'
                ? await call('PATCH', path, { data: { v: op.value } }, 'application/merge-patch+json')
                : op.kind === 'label'
                  ? await call(
                      'PATCH',
                      path,
                      { metadata: { labels: { team: op.team } } },
                      'application/merge-patch+json',
                    )
                  : await call('DELETE', path);
        if (res.status >= 300) {
          expect([404, 409]).toContain(res.status);
          continue;
        }
        if (op.kind === 'delete') {
          history.push({ rv: 0, type: 'DELETED', name: op.name, value: '' });
          continue;
        }
        const stored = res.body as ConfigMap;
        const rv = Number(stored.metadata.resourceVersion);
        if (lastRv.get(op.name) === rv) continue; // an update that changed nothing is no event
        lastRv.set(op.name, rv);
        const team =
          op.kind === 'create' || op.kind === 'update' || op.kind === 'label'
            ? (op.team ?? undefined)
            : teams.get(op.name);
        teams.set(op.name, team);
        expect(stored.metadata.labels?.team).toBe(team);
        history.push({
          rv,
          type: op.kind === 'create' ? 'ADDED' : 'MODIFIED',
          name: op.name,
          value: stored.data?.v ?? '',
          ...(team !== undefined ? { team } : {}),
        });
      }
      writing = false;
      await lister;
      // Deletions answer with a Status: take their versions from what the watcher saw, in order.
      const finalList = (await call('GET', base)).body as {
        items: ConfigMap[];
        metadata: { resourceVersion: string };
      };
      const deadline = Date.now() + 5000;
      while (watcher.changes.length < history.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      watcher.stop();

      expect(watcher.changes.map(({ type, name }) => `${type} ${name}`)).toEqual(
        history.map(({ type, name }) => `${type} ${name}`),
      );
      const rvs = watcher.changes.map((c) => c.rv);
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
      history.forEach((change, i) => {
        const seen = watcher.changes[i]!;
        if (change.type === 'DELETED') {
          change.rv = seen.rv;
          if (seen.team !== undefined) change.team = seen.team;
        } else expect(seen).toEqual(change);
      });
      const expectedTeamX = selected(history);
      while (teamX.changes.length < expectedTeamX.length && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      teamX.stop();
      expect(teamX.changes.map((c) => `${c.type} ${c.name}@${c.rv}`)).toEqual(expectedTeamX);
      for (const snapshot of snapshots) expect(snapshot.state).toEqual(replay(history, snapshot.rv));
      // An exact read at every version of the history is its replay up to that version.
      for (const { rv } of history) {
        const past = (await call('GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).body as {
          items: ConfigMap[];
        };
        const state: Record<string, string> = {};
        for (const item of past.items)
          state[item.metadata.name] = `${item.data?.v ?? ''}@${item.metadata.resourceVersion}`;
        expect(state).toEqual(replay(history, rv));
      }
      const final: Record<string, string> = {};
      for (const item of finalList.items)
        final[item.metadata.name] = `${item.data?.v ?? ''}@${item.metadata.resourceVersion}`;
      expect(final).toEqual(replay(history, Number.MAX_SAFE_INTEGER));
    }),
    { seed: 20261130, numRuns: 25 },
  );
});
