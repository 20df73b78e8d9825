import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LAYER2_NETWORK_RESOURCE, NODE_NETWORK_STATUS_RESOURCE, VRF_RESOURCE } from '@fabrik/api';
import { EVENTS, NODES, customObjects, isInvalidError, loadKubeConfig, type KubeObject } from '@fabrik/kube';
import { startKubeApiServer, type KubeApiServer } from '@fabrik/testkit';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  addPod,
  deletePod,
  layer2,
  ownedLinks,
  pings,
  startAgent,
  startLabNodes,
  until,
  vrf,
  writeConfig,
  type LabNode,
  type LabNodes,
} from '../test/lab-nodes.js';

// agent-netns watching the test API server itself (source kind kubernetes): objects applied
// through the API, nodeSelectors against the Nodes' labels (and a label change), NodeNetworkStatus,
// the Node condition, the startup taint, Events. Two nodes of the lab kernel with real FRR. What
// does not depend on the source (leaking, exact removal, drift, a failing reload) is proven from
// files in agent.lab.test.ts.

const P = 'agk-';
const TAINT = 'fabrik.dev/netns-not-ready';
const Any = z.looseObject({
  metadata: z.looseObject({ name: z.string(), generation: z.number().optional() }),
});
const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});
const pods: string[] = [];
let server: KubeApiServer;
let kc: KubeConfig;
let lab: LabNodes;
let a: LabNode;
let b: LabNode;

const resourceOf = (kind: string) => gvr(kind === 'VRF' ? VRF_RESOURCE : LAYER2_NETWORK_RESOURCE);
const nodeNameOf = (n: LabNode) => `node-${n.id}`;

/** Makes the API hold exactly `objects` (created, spec replaced, the others deleted). */
async function apply(objects: KubeObject[]): Promise<void> {
  for (const kind of ['VRF', 'Layer2Network']) {
    const api = customObjects(kc, resourceOf(kind), Any);
    const wanted = objects.filter((o) => o.kind === kind);
    for (const o of (await api.list()).items)
      if (!wanted.some((w) => w.metadata.name === o.metadata.name)) await api.delete(o.metadata.name);
    for (const o of wanted) {
      const { generation: _g, creationTimestamp: _c, ...metadata } = o.metadata as Record<string, unknown>;
      const object = { ...o, metadata } as KubeObject;
      try {
        const current = await api.get(o.metadata.name);
        await api.replace({
          ...object,
          metadata: { ...metadata, resourceVersion: current.metadata.resourceVersion },
        } as KubeObject);
      } catch {
        await api.create(object);
      }
    }
  }
}

const nns = async (n: LabNode) =>
  (await customObjects(kc, gvr(NODE_NETWORK_STATUS_RESOURCE), Any)
    .get(nodeNameOf(n))
    .catch(() => undefined)) as
    | {
        status?: {
          netns?: {
            configStatus?: string;
            appliedGenerations?: { vrfs?: Record<string, number>; layer2Networks?: Record<string, number> };
            objectErrors?: { kind: string; name: string; field?: string }[];
          };
        };
      }
    | undefined;

const sameEntries = (x: Record<string, number>, y: Record<string, number>) =>
  JSON.stringify(Object.entries(x).sort()) === JSON.stringify(Object.entries(y).sort());

/** Waits until the node's NodeNetworkStatus says every named object is applied at its current generation. */
async function waitApplied(n: LabNode, names: { vrfs: string[]; layer2Networks: string[] }): Promise<void> {
  const generations = async (kind: string, list: string[]) => {
    const api = customObjects(kc, resourceOf(kind), Any);
    return Object.fromEntries(
      await Promise.all(
        list.sort().map(async (name) => [name, (await api.get(name)).metadata.generation ?? 0]),
      ),
    );
  };
  await until(`node ${n.id} to apply ${[...names.vrfs, ...names.layer2Networks].join(', ')}`, async () => {
    const s = (await nns(n))?.status?.netns;
    if (!s || s.configStatus === 'provisioning' || s.configStatus === 'invalid') return undefined;
    const want = {
      vrfs: await generations('VRF', names.vrfs),
      layer2Networks: await generations('Layer2Network', names.layer2Networks),
    };
    // By content: a merge patch of the status appends a new name at the end, whatever its order.
    return sameEntries(s.appliedGenerations?.vrfs ?? {}, want.vrfs) &&
      sameEntries(s.appliedGenerations?.layer2Networks ?? {}, want.layer2Networks)
      ? true
      : undefined;
  });
}

const red = vrf('red', 1, { vni: 1001, redistribute: { connected: true } });
const net1 = layer2('net1', 1, {
  vni: 2101,
  vlan: 101,
  vrf: 'red',
  anycastGateways: ['10.1.0.1/24'],
  anycastMac: '02:fa:b0:00:01:01',
});
const net2 = layer2('net2', 1, {
  vni: 2102,
  vlan: 102,
  vrf: 'red',
  anycastGateways: ['10.2.0.1/24'],
  anycastMac: '02:fa:b0:00:01:02',
});
const shared = layer2('shared', 1, { vni: 2200, vlan: 200 });
const onlyR1 = layer2('only-r1', 1, { vni: 2300, vlan: 300, nodeSelector: { matchLabels: { rack: 'r1' } } });
const base = { vrfs: ['red'], layer2Networks: ['net1', 'net2', 'shared'] };

