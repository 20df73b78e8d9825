// agent-host's relay against the test API server: this node's VRF, Layer2Network and BGPPeering
// objects land in the file agent-netns reads (nodeSelectors applied, following the Node's labels;
// a BGPPeering's Secret password in a file of its own), agent-netns's
// status file is published as the `netns` section of NodeNetworkStatus with its Node condition,
// agent-host's own section and condition are written, and stopping leaves the file in place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  API_VERSION,
  BGP_PEERING_RESOURCE,
  LAYER2_NETWORK_RESOURCE,
  NODE_NETWORK_STATUS_RESOURCE,
  VRF_RESOURCE,
} from '@fabrik/api';
import { parseIntentDocuments, writeFileAtomic } from '@fabrik/agent-runtime';
import { EVENTS, NODES, customObjects, loadKubeConfig, type KubeObject } from '@fabrik/kube';
import { startKubeApiServer, until, type AgentProcess, type KubeApiServer } from '@fabrik/testkit';
import type { KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import { createHostSandbox, NODE_NAME, type HostSandbox } from '../test/harness.js';

const Any = z.looseObject({ metadata: z.looseObject({ name: z.string() }) });
type Loose = z.infer<typeof Any> & Record<string, unknown>;
const gvr = (r: { group: string; version: string; plural: string }) => ({
  group: r.group,
  version: r.version,
  plural: r.plural,
});

let api: KubeApiServer;
let kc: KubeConfig;
let sb: HostSandbox;
let agent: AgentProcess;
let intentFile: string;
let statusFile: string;

const obj = (kind: string, name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: API_VERSION, kind, metadata: { name }, spec }) as KubeObject;
const relayed = async () => {
  const parsed = parseIntentDocuments(await readFile(intentFile, 'utf8'), {
    where: 'intent',
    nodeName: NODE_NAME,
  });
  return { names: parsed.objects.map((o) => `${o.kind}/${o.metadata.name}`).sort(), node: parsed.node };
};
const nns = async () =>
  (await customObjects(kc, gvr(NODE_NETWORK_STATUS_RESOURCE), Any).get(NODE_NAME)) as Loose & {
    status?: { netns?: Record<string, unknown>; host?: Record<string, unknown> };
  };
const nodeConditions = async () =>
  (
    (await customObjects(kc, NODES, Any).get(NODE_NAME)) as Loose & {
      status?: { conditions?: { type: string; status: string }[] };
    }
  ).status?.conditions ?? [];

beforeAll(async () => {
  api = await startKubeApiServer();
  kc = loadKubeConfig({ kubeconfig: api.kubeconfigPath }).kc;
  await customObjects(kc, NODES, Any).create({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: NODE_NAME, labels: { rack: 'a' } },
  } as KubeObject);
  // The namespace of the Secrets BGPPeerings name (agent-host's default: fabrik-system).
  await customObjects(kc, { group: '', version: 'v1', plural: 'namespaces' }, Any).create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'fabrik-system' },
  } as KubeObject);
  const vrfs = customObjects(kc, gvr(VRF_RESOURCE), Any);
  const l2s = customObjects(kc, gvr(LAYER2_NETWORK_RESOURCE), Any);
  await vrfs.create(obj('VRF', 'red', { vni: 1001, nodeSelector: { matchLabels: { rack: 'a' } } }));
  await vrfs.create(obj('VRF', 'blue', { vni: 1002 }));
  await l2s.create(obj('Layer2Network', 'web', { vni: 2100, vlan: 100, vrf: 'blue' }));
  await l2s.create(
    obj('Layer2Network', 'rack-b', { vni: 2200, vlan: 200, nodeSelector: { matchLabels: { rack: 'b' } } }),
  );

  sb = await createHostSandbox('far-');
  intentFile = join(sb.dir, 'relay', 'intent.yaml');
  statusFile = join(sb.dir, 'relay', 'status.json');
  await sb.writeConfig({
    source: { kind: 'kubernetes', kubeconfig: api.kubeconfigPath },
    relay: { intentFile, statusFile, netnsMaxAgeSeconds: 3 },
  });
  // In this machine's namespace: the test API server listens on 127.0.0.1 here. No bridges and no
  // trunk are configured, so the agent has nothing to create in this namespace.
  agent = await sb.start({}, { rootNetns: true });
});

afterAll(async () => {
  await sb?.destroy();
  await api?.destroy();
});

