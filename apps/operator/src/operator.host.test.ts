// fabrik-operator against the real kube-apiserver (etcd + kube-apiserver of @fabrik/testkit, with
// the CRDs of deploy/crds): 200 Nodes, restarts, churn, annotations. Every assertion is on API
// objects: NodeNetworkConfigs, their status, Events. The operator runs with its own ServiceAccount's
// token and the grants of deploy/operator/rbac.yaml, so every call it makes is one RBAC allows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  API_VERSION,
  LAYER2_NETWORK_RESOURCE,
  NODE_IDENTITY_ANNOTATIONS,
  NODE_NETWORK_CONFIG_RESOURCE,
  VRF_RESOURCE,
  parseNodeNetworkConfig,
  type NodeIdentity,
  type NodeNetworkConfig,
} from '@fabrik/api';
import { EVENTS, NODES, NodeObject, ObjectMeta, customObjects } from '@fabrik/kube';
import { createLogger } from '@fabrik/agent-runtime';
import { until, type KubeApiServer } from '@fabrik/testkit';
import { startOperatorServer } from '../test/operator-server.js';
import { OperatorConfig } from './config.js';
import { startController, type Controller } from './controller.js';
import { renderNodeNow } from './render-now.js';

const NODE_COUNT = 200;
const GRACE_SECONDS = 3;
const config = OperatorConfig.parse({
  identity: { routerIdPool: '10.255.0.0/24', vtepPool: '10.254.0.0/24', asn: { from: 65000, to: 65999 } },
  deletedNodeGraceSeconds: GRACE_SECONDS,
  debounceMs: 100,
});
const logger = createLogger({ name: 'fabrik-operator', level: 'silent' });

let server: KubeApiServer;
let kc: KubeConfig;
/** The operator's own: fabrik-operator's ServiceAccount token. */
let operatorKc: KubeConfig;
let controller: Controller | undefined;
const loose = z.looseObject({ metadata: ObjectMeta });

const nodes = () => customObjects(kc, NODES, NodeObject);
const configs = () =>
  customObjects(kc, NODE_NETWORK_CONFIG_RESOURCE, (raw: unknown) => {
    const parsed = parseNodeNetworkConfig(raw);
    if (!parsed.ok) throw parsed.error;
    return parsed.value;
  });
const nodeName = (i: number) => `node-${String(i).padStart(3, '0')}`;

async function createNodes(
  names: readonly string[],
  annotations: Record<string, string> = {},
): Promise<void> {
  for (let i = 0; i < names.length; i += 20)
    await Promise.all(
      names
        .slice(i, i + 20)
        .map((name) => nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name, annotations } })),
    );
}

async function configsByName(): Promise<Map<string, NodeNetworkConfig>> {
  const { items, invalid } = await configs().list();
  expect(invalid).toEqual([]);
  return new Map(items.map((c) => [c.metadata.name, c]));
}

const identities = (all: ReadonlyMap<string, NodeNetworkConfig>) =>
  new Map([...all].flatMap(([name, c]) => (c.spec.identity ? [[name, c.spec.identity] as const] : [])));

function expectDistinct(ids: ReadonlyMap<string, NodeIdentity>): void {
  for (const field of ['asn', 'routerId', 'vtepIp'] as const)
    expect(new Set([...ids.values()].map((i) => i[field])).size, field).toBe(ids.size);
}

async function restartController(): Promise<void> {
  await controller?.stop();
  controller = startController({ kc: operatorKc, config, logger, instance: 'test' });
  await controller.idle();
}

beforeAll(async () => {
  ({ server, kc, operatorKc } = await startOperatorServer());
  await customObjects(kc, VRF_RESOURCE, loose).create({
    apiVersion: API_VERSION,
    kind: 'VRF',
    metadata: { name: 'red' },
    spec: { vni: 1001 },
  });
  await customObjects(kc, LAYER2_NETWORK_RESOURCE, loose).create({
    apiVersion: API_VERSION,
    kind: 'Layer2Network',
    metadata: { name: 'web' },
    spec: { vni: 2110, vlan: 110, vrf: 'red', nodeSelector: { matchLabels: { web: 'yes' } } },
  });
  await createNodes(Array.from({ length: NODE_COUNT }, (_, i) => nodeName(i)));
}, 180_000);

afterAll(async () => {
  await controller?.stop();
  await server?.destroy();
});

