import { describe, expect, it } from 'vitest';
import { parseIntentDocuments, formatIntentDocuments, type IntentObject } from '@fabrik/agent-runtime';
import { PASSWORD_REVISION, relayedIntent } from './relay.js';

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

describe('relayedIntent', () => {
  it("passes this node's VRFs and Layer2Networks in their CRD shape, without server bookkeeping, and the Node's labels", () => {
    const { objects, passwords, objectErrors } = relayedIntent(
      {
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
      },
      '/relay/bgp-passwords',
    );
    expect(passwords.size).toBe(0);
    expect(objectErrors).toEqual([]);
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

describe('relayedIntent with BGPPeerings', () => {
  const secrets = {
    where: 'namespace fabrik-system',
    get: (name: string) => (name === 'calico' ? { password: 's3cret', other: 'x' } : undefined),
    revision: (name: string) => (name === 'calico' ? '41' : undefined),
  };
  const relay = (objects: IntentObject[]) =>
    relayedIntent({ objects, problems: [], secrets }, '/run/fabrik/relay/bgp-passwords');

  it("moves a Secret's password into a password file the relayed object names, with the Secret's revision", () => {
    const { objects, passwords, objectErrors } = relay([
      obj('BGPPeering', 'calico', {
        vrf: 'red',
        address: '10.1.0.50',
        remoteAs: 64512,
        passwordSecretRef: { name: 'calico' },
      }),
      obj('BGPPeering', 'open', { vrf: 'red', address: '10.1.0.51', remoteAs: 64513 }),
    ]);
    expect(objectErrors).toEqual([]);
    expect([...passwords]).toEqual([['/run/fabrik/relay/bgp-passwords/calico', 's3cret']]);
    expect(objects[0]).toEqual({
      apiVersion: API,
      kind: 'BGPPeering',
      metadata: {
        name: 'calico',
        generation: 4,
        creationTimestamp: '2026-11-01T00:00:00Z',
        annotations: { [PASSWORD_REVISION]: '41' },
      },
      spec: {
        vrf: 'red',
        address: '10.1.0.50',
        remoteAs: 64512,
        passwordFile: '/run/fabrik/relay/bgp-passwords/calico',
      },
    });
    expect(objects[1]?.spec).toEqual({ vrf: 'red', address: '10.1.0.51', remoteAs: 64513 });
    // The password is in no object.
    expect(formatIntentDocuments(objects)).not.toContain('s3cret');
  });

  it('reads the key the reference names, and passes a peering whose Secret is missing on as it is', () => {
    const { objects, passwords } = relay([
      obj('BGPPeering', 'keyed', {
        vrf: 'red',
        address: '10.1.0.52',
        remoteAs: 1,
        passwordSecretRef: { name: 'calico', key: 'other' },
      }),
      obj('BGPPeering', 'missing', {
        vrf: 'red',
        address: '10.1.0.53',
        remoteAs: 1,
        passwordSecretRef: { name: 'nope' },
      }),
    ]);
    expect([...passwords]).toEqual([['/run/fabrik/relay/bgp-passwords/keyed', 'x']]);
    // agent-netns skips it and names spec.passwordSecretRef in its status.
    expect(objects.find((o) => o.metadata.name === 'missing')?.spec).toMatchObject({
      passwordSecretRef: { name: 'nope' },
    });
  });

  it('does not relay a BGPPeering from the cluster that names a file of the node', () => {
    const { objects, objectErrors } = relay([
      obj('BGPPeering', 'sneaky', {
        vrf: 'red',
        address: '10.1.0.54',
        remoteAs: 1,
        passwordFile: '/etc/shadow',
      }),
    ]);
    expect(objects).toEqual([]);
    expect(objectErrors).toEqual([
      {
        kind: 'BGPPeering',
        name: 'sneaky',
        field: 'spec.passwordFile',
        message: 'a BGPPeering from the cluster may not name files of the node (not relayed)',
      },
    ]);
  });
});
