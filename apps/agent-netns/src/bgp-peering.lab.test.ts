import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  API_VERSION,
  BGP_PEERING_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
} from '@fabrik/api';
import { NODES, customObjects, loadKubeConfig, type KubeObject } from '@fabrik/kube';
import { startKubeApiServer, startFrr, type KubeApiServer, type FrrInstance } from '@fabrik/testkit';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  addPod,
  deletePod,
  dumpAgentLogs,
  startAgent,
  startLabNodes,
  until,
  writeConfig,
  type LabNode,
  type LabNodes,
} from '../test/lab-nodes.js';

// A BGPPeering whose password comes from a Secret, in cluster mode: agent-netns watching the test
// API server reads the Secret (its secretNamespace, by default fabrik-system) and configures the
// session's TCP-MD5 password; a real FRR peer that requires that password reaches Established.
// The password never appears in the agent's logs. (agent-host's relay of the same BGPPeering and
// password to a file source is proven in apps/agent-host/src/relay.host.test.ts.)

const P = 'agb-';
const PEER = `${P}peer`;
const PASSWORD = 'md5-s3cret-4711';
const Any = z.looseObject({ metadata: z.looseObject({ name: z.string() }) });
const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});
let server: KubeApiServer;
let kc: KubeConfig;
let lab: LabNodes;
let a: LabNode;
let peerFrr: FrrInstance | undefined;

const object = (kind: string, name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: API_VERSION, kind, metadata: { name }, spec }) as KubeObject;

beforeAll(async () => {
  server = await startKubeApiServer();
  kc = loadKubeConfig({ kubeconfig: server.kubeconfigPath }).kc;
  lab = await startLabNodes({ prefix: P, single: true });
  a = lab.nodes[0]!;
  await customObjects(kc, NODES, Any).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-a' },
  } as KubeObject);
  await customObjects(kc, { group: '', version: 'v1', plural: 'namespaces' }, Any).create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'fabrik-system' },
  } as KubeObject);
  // No secretNamespace in the config: the default (env POD_NAMESPACE is not set here).
  await writeConfig(a, {
    source: { kind: 'kubernetes', kubeconfig: server.kubeconfigPath },
    statusFile: undefined,
  });
}, 300_000);
afterEach(({ task }) => {
  if (task.result?.state === 'fail') dumpAgentLogs(lab.nodes);
});
afterAll(async () => {
  await peerFrr?.stop();
  await deletePod(PEER);
  await lab?.destroy();
  await server?.destroy();
});

describe(
  'a BGPPeering with a password from a Secret (agent-netns with a Kubernetes source)',
  { timeout: 600_000 },
  () => {
    it('brings up the session with a real FRR peer that requires the password; the password is never logged', async () => {
      await customObjects(kc, gvr(VRF_RESOURCE), Any).create(
        object('VRF', 'red', { vni: 1001, redistribute: { connected: true } }),
      );
      await customObjects(kc, gvr(LAYER2_NETWORK_RESOURCE), Any).create(
        object('Layer2Network', 'net1', {
          vni: 2101,
          vlan: 101,
          vrf: 'red',
          anycastGateways: ['10.1.0.1/24'],
          anycastMac: '02:fa:b0:00:01:01',
        }),
      );
      await customObjects(kc, { group: '', version: 'v1', plural: 'secrets' }, Any).create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'peer-bgp', namespace: 'fabrik-system' },
        data: { password: Buffer.from(PASSWORD).toString('base64') },
      } as KubeObject);
      await customObjects(kc, gvr(BGP_PEERING_RESOURCE), Any).create(
        object('BGPPeering', 'peer', {
          vrf: 'red',
          address: '10.1.0.50',
          remoteAs: 64512,
          passwordSecretRef: { name: 'peer-bgp' },
        }),
      );

      // The peer: a workload on VLAN 101 (behind the anycast gateway of net1, in VRF red) running
      // its own bgpd, which accepts only segments signed with the password (TCP-MD5).
      await addPod(a, PEER, 101, '10.1.0.50/24');
      peerFrr = await startFrr({
        netns: PEER,
        daemons: ['zebra', 'bgpd'],
        config: [
          'frr defaults datacenter',
          'hostname peer',
          '!',
          'router bgp 64512',
          ' bgp router-id 10.1.0.50',
          ' no bgp ebgp-requires-policy',
          ' neighbor 10.1.0.1 remote-as 65000',
          ` neighbor 10.1.0.1 password ${PASSWORD}`,
          'exit',
          '!',
          '',
        ].join('\n'),
      });

      startAgent(a);
      const state = async (frr: FrrInstance, command: string, neighbor: string) => {
        const json = JSON.parse(await frr.vtysh(command)) as Record<
          string,
          { bgpState?: string } | undefined
        >;
        return json[neighbor]?.bgpState;
      };
      await until(
        'the session Established on both sides',
        async () =>
          (await state(a.frr, 'show bgp vrf red neighbors 10.1.0.50 json', '10.1.0.50')) === 'Established' &&
          (await state(peerFrr!, 'show bgp neighbors 10.1.0.1 json', '10.1.0.1')) === 'Established',
        120_000,
      );
      // The agent configured the password (the peer would drop unsigned segments anyway).
      expect(await a.frr.runningConfig()).toContain(`neighbor 10.1.0.50 password ${PASSWORD}`);
      const netns = await until('NodeNetworkStatus provisioned', async () => {
        const nns = (await customObjects(kc, gvr(NODE_NETWORK_STATUS_RESOURCE), Any)
          .get('node-a')
          .catch(() => undefined)) as
          { status?: { netns?: { configStatus?: string; objectErrors?: unknown[] } } } | undefined;
        return nns?.status?.netns?.configStatus === 'provisioned' ? nns.status.netns : undefined;
      });
      expect(netns.objectErrors ?? []).toEqual([]);

      const printed = JSON.stringify(a.agent!.logs) + a.agent!.stderr();
      expect(printed).toContain('reconciled');
      expect(printed).not.toContain(PASSWORD);
    });
  },
);