beforeAll(async () => {
  server = await startKubeApiServer();
  kc = loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc;
  lab = await startLabNodes({ prefix: P });
  [a, b] = lab.nodes as [LabNode, LabNode];
  const nodes = customObjects(kc, NODES, Any);
  for (const [n, rack] of [
    [a, 'r1'],
    [b, 'r2'],
  ] as const) {
    await nodes.create({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeNameOf(n), labels: { rack } },
      spec: { taints: [{ key: TAINT, effect: 'NoSchedule' }] },
    } as KubeObject);
    await nodes.patchStatus(nodeNameOf(n), {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
          },
        ],
      },
    });
    await writeConfig(n, {
      source: { kind: 'kubernetes', kubeconfig: server.kubeconfigPath },
      statusFile: undefined,
      startupTaint: { key: TAINT, effect: 'NoSchedule' },
    });
  }
}, 300_000);
afterAll(async () => {
  for (const p of pods) await deletePod(p);
  await lab?.destroy();
  await server?.destroy();
});

describe('agent-netns from the Kubernetes API, two nodes', { timeout: 600_000 }, () => {
  it('Layer2 EVPN and symmetric IRB across the nodes; NodeNetworkStatus, the Node condition beside Ready, the startup taint gone', async () => {
    await apply([red, net1, net2, shared] as KubeObject[]);
    startAgent(a);
    startAgent(b);
    for (const n of [a, b]) await waitApplied(n, base);
    for (const [n, name, vlan, address, gw] of [
      [a, 'a101', 101, '10.1.0.10/24', '10.1.0.1'],
      [b, 'b102', 102, '10.2.0.20/24', '10.2.0.1'],
      [a, 'a200', 200, '10.200.0.1/24', undefined],
      [b, 'b200', 200, '10.200.0.2/24', undefined],
    ] as const) {
      pods.push(`${P}${name}`);
      await addPod(n, `${P}${name}`, vlan, address, gw);
    }
    expect(await pings(`${P}a200`, '10.200.0.2', 30)).toBe(true);
    expect(await pings(`${P}a101`, '10.2.0.20', 30)).toBe(true);

    for (const n of [a, b]) {
      expect((await nns(n))?.status?.netns?.configStatus).toBe('provisioned');
      const node = async () =>
        (await customObjects(kc, NODES, Any).get(nodeNameOf(n))) as {
          spec?: { taints?: { key: string }[] };
          status?: { conditions?: { type: string; status: string }[] };
        };
      await until(
        'the taint removed',
        async () => !((await node()).spec?.taints ?? []).some((t) => t.key === TAINT),
      );
      const conditions = (await node()).status?.conditions;
      expect(conditions).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'Ready', status: 'True' }),
          expect.objectContaining({ type: 'FabrikNetnsReady', status: 'True' }),
        ]),
      );
    }
  });

  it('follows nodeSelectors, and a label change of the Node both ways', async () => {
    const withOnlyR1 = { ...base, layer2Networks: [...base.layer2Networks, 'only-r1'] };
    await apply([red, net1, net2, shared, onlyR1] as KubeObject[]);
    await waitApplied(a, withOnlyR1);
    await waitApplied(b, base);
    expect((await ownedLinks(a)).get('tr.300')).toMatchObject({ master: 'br2300', up: true });
    expect((await ownedLinks(b)).has('br2300')).toBe(false);

    const nodes = customObjects(kc, NODES, Any);
    await nodes.patch(nodeNameOf(b), { metadata: { labels: { rack: 'r1' } } });
    await waitApplied(b, withOnlyR1);
    expect((await ownedLinks(b)).get('tr.300')).toMatchObject({ master: 'br2300', up: true });

    await nodes.patch(nodeNameOf(b), { metadata: { labels: { rack: 'r2' } } });
    await waitApplied(b, base);
    const left = await ownedLinks(b);
    expect([left.has('br2300'), left.has('vx2300'), left.has('tr.300')]).toEqual([false, false, false]);
  });

  it('a bad object is refused (by the API or by the agent), changes nothing, and its field is named in status and in an Event', async () => {
    const l2api = customObjects(kc, resourceOf('Layer2Network'), Any);
    const refused = await l2api
      .create(layer2('bad', 1, { vni: 2500, vlan: 5000 }) as KubeObject)
      .catch((e: unknown) => e);
    expect(isInvalidError(refused)).toBe(true);
    expect(String((refused as Error).message)).toContain('spec.vlan');

    const before = { links: await ownedLinks(a), frr: await a.frr.runningConfig() };
    await l2api.create(layer2('clash', 1, { vni: 2501, vlan: 101 }) as KubeObject);
    const section = await until('the refusal in NodeNetworkStatus', async () => {
      const s = (await nns(a))?.status?.netns;
      return s?.configStatus === 'degraded' ? s : undefined;
    });
    expect(section.objectErrors).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'clash', field: 'spec.vlan' }),
    ]);
    const event = await until('an Event on the Layer2Network', async () => {
      const events = (
        await customObjects(
          kc,
          EVENTS,
          z.looseObject({
            reason: z.string().optional(),
            message: z.string().optional(),
            involvedObject: z.looseObject({ name: z.string().optional() }).optional(),
          }),
        ).list({ namespace: 'default' })
      ).items;
      return events.find((e) => e.involvedObject?.name === 'clash' && e.reason === 'Skipped');
    });
    expect(event.message).toContain('spec.vlan');
    expect(await ownedLinks(a)).toEqual(before.links);
    expect(await a.frr.runningConfig()).toBe(before.frr);
    await l2api.delete('clash');
  });
});
