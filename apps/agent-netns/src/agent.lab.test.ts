import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IntentObject } from '@fabrik/agent-runtime';
import { runCommand } from '@fabrik/netcore';
import {
  addPod,
  agentIdle,
  agentCommand,
  deletePod,
  dumpAgentLogs,
  layer2,
  ownedLinks,
  pings,
  readStatus,
  setIntent,
  startAgent,
  startLabNodes,
  until,
  vrf,
  waitApplied,
  type LabNode,
  type LabNodes,
} from '../test/lab-nodes.js';

// agent-netns as a daemon, from files (the default deployment: agent-host relays this node's
// objects into a file), on two nodes of the lab kernel with real FRR. Node a starts from the HBR
// container's layout (VRF hbr with hbn in it), node b from an empty namespace. One setup for the
// whole file; each test builds on the state the previous one left.

const P = 'agl-';
const FAIL_RELOAD_DIR = fileURLToPath(new URL('../test/fail-reload', import.meta.url));
const pods: string[] = [];
let lab: LabNodes;
let a: LabNode;
let b: LabNode;
let intent: IntentObject[] = [];

/** Sets the intent of both nodes and waits until both status files say it is applied. */
async function applyEverywhere(objects: IntentObject[]): Promise<void> {
  intent = objects;
  for (const n of [a, b]) await setIntent(n, objects);
  for (const n of [a, b]) await waitApplied(n, objects);
}

const pod = async (node: LabNode, name: string, vlan: number, address: string, gateway?: string) => {
  pods.push(`${P}${name}`);
  await addPod(node, `${P}${name}`, vlan, address, gateway);
  return `${P}${name}`;
};

const running = (node: LabNode) => node.frr.runningConfig();

const hbrL2 = layer2('l2-hbr', 1, { vni: 2200, vlan: 200 });
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

beforeAll(async () => {
  lab = await startLabNodes({ prefix: P, givenHbr: ['a'] });
  [a, b] = lab.nodes as [LabNode, LabNode];
}, 300_000);
afterEach(({ task }) => {
  if (task.result?.state === 'fail') dumpAgentLogs(lab.nodes);
});
afterAll(async () => {
  for (const p of pods) await deletePod(p);
  await lab?.destroy();
});

