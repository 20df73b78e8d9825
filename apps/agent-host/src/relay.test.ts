import { describe, expect, it } from 'vitest';
import { parseIntentDocuments, formatIntentDocuments, type IntentObject } from '@fabrik/agent-runtime';
import { relayedObjects } from './relay.js';

const API = 'network.fabrik.dev/v1alpha1';
const obj = (
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): IntentObject => ({
  apiVersion: API,
  kind,
  metadata: {
    name,
    generation: 4,
    resourceVersion: '812',
    uid: 'd3b07384-d113-4ec4-8b5f-000000000001',
    creationTimestamp: '2026-11-01T00:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    ...extra,
  } as IntentObject['metadata'],
  spec,
  status: { conditions: [] },
});

describe('relayedObjects', () => {
  it("passes this node's VRFs and Layer2Networks in their CRD shape, without server bookkeeping, and the Node's labels", () => {
    const objects = relayedObjects({
      objects: [
        obj('Layer2Network', 'web', { vni: 2100, vlan: 100, vrf: 'red' }),
        obj('Layer2Network', 'other-rack', {
          vni: 2200,
          vlan: 200,
          nodeSelector: { matchLabels: { rack: 'b' } },
        }),
        obj('VRF', 'red', { vni: 1001, nodeSelector: { matchLabels: { rack: 'a' } } }),
        // A selector that cannot be evaluated is agent-netns's to refuse (it names the field).
        obj('Layer2Network', 'bad-selector', {
          vni: 2300,
          vlan: 300,
          nodeSelector: { matchExpressions: [{ key: 'rack', operator: 'In' }] },
        }),
        obj('IPPool', 'pool', { cidr: '10.0.0.0/24' }),
      ],
      node: { name: 'node-a', labels: { rack: 'a' } },
      problems: [],
    });
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Layer2Network/bad-selector',
      'Layer2Network/web',
      'VRF/red',
      'Node/node-a',
    ]);
    expect(objects[1]).toEqual({
      apiVersion: API,
      kind: 'Layer2Network',
      metadata: { name: 'web', generation: 4, creationTimestamp: '2026-11-01T00:00:00Z' },
      spec: { vni: 2100, vlan: 100, vrf: 'red' },
    });
    expect(objects.at(-1)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-a', labels: { rack: 'a' } },
    });
    // What agent-netns's file source reads back.
    const read = parseIntentDocuments(formatIntentDocuments(objects), {
      where: 'intent.yaml',
      nodeName: 'node-a',
    });
    expect(read.problems).toEqual([]);
    expect(read.objects.map((o) => o.metadata.name)).toEqual(['bad-selector', 'web', 'red']);
    expect(read.node).toEqual({ name: 'node-a', labels: { rack: 'a' } });
  });
});
