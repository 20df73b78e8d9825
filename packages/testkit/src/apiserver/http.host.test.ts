// kube-apiserver's HTTP semantics, checked on the wire: watch streams (initial events, bookmarks,
// timeoutSeconds, 410 as an ERROR event, selector transitions), list versions and pages, CRDs
// created through the API, tables, warnings, dry runs, namespaces and authentication.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from './server.js';

type Json = Record<string, unknown>;
type WatchEvent = { type: string; object: Json & { metadata: Json } };

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fabrik-apiserver-http-'));
  server = await startApiServer({
    dir,
    tls: false,
    crdDirs: [join(import.meta.dirname, '__fixtures__', 'crds')],
    bookmarkIntervalMs: 100,
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text.startsWith('{') ? (JSON.parse(text) as Json) : { text },
    headers: res.headers,
  };
}

/** Reads a watch stream until `done(events)` says so, the server ends it, or 5 s pass. */
async function watchUntil(
  path: string,
  done: (events: WatchEvent[]) => boolean,
  during?: () => Promise<void>,
): Promise<{ events: WatchEvent[]; ended: boolean }> {
  const controller = new AbortController();
  const res = await fetch(server.url + path, {
    headers: { Authorization: `Bearer ${server.token}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const events: WatchEvent[] = [];
  let buffer = '';
  // A bound on the wait, not a timing check: a stream still open then counts as not ended.
  const timer = setTimeout(() => controller.abort(), 5000);
  const pending = during?.();
  let ended = false;
  try {
    while (!done(events)) {
      const chunk = await reader.read().catch(() => undefined);
      if (chunk === undefined) break;
      const { value, done: streamDone } = chunk;
      if (streamDone) {
        ended = true;
        break;
      }
      buffer += Buffer.from(value).toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, newline)) as WatchEvent);
        buffer = buffer.slice(newline + 1);
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
    await pending;
  }
  return { events, ended };
}

const CM = '/api/v1/namespaces/default/configmaps';
const rvOf = (o: { metadata: Json }) => Number(o.metadata.resourceVersion);

describe('watch', () => {
  it('from rv 0 sends the current objects as ADDED, then changes in order, with bookmarks when allowed', async () => {
    await call('POST', CM, { metadata: { name: 'w-a', labels: { w: '1' } }, data: { k: 'v' } });
    const { events } = await watchUntil(
      `${CM}?watch=true&resourceVersion=0&labelSelector=w%3D1&allowWatchBookmarks=true`,
      (evs) => evs.some((e) => e.type === 'DELETED') && evs.some((e) => e.type === 'BOOKMARK'),
      async () => {
        await call(
          'PATCH',
          `${CM}/w-a`,
          { data: { k: 'v2' } },
          { 'Content-Type': 'application/merge-patch+json' },
        );
        await call('DELETE', `${CM}/w-a`);
      },
    );
    const changes = events.filter((e) => e.type !== 'BOOKMARK');
    expect(changes.map((e) => `${e.type} ${String(e.object.metadata.name)}`)).toEqual([
      'ADDED w-a',
      'MODIFIED w-a',
      'DELETED w-a',
    ]);
    const rvs = changes.map((e) => rvOf(e.object));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.kind).toBe('ConfigMap');
    expect(Object.keys(bookmark.object.metadata)).toEqual(['resourceVersion']);
  });

  it('reports objects entering and leaving a label selector as ADDED and DELETED', async () => {
    await call('POST', CM, { metadata: { name: 'w-sel', labels: { team: 'x' } } });
    const from = rvOf((await call('GET', `${CM}/w-sel`)).body as never);
    const { events } = await watchUntil(
      `${CM}?watch=true&resourceVersion=${from}&labelSelector=team%3Dy`,
      (evs) => evs.length >= 2,
      async () => {
        await call(
          'PATCH',
          `${CM}/w-sel`,
          { metadata: { labels: { team: 'y' } } },
          { 'Content-Type': 'application/merge-patch+json' },
        );
        await call(
          'PATCH',
          `${CM}/w-sel`,
          { metadata: { labels: { team: 'z' } } },
          { 'Content-Type': 'application/merge-patch+json' },
        );
      },
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect((events[1]!.object.metadata.labels as Json).team).toBe('z');
  });

  it('ends the stream after timeoutSeconds', async () => {
    const { ended } = await watchUntil(`${CM}?watch=true&timeoutSeconds=1`, () => false);
    expect(ended).toBe(true);
  });

  it('answers a compacted resourceVersion with an ERROR event carrying a 410 Expired Status', async () => {
    const { body } = await call('POST', CM, { metadata: { name: 'w-old' } });
    server.compact();
    const { events, ended } = await watchUntil(
      `${CM}?watch=true&resourceVersion=${rvOf(body as never)}`,
      () => false,
    );
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('ERROR');
    expect(events[0]!.object).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Expired',
      code: 410,
    });
  });
});

describe('list', () => {
  it('pages from one snapshot with limit/continue and expires the token after compaction', async () => {
    for (const n of ['p-1', 'p-2', 'p-3'])
      await call('POST', '/api/v1/namespaces/kube-public/configmaps', { metadata: { name: n } });
    const first = (await call('GET', '/api/v1/namespaces/kube-public/configmaps?limit=2')).body as {
      items: { metadata: Json }[];
      metadata: Json;
    };
    expect(first.items.map((i) => i.metadata.name)).toEqual(['p-1', 'p-2']);
    expect(first.metadata.remainingItemCount).toBe(1);
    await call('DELETE', '/api/v1/namespaces/kube-public/configmaps/p-3');
    const second = (
      await call(
        'GET',
        `/api/v1/namespaces/kube-public/configmaps?limit=2&continue=${String(first.metadata.continue)}`,
      )
    ).body as {
      items: { metadata: Json }[];
      metadata: Json;
    };
    // The page comes from the first page's snapshot, where p-3 still existed.
    expect(second.items.map((i) => i.metadata.name)).toEqual(['p-3']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    server.compact();
    const expired = await call(
      'GET',
      `/api/v1/namespaces/kube-public/configmaps?limit=2&continue=${String(first.metadata.continue)}`,
    );
    expect(expired.status).toBe(410);
    expect(expired.body.reason).toBe('Expired');
  });

  it('refuses a resourceVersion from the future with 504 and an unknown field selector with 400', async () => {
    expect((await call('GET', `${CM}?resourceVersion=999999`)).status).toBe(504);
    const bad = await call('GET', `${CM}?fieldSelector=spec.x%3D1`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('field label not supported: spec.x');
  });

  it('selects pods by spec.nodeName and metadata.name', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'pod-a' },
      spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'i' }] },
    });
    await call('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'pod-b' },
      spec: { nodeName: 'node-b', containers: [{ name: 'c', image: 'i' }] },
    });
    const onA = (await call('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a')).body as {
      items: { metadata: Json; status: Json }[];
    };
    expect(onA.items.map((p) => p.metadata.name)).toEqual(['pod-a']);
    expect(onA.items[0]!.status.phase).toBe('Pending');
    const byName = (await call('GET', '/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dpod-b'))
      .body as { items: { metadata: Json }[] };
    expect(byName.items.map((p) => p.metadata.name)).toEqual(['pod-b']);
  });

  it('answers kubectl tables with the CRD printer columns', async () => {
    await call('POST', '/apis/network.fabrik.dev/v1alpha1/layer2networks', {
      metadata: { name: 't-1' },
      spec: { vni: 7, vlan: 70, vrf: 'red' },
    });
    const { body } = await call('GET', '/apis/network.fabrik.dev/v1alpha1/layer2networks', undefined, {
      Accept:
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
    });
    expect(body.kind).toBe('Table');
    expect((body.columnDefinitions as Json[]).map((c) => c.name)).toEqual([
      'Name',
      'VNI',
      'VLAN',
      'VRF',
      'Age',
    ]);
    const row = (body.rows as { cells: unknown[] }[])[0]!;
    expect(row.cells.slice(0, 4)).toEqual(['t-1', 7, 70, 'red']);
  });
});

describe('writes', () => {
  it('serves a CRD created through the API once it is Established, and refuses one with CEL it cannot evaluate', async () => {
    const crd = (plural: string, rule: string) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.test.fabrik.dev` },
      spec: {
        group: 'test.fabrik.dev',
        scope: 'Namespaced',
        names: { plural, kind: plural === 'widgets' ? 'Widget' : 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'integer' } },
                    'x-kubernetes-validations': [{ rule }],
                  },
                },
              },
            },
          },
        ],
      },
    });
    const created = await call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd('widgets', 'self.size > 0'),
    );
    expect(created.status).toBe(201);
    expect(
      ((created.body.status as Json).conditions as Json[]).find((c) => c.type === 'Established')?.status,
    ).toBe('True');
    const discovery = (await call('GET', '/apis/test.fabrik.dev/v1')).body as { resources: Json[] };
    expect(discovery.resources.map((r) => r.name)).toEqual(['widgets']);
    expect(
      (
        await call('POST', '/apis/test.fabrik.dev/v1/namespaces/default/widgets', {
          metadata: { name: 'w' },
          spec: { size: 1 },
        })
      ).status,
    ).toBe(201);
    const refused = await call('POST', '/apis/test.fabrik.dev/v1/namespaces/default/widgets', {
      metadata: { name: 'w0' },
      spec: { size: 0 },
    });
    expect(refused.body.message).toBe(
      'Widget.test.fabrik.dev "w0" is invalid: spec: Invalid value: "object": failed rule: self.size > 0',
    );

    const unsupported = await call(
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd('gadgets', 'self.size.isQuantity()'),
    );
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.message).toContain('spec.versions[0].schema.openAPIV3Schema');
    expect(unsupported.body.message).toContain('function isQuantity() is not supported');
    expect((await call('GET', '/apis/test.fabrik.dev/v1/namespaces/default/gadgets')).status).toBe(404);

    // Deleting the CRD removes its objects (DELETED for the watchers), ends their watches and stops serving the kind.
    const { events, ended } = await watchUntil(
      '/apis/test.fabrik.dev/v1/widgets?watch=true&resourceVersion=0',
      () => false,
      async () => {
        await call(
          'DELETE',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.fabrik.dev',
        );
      },
    );
    expect(events.map((e) => `${e.type} ${String(e.object.metadata.name)}`)).toEqual([
      'ADDED w',
      'DELETED w',
    ]);
    expect(ended).toBe(true);
    expect((await call('GET', '/apis/test.fabrik.dev/v1/namespaces/default/widgets')).status).toBe(404);
  });

  it('warns about unknown fields under fieldValidation=Warn and keeps dry runs out of storage', async () => {
    const res = await call('POST', '/apis/network.fabrik.dev/v1alpha1/layer2networks?fieldValidation=Warn', {
      metadata: { name: 'warned' },
      spec: { vni: 8, vlan: 80, colour: 'blue' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"spec.colour\\""');
    expect((res.body.spec as Json).colour).toBeUndefined();
    const dry = await call('POST', '/apis/network.fabrik.dev/v1alpha1/layer2networks?dryRun=All', {
      metadata: { name: 'dry' },
      spec: { vni: 9, vlan: 90 },
    });
    expect(dry.status).toBe(201);
    expect((await call('GET', '/apis/network.fabrik.dev/v1alpha1/layer2networks/dry')).status).toBe(404);
  });

  it('deletes a namespace with its objects, and deletes collections by label', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await call('POST', '/api/v1/namespaces/doomed/configmaps', {
      metadata: { name: 'a', labels: { x: '1' } },
    });
    await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'b' } });
    await call('DELETE', '/api/v1/namespaces/doomed/configmaps?labelSelector=x%3D1');
    const left = (await call('GET', '/api/v1/namespaces/doomed/configmaps')).body as {
      items: { metadata: Json }[];
    };
    expect(left.items.map((i) => i.metadata.name)).toEqual(['b']);
    await call('DELETE', '/api/v1/namespaces/doomed');
    expect((await call('GET', '/api/v1/configmaps')).body.items).not.toContainEqual(
      expect.objectContaining({ metadata: expect.objectContaining({ namespace: 'doomed' }) }),
    );
    const missing = await call('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'c' } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('namespaces "doomed" not found');
  });

  it('serves aggregated discovery to clients that ask for it, plain documents to the others', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const aggregated = await call('GET', '/apis', undefined, { Accept: accept });
    expect(aggregated.headers.get('content-type')).toBe(
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const fabrik = (
      aggregated.body.items as {
        metadata: { name: string };
        versions: { version: string; resources: Json[] }[];
      }[]
    ).find((g) => g.metadata.name === 'network.fabrik.dev')!;
    expect(fabrik.versions[0]!.version).toBe('v1alpha1');
    expect(fabrik.versions[0]!.resources.find((r) => r.resource === 'layer2networks')).toMatchObject({
      responseKind: { group: 'network.fabrik.dev', version: 'v1alpha1', kind: 'Layer2Network' },
      scope: 'Cluster',
      shortNames: ['l2'],
      subresources: [{ subresource: 'status' }],
    });
    const core = await call('GET', '/api', undefined, { Accept: accept });
    expect((core.body.items as { metadata: { name: string } }[]).map((g) => g.metadata.name)).toEqual(['']);
    expect((await call('GET', '/apis')).body.kind).toBe('APIGroupList');
  });

  it('refuses requests without a valid token with 401', async () => {
    const res = await fetch(`${server.url}/api/v1/nodes`, { headers: { Authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
