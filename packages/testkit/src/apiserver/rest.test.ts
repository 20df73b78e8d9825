import { describe, expect, it } from 'vitest';
import type { ApiError } from './errors.js';
import type { JsonObject } from './json.js';
import { CRD_TYPE, ResourceRegistry, type ResourceType } from './resources.js';
import { RestStorage } from './rest.js';
import { Store } from './store.js';

const crd: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.fabrik.dev' },
  spec: {
    group: 'test.fabrik.dev',
    scope: 'Cluster',
    names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer', default: 1, maximum: 10 } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};

function setup(): { rest: RestStorage; registry: ResourceRegistry; store: Store; widgets: ResourceType } {
  const store = new Store({ dir: undefined, historyLimit: 100 });
  const registry = new ResourceRegistry();
  const rest = new RestStorage(store, registry);
  rest.create(registry.get('', 'v1', 'namespaces')!, '', { metadata: { name: 'default' } });
  rest.create(CRD_TYPE, '', crd);
  return { rest, registry, store, widgets: registry.get('test.fabrik.dev', 'v1', 'widgets')! };
}

function caught(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('no error');
}

const meta = (o: JsonObject) =>
  o.metadata as { generation: number; resourceVersion: string; deletionTimestamp?: string };

describe('RestStorage', () => {
  it('serves a created CRD, marks it Established and drops its types with it', () => {
    const { rest, registry, widgets } = setup();
    const stored = rest.get(CRD_TYPE, '', 'widgets.test.fabrik.dev');
    expect((stored.status as { conditions: { type: string; status: string }[] }).conditions).toContainEqual(
      expect.objectContaining({ type: 'Established', status: 'True' }),
    );
    rest.create(widgets, '', { metadata: { name: 'w' }, spec: {} });
    rest.delete(CRD_TYPE, '', 'widgets.test.fabrik.dev', undefined);
    expect(registry.get('test.fabrik.dev', 'v1', 'widgets')).toBeUndefined();
  });

  it('defaults on create, drops status there, and keeps spec and status writes apart', () => {
    const { rest, widgets } = setup();
    const created = rest.create(widgets, '', { metadata: { name: 'w' }, spec: {}, status: { ready: true } });
    expect(created.spec).toEqual({ size: 1 });
    expect(created.status).toBeUndefined();
    expect(meta(created).generation).toBe(1);
    const status = rest.update(
      widgets,
      '',
      'w',
      { ...created, spec: { size: 5 }, status: { ready: true } },
      'status',
    );
    expect(status.spec).toEqual({ size: 1 });
    expect(status.status).toEqual({ ready: true });
    expect(meta(status).generation).toBe(1);
    const spec = rest.update(
      widgets,
      '',
      'w',
      { ...status, spec: { size: 5 }, status: { ready: false } },
      undefined,
    );
    expect(spec.status).toEqual({ ready: true });
    expect(meta(spec).generation).toBe(2);
    const same = rest.update(widgets, '', 'w', spec, undefined);
    expect(meta(same).resourceVersion).toBe(meta(spec).resourceVersion);
  });

  it('answers 409 for a stale resourceVersion, 422 for an invalid object, 404 and 409 AlreadyExists', () => {
    const { rest, widgets } = setup();
    const created = rest.create(widgets, '', { metadata: { name: 'w' }, spec: {} });
    rest.patch(widgets, '', 'w', 'merge', { spec: { size: 2 } }, undefined);
    expect(
      caught(() => rest.update(widgets, '', 'w', { ...created, spec: { size: 3 } }, undefined)).code,
    ).toBe(409);
    expect(caught(() => rest.patch(widgets, '', 'w', 'merge', { spec: { size: 11 } }, undefined)).code).toBe(
      422,
    );
    expect(caught(() => rest.get(widgets, '', 'nope')).code).toBe(404);
    expect(caught(() => rest.create(widgets, '', { metadata: { name: 'w' }, spec: {} })).reason).toBe(
      'AlreadyExists',
    );
    expect(caught(() => rest.patch(widgets, '', 'w', 'strategic', {}, undefined)).code).toBe(415);
  });

  it('holds an object with finalizers until they are removed', () => {
    const { rest, widgets } = setup();
    rest.create(widgets, '', { metadata: { name: 'w', finalizers: ['test/x'] }, spec: {} });
    const terminating = rest.delete(widgets, '', 'w', undefined);
    expect(meta(terminating).deletionTimestamp).toBeDefined();
    rest.patch(widgets, '', 'w', 'json', [{ op: 'remove', path: '/metadata/finalizers' }], undefined);
    expect(caught(() => rest.get(widgets, '', 'w')).code).toBe(404);
  });

  it('applies server-side as create-or-merge', () => {
    const { rest, widgets } = setup();
    const applied = rest.patch(
      widgets,
      '',
      'a',
      'apply',
      { apiVersion: 'test.fabrik.dev/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { size: 3 } },
      undefined,
    );
    expect(applied.spec).toEqual({ size: 3 });
    const again = rest.patch(
      widgets,
      '',
      'a',
      'apply',
      { metadata: { name: 'a', labels: { x: 'y' } } },
      undefined,
    );
    expect(again.spec).toEqual({ size: 3 });
    expect((again.metadata as { labels: object }).labels).toEqual({ x: 'y' });
  });

  it('deletes the objects of a namespace with it and refuses objects in a missing namespace', () => {
    const { rest, registry } = setup();
    const namespaces = registry.get('', 'v1', 'namespaces')!;
    const configmaps = registry.get('', 'v1', 'configmaps')!;
    rest.create(namespaces, '', { metadata: { name: 'team' } });
    rest.create(configmaps, 'team', { metadata: { name: 'c' } });
    rest.delete(namespaces, '', 'team', undefined);
    expect(caught(() => rest.get(configmaps, 'team', 'c')).code).toBe(404);
    expect(caught(() => rest.create(configmaps, 'team', { metadata: { name: 'c' } })).message).toBe(
      'namespaces "team" not found',
    );
  });

  it('serves every version of a CRD from one storage version (conversion None)', () => {
    const { rest, registry } = setup();
    const twoVersions = structuredClone(crd) as {
      metadata: { name: string };
      spec: { names: object; versions: JsonObject[] };
    };
    twoVersions.metadata.name = 'gadgets.test.fabrik.dev';
    twoVersions.spec.names = { plural: 'gadgets', kind: 'Gadget' };
    twoVersions.spec.versions = [
      { ...twoVersions.spec.versions[0]!, name: 'v1beta1', storage: false },
      { ...twoVersions.spec.versions[0]!, name: 'v1', storage: true },
    ];
    rest.create(CRD_TYPE, '', twoVersions as never);
    const beta = registry.get('test.fabrik.dev', 'v1beta1', 'gadgets')!;
    const v1 = registry.get('test.fabrik.dev', 'v1', 'gadgets')!;
    expect(rest.create(beta, '', { metadata: { name: 'g' }, spec: { size: 2 } }).apiVersion).toBe(
      'test.fabrik.dev/v1beta1',
    );
    expect(rest.get(v1, '', 'g')).toMatchObject({ apiVersion: 'test.fabrik.dev/v1', spec: { size: 2 } });
    expect(rest.get(beta, '', 'g').apiVersion).toBe('test.fabrik.dev/v1beta1');
    expect(registry.groups().find((g) => g.group === 'test.fabrik.dev')).toEqual({
      group: 'test.fabrik.dev',
      versions: ['v1', 'v1beta1'],
      preferred: 'v1',
    });
  });
});