// Each test waits for both nodes to converge; frr-reload.py alone takes seconds inside UML.
describe('agent-netns from files, two nodes', { timeout: 600_000 }, () => {
  it('starts from the HBR container layout (given hbr) and from an empty netns; Layer2 EVPN across the nodes', async () => {
    await setIntent(a, [hbrL2]);
    await setIntent(b, [hbrL2]);
    startAgent(a);
    startAgent(b);
    await a.agent!.waitUntilReady(240_000);
    await b.agent!.waitUntilReady(240_000);
    intent = [hbrL2];
    for (const n of [a, b]) await waitApplied(n, intent);

    // Node a: the given hbr VRF is used as found (its table, its hbn), never marked or changed.
    const aLinks = (await a.hbrNetlink.linkList()).filter((l) =>
      ['hbr', 'hbn', 'br2200'].includes(l.spec.name),
    );
    const byName = new Map(aLinks.map((l) => [l.spec.name, l]));
    expect(byName.get('hbr')).toMatchObject({ alias: undefined, spec: { kind: 'vrf', table: 10 } });
    expect(byName.get('hbn')?.spec.master).toBe('hbr');
    expect(byName.get('br2200')?.spec.master).toBe('hbr');
    expect((await ownedLinks(a)).has('hbr')).toBe(false);
    // Node b: hbr did not exist: the agent created it, and owns it.
    expect((await ownedLinks(b)).get('hbr')).toMatchObject({ kind: 'vrf', up: true });

    const pa = await pod(a, 'a200', 200, '10.200.0.1/24');
    await pod(b, 'b200', 200, '10.200.0.2/24');
    expect(await pings(pa, '10.200.0.2', 30)).toBe(true);
    expect(a.agent!.logs.some((l) => l.msg === 'reconciled' && typeof l.reconcile === 'number')).toBe(true);
  });

  it('symmetric IRB: two Layer2Networks in VRF red with anycast gateways; Pods in different subnets on different nodes reach each other', async () => {
    await applyEverywhere([hbrL2, red, net1, net2]);
    const l = await ownedLinks(a);
    expect(l.get('br2101')).toMatchObject({ master: 'red', up: true });
    const br = await a.hbrNetlink.linkGet('br2101');
    expect(br.spec.mac).toBe('02:fa:b0:00:01:01');
    expect(br.addresses?.map((x) => x.address)).toContain('10.1.0.1/24');
    expect((await a.hbrNetlink.linkGet('vx2101')).port?.neighSuppress).toBe(true);
    const p1 = await pod(a, 'a101', 101, '10.1.0.10/24', '10.1.0.1');
    await pod(b, 'b102', 102, '10.2.0.20/24', '10.2.0.1');
    expect(await pings(p1, '10.2.0.20', 30)).toBe(true);
    // Routed through the L3 VNI: node a learns b's host route in VRF red from b's EVPN MAC/IP route.
    // The first pings may have gone before it arrived, through a's own gateway on 10.2.0.0/24 and
    // VNI 2102 (node b learns the Pod's address from its traffic, then advertises it).
    const hostRoute = /10\.2\.0\.20 .*dev br1001|10\.2\.0\.20 via .* dev br1001/;
    const redTable = async () =>
      (await runCommand('ip', ['-n', a.hbr, 'route', 'show', 'vrf', 'red'])).stdout;
    await until(
      'the host route to 10.2.0.20 over the L3 VNI',
      async () => hostRoute.test(await redTable()),
      60_000,
    ).catch(
      () => undefined, // the expectation below shows the table
    );
    expect(await redTable()).toMatch(hostRoute);
  });

  it('route leaking between red and blue carries only the prefixes the VRF objects allow', async () => {
    const blue = vrf('blue', 1, { vni: 1002, redistribute: { connected: true }, importVrfs: ['red'] });
    const red2 = vrf('red', 2, {
      vni: 1001,
      redistribute: { connected: true },
      importVrfs: ['blue'],
      import: [{ cidr: '10.3.0.0/24', action: 'permit' }],
    });
    const net3 = layer2('net3', 1, { vni: 2103, vlan: 103, vrf: 'blue', anycastGateways: ['10.3.0.1/24'] });
    const net4 = layer2('net4', 1, { vni: 2104, vlan: 104, vrf: 'blue', anycastGateways: ['10.4.0.1/24'] });
    await applyEverywhere([hbrL2, red2, net1, net2, blue, net3, net4]);
    const redTable = async () =>
      (await runCommand('ip', ['-n', a.hbr, 'route', 'show', 'vrf', 'red'])).stdout;
    await until('10.3.0.0/24 leaked into red', async () => (await redTable()).includes('10.3.0.0/24'));
    expect(await redTable()).not.toContain('10.4.0.0/24');
    const blueTable = (await runCommand('ip', ['-n', a.hbr, 'route', 'show', 'vrf', 'blue'])).stdout;
    expect(blueTable).toContain('10.1.0.0/24');
    const p1 = `${P}a101`;
    await pod(b, 'b103', 103, '10.3.0.30/24', '10.3.0.1');
    await pod(b, 'b104', 104, '10.4.0.40/24', '10.4.0.1');
    expect(await pings(p1, '10.3.0.30', 30)).toBe(true);
    expect(await pings(p1, '10.4.0.40', 3)).toBe(false);
  });

  it('deleting an object removes exactly its kernel objects and FRR lines', async () => {
    const before = { links: await ownedLinks(a), frr: await running(a) };
    const extra = layer2('extra', 1, { vni: 2300, vlan: 300, routeTarget: '65000:9300' });
    await applyEverywhere([...intent, extra]);
    const added = [...(await ownedLinks(a)).keys()].filter((n) => !before.links.has(n)).sort();
    expect(added).toEqual(['br2300', 'tr.300', 'vx2300']);
    expect(await running(a)).toContain('route-target import 65000:9300');
    await applyEverywhere(intent.filter((o) => o.metadata.name !== 'extra'));
    expect(await ownedLinks(a)).toEqual(before.links);
    expect(await running(a)).toBe(before.frr);
  });

  it('a bad object changes nothing and its status names the field', async () => {
    const before = { links: await ownedLinks(a), frr: await running(a) };
    const bad = layer2('bad', 1, { vni: 2400, vlan: 5000 });
    const clash = layer2('clash', 1, { vni: 2401, vlan: 101 });
    await setIntent(a, [...intent, bad, clash]);
    const status = await until('the refusal in status', async () => {
      const s = await readStatus(a);
      return s?.configStatus === 'degraded' ? s : undefined;
    });
    expect(status.objectErrors).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'bad', field: 'spec.vlan' }),
      expect.objectContaining({
        kind: 'Layer2Network',
        name: 'clash',
        field: 'spec.vlan',
        message: expect.stringContaining('VLAN 101'),
      }),
    ]);
    expect(status.conditions?.[0]).toMatchObject({
      type: 'FabrikNetnsReady',
      status: 'True',
      reason: 'Degraded',
    });
    expect(await ownedLinks(a)).toEqual(before.links);
    expect(await running(a)).toBe(before.frr);
    await setIntent(a, intent);
    await until('provisioned again', async () => (await readStatus(a))?.configStatus === 'provisioned');
  });

  it('a link deleted or set down by hand is repaired (the time is logged)', async () => {
    // Each measured from an idle agent (the follow-up reconciles of the previous repair, and its
    // FRR read, have ended).
    const idle = () => agentIdle(a);
    await idle();
    const t0 = performance.now();
    await runCommand('ip', ['-n', a.hbr, 'link', 'del', 'tr.101']);
    await until('tr.101 back', async () => (await ownedLinks(a)).get('tr.101')?.up === true, 120_000);
    const deleted = Math.round(performance.now() - t0);
    await idle();
    const t1 = performance.now();
    await runCommand('ip', ['-n', a.hbr, 'link', 'set', 'vx2101', 'down']);
    await until('vx2101 up again', async () => (await ownedLinks(a)).get('vx2101')?.up === true, 120_000);
    const down = Math.round(performance.now() - t1);
    console.log(`drift repair: tr.101 deleted -> back in ${deleted} ms; vx2101 set down -> up in ${down} ms`);
    for (const l of a.agent!.logs.filter((x) => /tr\.101|vx2101/.test(String(x.trigger))))
      console.log(JSON.stringify(l));
    expect((await ownedLinks(a)).get('tr.101')).toMatchObject({ master: 'br2101' });
    expect(await pings(`${P}a101`, '10.2.0.20', 30)).toBe(true);
  });

  it('FRR changed by hand is put back by the next reconcile, also one that a link drift starts', async () => {
    // A drift reconcile repairs links before it reads FRR (FRR runs what the agent applied last,
    // unless changed by hand): the read that follows must still find the hand change.
    // From an idle agent: a reconcile still running (of the previous test's repairs) may have read
    // FRR before the hand change and repair the link after it, leaving nothing to reconcile.
    await agentIdle(a);
    const frrBefore = await running(a);
    await a.frr.vtysh('configure terminal', 'ip prefix-list FABRIK-BY-HAND seq 5 permit 10.99.0.0/16');
    expect(await running(a)).toContain('FABRIK-BY-HAND');
    await runCommand('ip', ['-n', a.hbr, 'link', 'set', 'vx2101', 'down']);
    await until('vx2101 up again', async () => (await ownedLinks(a)).get('vx2101')?.up === true, 120_000);
    await until('the hand change undone', async () => (await running(a)) === frrBefore, 180_000);
    await until('provisioned', async () => (await readStatus(a))?.configStatus === 'provisioned');
  });

  it('a failing FRR reload fails only the object it adds: FRR and the kernel keep the rest', async () => {
    // FRR refuses part of a configuration: the reload applies it, then fails (a `python3` and a
    // `vtysh` first on the agent's PATH report a failure after the real frr-reload.py --reload or
    // vtysh -f of any file holding "vrf green": adding green only adds lines, so vtysh -f applies it).
    expect(await a.agent!.stop()).toBe(0);
    startAgent(a, {
      PATH: `${FAIL_RELOAD_DIR}:${process.env.PATH}`,
      FABRIK_TEST_FAIL_RELOAD_IF: 'vrf green',
    });
    await a.agent!.waitUntilReady(240_000);
    const before = { links: await ownedLinks(a), frr: await running(a) };
    await setIntent(a, [...intent, vrf('green', 1, { vni: 1003 })]);
    const status = await until('the failure in status', async () => {
      const s = await readStatus(a);
      return s?.configStatus === 'degraded' ? s : undefined;
    });
    // The only change, VRF green, failed on its own: reported against it, the node stays ready.
    expect(status.objectErrors).toEqual([
      { kind: 'VRF', name: 'green', message: expect.stringContaining('injected failure') },
    ]);
    expect(status.conditions?.[0]).toMatchObject({
      type: 'FabrikNetnsReady',
      status: 'True',
      reason: 'Degraded',
    });
    expect((await a.agent!.probe('/readyz')).status).toBe(200);
    expect(await running(a)).toBe(before.frr);
    expect(await ownedLinks(a)).toEqual(before.links); // green's devices, created before the reload, are gone again
    // The same input fails the same way: nothing is retried until the next change (or resync).
    await setIntent(a, intent);
    await until('provisioned again', async () => (await readStatus(a))?.configStatus === 'provisioned');
    await a.agent!.waitUntilReady(240_000);
  });

  it('SIGTERM stops the agent and leaves the data plane up; a restart changes nothing', async () => {
    const before = { links: await ownedLinks(a), frr: await running(a) };
    const code = await a.agent!.stop();
    expect(code).toBe(0);
    expect(a.agent!.stderr()).toBe('');
    expect(await ownedLinks(a)).toEqual(before.links);
    expect(await pings(`${P}a101`, '10.2.0.20', 10)).toBe(true);

    const plan = await agentCommand(a, 'plan');
    expect(plan).toMatchObject({ code: 0 });
    expect(plan.stdout).toContain('# netlink: 0 operation(s)');
    await runCommand('ip', ['-n', a.hbr, 'link', 'del', 'tr.102']);
    const drift = await agentCommand(a, 'plan');
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('ip link add link tr name tr.102');
    const render = await agentCommand(a, 'render');
    expect(render.code).toBe(0);
    expect(render.stdout).toContain('vni 1001');

    const agent = startAgent(a);
    await agent.waitUntilReady(240_000);
    // The last good state, applied before the source answers, brings tr.102 back; FRR is unchanged.
    const first = await agent.waitForLog((l) => l.msg === 'reconciled');
    expect(first).toMatchObject({ frrAdded: 0, frrRemoved: 0 });
    expect(await ownedLinks(a)).toEqual(before.links);
    expect(await running(a)).toBe(before.frr);
  });
});
