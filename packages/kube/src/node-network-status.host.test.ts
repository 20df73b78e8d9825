// The status writer on fabrik's own NodeNetworkStatus (CRD from deploy/crds, schema from @fabrik/api):
// agent-netns and agent-host each write their section of the Node's object, concurrently.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_NETWORK_STATUS_RESOURCE, NodeNetworkStatus, type NodeNetworkStatusSection } from '@fabrik/api';
import { setCondition } from './conditions.js';
import { customObjects } from './custom-objects.js';
import { isInvalidError, type InvalidError } from './errors.js';
import { nodeOwnerReference } from './node.js';
import { createStatusWriter, type StatusWriter } from './status-writer.js';
import { createNode, startTestCluster, type TestCluster } from './testing/cluster.js';

const CRDS = join(dirname(fileURLToPath(import.meta.url)), '../../../deploy/crds');
const NNS = NODE_NETWORK_STATUS_RESOURCE;

let cluster: TestCluster;
let writer: StatusWriter;
beforeAll(async () => {
  cluster = await startTestCluster({ crdDirs: [CRDS] });
  writer = createStatusWriter({
    kc: cluster.kc,
    resource: NNS,
    stampField: 'lastUpdate',
    create: async (name) => ({
      apiVersion: `${NNS.group}/${NNS.version}`,
      kind: NNS.kind,
      metadata: { name, ownerReferences: [await nodeOwnerReference(cluster.kc, name)] },
    }),
  });
});
afterAll(() => cluster.server.destroy());

/** A section as an agent computes it, keeping its conditions' transition times. */
const section =
  (agent: 'Netns' | 'Host', round: number, at: Date) =>
  (current: unknown): Omit<NodeNetworkStatusSection, 'lastUpdate'> => ({
    configStatus: round % 2 === 0 ? 'provisioning' : 'provisioned',
    appliedGenerations: { vrfs: { red: round } },
    conditions: setCondition(
      (current as NodeNetworkStatusSection | undefined)?.conditions,
      {
        type: `Fabrik${agent}Ready`,
        status: round % 2 === 0 ? 'False' : 'True',
        reason: 'Round',
        message: `round ${round}`,
      },
      at,
    ).conditions,
  });

describe('NodeNetworkStatus sections', () => {
  it('both agents write their section concurrently from a missing object: created once, owned by the Node', async () => {
    const node = await createNode(cluster, 'worker-1');
    const at = new Date('2026-11-30T10:00:00Z');
    await Promise.all(
      [0, 1, 2, 3, 4].flatMap((round) => [
        writer.write({ name: 'worker-1', section: 'netns', status: section('Netns', round, at) }),
        writer.write({ name: 'worker-1', section: 'host', status: section('Host', round, at) }),
      ]),
    );
    const objects = customObjects(cluster.kc, NNS, NodeNetworkStatus);
    const nns = await objects.get('worker-1'); // parses with @fabrik/api's schema
    expect(nns.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'worker-1', uid: node.metadata.uid },
    ]);
    for (const [name, agent] of [
      ['netns', 'Netns'],
      ['host', 'Host'],
    ] as const) {
      const s = nns.status?.[name];
      expect(s?.lastUpdate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(s?.conditions).toHaveLength(1);
      expect(s?.conditions?.[0]?.type).toBe(`Fabrik${agent}Ready`);
      // Whichever round was written last, the section is that round's, whole.
      const round = s!.appliedGenerations!.vrfs!.red!;
      expect(s?.configStatus).toBe(round % 2 === 0 ? 'provisioning' : 'provisioned');
      expect(s?.conditions?.[0]?.message).toBe(`round ${round}`);
    }
  });

  it('a section the CRD refuses is an InvalidError naming the field, and the object stays as it was', async () => {
    await createNode(cluster, 'worker-2');
    await writer.write({ name: 'worker-2', section: 'host', status: { configStatus: 'provisioned' } });
    const before = await customObjects(cluster.kc, NNS, NodeNetworkStatus).get('worker-2');
    const error = await writer
      .write({ name: 'worker-2', section: 'netns', status: { configStatus: 'bogus' } })
      .catch((e: unknown) => e);
    expect(isInvalidError(error)).toBe(true);
    expect((error as InvalidError).causes.map((c) => c.field).join(' ')).toContain(
      'status.netns.configStatus',
    );
    expect(await customObjects(cluster.kc, NNS, NodeNetworkStatus).get('worker-2')).toEqual(before);
  });
});