describe('fabrik-operator on a real API server', () => {
  let first: Map<string, NodeNetworkConfig>;

  it('installs the NodeNetworkConfig CRD and gives 200 Nodes 200 configs with distinct identities', async () => {
    const started = Date.now();
    await restartController();
    first = await until(
      '200 NodeNetworkConfigs',
      async () => {
        const all = await configsByName();
        return identities(all).size === NODE_COUNT && all;
      },
      120_000,
    );
    console.log(`200 nodes: every NodeNetworkConfig written in ${Date.now() - started} ms`);
    expectDistinct(identities(first));
    const c = first.get(nodeName(7))!;
    expect(c.spec.vrfs?.map((v) => v.name)).toEqual(['red']);
    expect(c.spec.layer2Networks).toEqual([]); // web selects nodes labelled web=yes only
    expect(c.spec.revision).toMatch(/^[0-9a-f]{16}$/);
    expect(c.status?.conditions?.map((x) => [x.type, x.status])).toEqual([['IdentityAllocated', 'True']]);
  }, 180_000);

  it('gives a node that joins a free value without moving anyone, and a restart keeps and rewrites nothing', async () => {
    // Sorted first by name: allocated from scratch it would take 10.255.0.1 and shift every node.
    await createNodes(['aaa-early']);
    const joined = await until('aaa-early config', async () => (await configsByName()).get('aaa-early'));
    expect(joined.spec.identity).toEqual({ asn: 65200, routerId: '10.255.0.201', vtepIp: '10.254.0.201' });
    const before = await configsByName();
    expect(identities(before)).toEqual(new Map([...identities(first), ['aaa-early', joined.spec.identity!]]));
    await restartController();
    const pass = controller!.lastPass()!;
    expect([pass.nodes, pass.applied]).toEqual([201, 0]);
    console.log(`a pass over ${pass.nodes} nodes that writes nothing: ${pass.durationMs} ms`);
    await new Promise((r) => setTimeout(r, 1000)); // a pass writing anything would show by now
    const after = await configsByName();
    expect(identities(after)).toEqual(identities(before));
    expect([...after].map(([n, c]) => [n, c.metadata.resourceVersion])).toEqual(
      [...before].map(([n, c]) => [n, c.metadata.resourceVersion]),
    );
  }, 60_000);

  it('follows a label change: the node gets the Layer2Network it now selects, and a new revision', async () => {
    const changed = Date.now();
    await nodes().patch(nodeName(7), { metadata: { labels: { web: 'yes' } } });
    const c = await until('web on node-007', async () => {
      const got = await configs().get(nodeName(7));
      return got.spec.layer2Networks?.length === 1 && got;
    });
    console.log(
      `a label change on one of 201 nodes reached its config in ${Date.now() - changed} ms (debounce 100 ms)`,
    );
    // As the API server holds it: the CRD's defaults applied.
    expect(c.spec.layer2Networks?.[0]?.spec).toEqual({
      vni: 2110,
      vlan: 110,
      vrf: 'red',
      mtu: 1500,
      neighSuppression: true,
    });
    expect(c.spec.revision).not.toBe(first.get(nodeName(7))!.spec.revision);
    expect(c.spec.identity).toEqual(first.get(nodeName(7))!.spec.identity);
  });

  it('a deleted node keeps its identity reserved for the grace period, then its config goes; the others never move', async () => {
    const gone = nodeName(5);
    await nodes().delete(gone);
    await createNodes(['node-new']);
    const joined = await until('node-new config', async () => (await configsByName()).get('node-new'));
    const held = first.get(gone)!.spec.identity!;
    expect(joined.spec.identity?.routerId).not.toBe(held.routerId);
    expect((await configsByName()).has(gone)).toBe(true); // within the grace period
    await until('the deleted node config removed', async () => !(await configsByName()).has(gone), 30_000);
    const after = identities(await configsByName());
    for (const [name, identity] of identities(first))
      if (name !== gone) expect(after.get(name), name).toEqual(identity);
    expectDistinct(after);
    // Its values are free again: the next node to join gets them.
    await createNodes(['node-later']);
    const later = await until('node-later config', async () => (await configsByName()).get('node-later'));
    expect(later.spec.identity).toEqual(held);
  }, 60_000);

  it("render --node prints what run wrote for the node (from one list, with the operator's grants)", async () => {
    const written = await configs().get(nodeName(7));
    const rendered = await renderNodeNow(operatorKc, config, nodeName(7));
    expect(rendered?.spec).toEqual(written.spec);
    expect(await renderNodeNow(operatorKc, config, 'no-such-node')).toBeUndefined();
  });

  it('honours an explicit annotation', async () => {
    await createNodes(['node-pinned'], {
      [NODE_IDENTITY_ANNOTATIONS.routerId]: '192.0.2.77',
      [NODE_IDENTITY_ANNOTATIONS.vtepIp]: '192.0.2.78',
      [NODE_IDENTITY_ANNOTATIONS.asn]: '4200000077',
    });
    const c = await until('node-pinned config', async () => (await configsByName()).get('node-pinned'));
    expect(c.spec.identity).toEqual({ asn: 4200000077, routerId: '192.0.2.77', vtepIp: '192.0.2.78' });
  });

  it('reports a duplicate annotation in both configs and as an Event on each Node, giving the value to neither', async () => {
    await createNodes(['dup-a', 'dup-b'], { [NODE_IDENTITY_ANNOTATIONS.vtepIp]: '192.0.2.200' });
    for (const name of ['dup-a', 'dup-b']) {
      const c = await until(`${name} condition`, async () => {
        const got = (await configsByName()).get(name);
        return got?.status?.conditions?.[0]?.status === 'False' && got;
      });
      expect(c.spec.identity).toBeUndefined();
      expect(c.status?.conditions?.[0]).toMatchObject({
        type: 'IdentityAllocated',
        reason: 'DuplicateAnnotation',
        message: `vtepIp: annotation network.fabrik.dev/vtep-ip=192.0.2.200 is on node ${name === 'dup-a' ? 'dup-b' : 'dup-a'} too`,
      });
      const event = await until(`${name} Event`, async () => {
        const { items } = await customObjects(
          kc,
          EVENTS,
          z.looseObject({
            metadata: ObjectMeta,
            involvedObject: z.looseObject({ kind: z.string(), name: z.string() }),
            reason: z.string(),
            type: z.string(),
          }),
        ).list({ namespace: 'default' });
        return items.find((e) => e.involvedObject.kind === 'Node' && e.involvedObject.name === name);
      });
      expect([event.type, event.reason]).toEqual(['Warning', 'DuplicateAnnotation']);
    }
  });
});