describe('the relay for the HBR container', () => {
  it("writes this node's VRF and Layer2Network objects, nodeSelectors applied, with the Node's labels", async () => {
    const r = await until('the intent file', async () => relayed());
    expect(r.names).toEqual(['Layer2Network/web', 'VRF/blue', 'VRF/red']);
    expect(r.node).toEqual({ name: NODE_NAME, labels: { rack: 'a' } });
  });

  it("follows the Node's labels and deleted objects", async () => {
    await customObjects(kc, NODES, Any).patch(
      NODE_NAME,
      { metadata: { labels: { rack: 'b' } } },
      { type: 'merge' },
    );
    await until('rack-b relayed', async () => (await relayed()).names.includes('Layer2Network/rack-b'));
    expect((await relayed()).names).toEqual(['Layer2Network/rack-b', 'Layer2Network/web', 'VRF/blue']);
    await customObjects(kc, gvr(LAYER2_NETWORK_RESOURCE), Any).delete('web');
    await until('web gone', async () => !(await relayed()).names.includes('Layer2Network/web'));
  });

  it("relays a BGPPeering with its Secret's password in a file of mode 0600, follows a rotation, never logs it", async () => {
    const SECRETS = { group: '', version: 'v1', plural: 'secrets' };
    const secret = (password: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'calico-bgp', namespace: 'fabrik-system' },
        data: { password: Buffer.from(password).toString('base64') },
      }) as KubeObject;
    await customObjects(kc, SECRETS, Any).create(secret('s3cret-one'));
    await customObjects(kc, gvr(BGP_PEERING_RESOURCE), Any).create(
      obj('BGPPeering', 'calico', {
        vrf: 'blue',
        address: '10.2.0.50',
        remoteAs: 64512,
        passwordSecretRef: { name: 'calico-bgp' },
      }),
    );
    const passwordFile = join(sb.dir, 'relay', 'bgp-passwords', 'calico');
    const peering = async () =>
      parseIntentDocuments(await readFile(intentFile, 'utf8'), {
        where: 'intent',
        nodeName: NODE_NAME,
      }).objects.find((o) => o.kind === 'BGPPeering');
    const relayedPeering = await until('the BGPPeering relayed', peering);
    expect(relayedPeering.spec).toEqual({ vrf: 'blue', address: '10.2.0.50', remoteAs: 64512, passwordFile });
    expect(await readFile(passwordFile, 'utf8')).toBe('s3cret-one');
    expect((await stat(passwordFile)).mode & 0o777).toBe(0o600);
    expect(await readFile(intentFile, 'utf8')).not.toContain('s3cret');

    await customObjects(kc, SECRETS, Any).patch(
      'calico-bgp',
      { data: { password: Buffer.from('s3cret-two').toString('base64') } },
      { type: 'merge', namespace: 'fabrik-system' },
    );
    await until('the rotated password', async () => (await readFile(passwordFile, 'utf8')) === 's3cret-two');
    // The intent file changes too (the revision annotation): agent-netns reconciles and reads it.
    await until(
      'a new revision',
      async () =>
        (await peering())?.metadata.annotations?.['network.fabrik.dev/relayed-password-revision'] !==
        relayedPeering.metadata.annotations?.['network.fabrik.dev/relayed-password-revision'],
    );

    await customObjects(kc, gvr(BGP_PEERING_RESOURCE), Any).delete('calico');
    await until('the password file removed', async () => !(await stat(passwordFile).catch(() => undefined)));
    expect(JSON.stringify(agent.logs)).not.toContain('s3cret');
  });

  it("publishes agent-netns's status file as the netns section and its Node condition, beside agent-host's own", async () => {
    const section = {
      configStatus: 'provisioned',
      appliedGenerations: { vrfs: { blue: 1 }, layer2Networks: { 'rack-b': 1 } },
      frr: { bgpSessionsUp: 2, bgpSessionsTotal: 2, vnis: 3 },
      lastUpdate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      conditions: [
        {
          type: 'FabrikNetnsReady',
          status: 'True',
          reason: 'Provisioned',
          message: 'all applied',
          lastTransitionTime: '2026-11-30T10:00:00Z',
        },
      ],
    };
    await writeFileAtomic(statusFile, JSON.stringify(section));
    const status = await until('the netns section', async () => (await nns()).status?.netns);
    expect(status).toMatchObject({
      configStatus: 'provisioned',
      appliedGenerations: section.appliedGenerations,
      frr: section.frr,
    });
    await until('FabrikNetnsReady on the Node', async () =>
      (await nodeConditions()).some((c) => c.type === 'FabrikNetnsReady' && c.status === 'True'),
    );
    const host = await until('the host section', async () => (await nns()).status?.host);
    expect(host).toMatchObject({
      configStatus: 'provisioned',
      ownedObjects: { ovsBridge: 0, ovsPort: 0, vlan: 0 },
    });
    await until('FabrikHostReady on the Node', async () =>
      (await nodeConditions()).some((c) => c.type === 'FabrikHostReady' && c.status === 'True'),
    );
    // A new status from agent-netns replaces the old one.
    await writeFileAtomic(
      statusFile,
      JSON.stringify({ ...section, configStatus: 'degraded', errorMessage: 'VRF red: spec.vni taken' }),
    );
    await until(
      'the new netns section',
      async () => (await nns()).status?.netns?.configStatus === 'degraded',
    );
    const events = await customObjects(kc, EVENTS, Any).list({ namespace: 'default' });
    expect(events.items.map((e) => (e as Loose & { reason?: string }).reason)).toContain('HostReady');
  });

  it('turns FabrikNetnsReady False within netnsMaxAgeSeconds when agent-netns stops writing its status', async () => {
    const t0 = Date.now();
    await until(
      'FabrikNetnsReady False on the Node',
      async () =>
        (await nodeConditions()).some(
          (c) =>
            c.type === 'FabrikNetnsReady' &&
            c.status === 'False' &&
            (c as { reason?: string }).reason === 'NotReporting',
        ),
      15_000,
    );
    // The last status (written by the previous test) was at most 3 s old then; a check runs every 0.75 s.
    expect(Date.now() - t0).toBeLessThan(6_000);
    const netns = (await nns()).status?.netns as { conditions?: { type: string; message?: string }[] };
    expect(netns.conditions?.find((c) => c.type === 'FabrikNetnsReady')?.message).toMatch(
      /^agent-netns has not reported for \d+ s/,
    );
    // A fresh status (agent-netns back) makes it ready again.
    const fresh = JSON.parse(await readFile(statusFile, 'utf8')) as Record<string, unknown>;
    await writeFileAtomic(
      statusFile,
      JSON.stringify({ ...fresh, lastUpdate: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }),
    );
    await until('FabrikNetnsReady True again', async () =>
      (await nodeConditions()).some((c) => c.type === 'FabrikNetnsReady' && c.status === 'True'),
    );
  });

  it('refuses a BGPPeering from the cluster that names a file of the node for that object only: the node stays ready', async () => {
    const peerings = customObjects(kc, gvr(BGP_PEERING_RESOURCE), Any);
    const tenant = obj('BGPPeering', 'tenant', {
      vrf: 'blue',
      address: '10.2.0.51',
      remoteAs: 64512,
      passwordFile: '/etc/shadow',
    });
    // The API server refuses such an object now (the CRD's rule on spec.passwordFile); one stored
    // before that rule is what the relay still meets: stored here with the rule lifted for a moment.
    await expect(peerings.create(tenant)).rejects.toThrow(/spec\.passwordFile/);
    await storedWithoutPasswordFileRule(() => peerings.create(tenant));
    const host = await until('the refusal in the host section', async () => {
      const section = (await nns()).status?.host as
        | { objectErrors?: { kind: string; name: string; field?: string }[]; conditions?: unknown[] }
        | undefined;
      return section?.objectErrors?.some((e) => e.name === 'tenant') ? section : undefined;
    });
    expect(host.objectErrors).toEqual([
      expect.objectContaining({ kind: 'BGPPeering', name: 'tenant', field: 'spec.passwordFile' }),
    ]);
    expect(host.conditions).toEqual([
      expect.objectContaining({ type: 'FabrikHostReady', status: 'True', reason: 'ObjectsSkipped' }),
    ]);
    expect(await nodeConditions()).toContainEqual(
      expect.objectContaining({ type: 'FabrikHostReady', status: 'True' }),
    );
    expect((await relayed()).names).toEqual(['Layer2Network/rack-b', 'VRF/blue']);
    await peerings.delete('tenant');
    await until(
      'the refusal gone',
      async () => ((await nns()).status?.host as { objectErrors?: unknown[] })?.objectErrors === undefined,
    );
  });

  it('serves readiness and its metrics', async () => {
    const serving = await agent.waitForLog((l) => l.msg === 'serving metrics and health', {
      what: 'the endpoints',
    });
    const [metricsAt, healthAt] = serving.addresses as string[];
    expect((await fetch(`http://${healthAt ?? metricsAt}/readyz`)).status).toBe(200);
    expect((await fetch(`http://${healthAt ?? metricsAt}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`http://${metricsAt}/metrics`)).text();
    expect(metrics).toMatch(/^fabrik_agent_host_reconciles_total\{result="success"\} [1-9]/m);
    expect(metrics).toMatch(/^fabrik_agent_host_owned_objects\{kind="ovsBridge"\} 0$/m);
  });

  it('leaves the last file in place when it stops', async () => {
    const before = await readFile(intentFile, 'utf8');
    expect(await agent.stop()).toBe(0);
    await customObjects(kc, gvr(VRF_RESOURCE), Any).delete('blue');
    await new Promise((r) => setTimeout(r, 500));
    expect(await readFile(intentFile, 'utf8')).toBe(before);
  });
});

/** Runs `create` while the BGPPeering CRD lacks its rule refusing spec.passwordFile (an object stored before it). */
async function storedWithoutPasswordFileRule(create: () => Promise<unknown>): Promise<void> {
  const crd = 'bgppeerings.network.fabrik.dev';
  const rules = '/spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations';
  const current = JSON.parse(await api.kubectl('get', 'crd', crd, '-o', 'json')) as {
    spec: {
      versions: {
        schema: {
          openAPIV3Schema: { properties: { spec: { 'x-kubernetes-validations': { rule: string }[] } } };
        };
      }[];
    };
  };
  const validations =
    current.spec.versions[0]!.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];
  const lifted = validations.filter((v) => v.rule !== '!has(self.passwordFile)');
  const patch = (value: unknown) =>
    api.kubectl(
      'patch',
      'crd',
      crd,
      '--type=json',
      '-p',
      JSON.stringify([{ op: 'replace', path: rules, value }]),
    );
  await patch(lifted);
  try {
    await until('the rule lifted', () =>
      create().then(
        () => true,
        () => false,
      ),
    );
  } finally {
    await patch(validations);
  }
}
