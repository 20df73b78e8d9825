import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '@fabrik/netcore';
import {
  dumpAgentLogs,
  layer2,
  ownedLinks,
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

// Every object is applied, refused or failed on its own (issue 32), on one lab node with real
// FRR: an object the kernel refuses (a Layer2Network with an MTU above the trunk's 1500) beside
// good ones, an object with a field of a newer API version, an object edited into an invalid
// state. Each test builds on the state the previous one left.

const P = 'apo-';
let lab: LabNodes;
let a: LabNode;

const red = vrf('red', 1, { vni: 1001 });
const good = layer2('good', 1, { vni: 2100, vlan: 100, vrf: 'red' });

const mtuOf = async (link: string) =>
  Number(/ mtu (\d+)/.exec((await runCommand('ip', ['-n', a.hbr, 'link', 'show', link])).stdout)?.[1]);

/** The status once `errors` objects are reported (the agent has reconciled the last intent). */
const degradedWith = (errors: number) =>
  until(`${errors} object error(s) in status`, async () => {
    const s = await readStatus(a);
    return s?.configStatus === 'degraded' && s.objectErrors?.length === errors ? s : undefined;
  });

beforeAll(async () => {
  lab = await startLabNodes({ prefix: P, single: true });
  [a] = lab.nodes as [LabNode];
  await setIntent(a, [red, good]);
  await startAgent(a).waitUntilReady(240_000);
  await waitApplied(a, [red, good]);
}, 300_000);
afterEach(({ task }) => {
  if (task.result?.state === 'fail') dumpAgentLogs(lab.nodes);
});
afterAll(async () => {
  await lab?.destroy();
});

describe('agent-netns: per-object outcome', () => {
  it('an MTU-9000 Layer2Network above the trunk MTU fails alone: the good ones are applied, the node Degraded', async () => {
    const good2 = layer2('good2', 1, { vni: 2101, vlan: 101, vrf: 'red' });
    const jumbo = layer2('jumbo', 1, { vni: 2102, vlan: 102, mtu: 9000 });
    const goodJumbo = layer2('good', 2, { vni: 2100, vlan: 100, vrf: 'red', mtu: 9000 });
    await setIntent(a, [red, goodJumbo, good2, jumbo]);
    const status = await degradedWith(2);
    expect(status.objectErrors).toEqual([
      {
        kind: 'Layer2Network',
        name: 'good',
        message: expect.stringMatching(/^not applied on this node: .*\(keeps its last applied state\)$/s),
      },
      { kind: 'Layer2Network', name: 'jumbo', message: expect.stringMatching(/^not applied on this node: /) },
    ]);
    expect(status.objectErrors?.[1]?.message).not.toContain('keeps');
    expect(status.conditions?.[0]).toMatchObject({
      type: 'FabrikNetnsReady',
      status: 'True',
      reason: 'Degraded',
      message: expect.stringMatching(
        /^2 object\(s\) not applied as they are: Layer2Network good, Layer2Network jumbo/,
      ),
    });
    // good2 is applied, good keeps generation 1 (MTU 1500), jumbo left nothing behind.
    expect(status.appliedGenerations?.layer2Networks).toEqual({ good: 1, good2: 1 });
    const links = await ownedLinks(a);
    expect(links.get('tr.101')).toMatchObject({ master: 'br2101', up: true });
    expect(links.get('tr.100')).toMatchObject({ master: 'br2100', up: true });
    expect([...links.keys()].filter((n) => n.includes('2102') || n === 'tr.102')).toEqual([]);
    expect(await mtuOf('tr.100')).toBe(1500);
    expect((await a.agent!.probe('/readyz')).status).toBe(200);
  });

  it('a field of a newer API version is ignored and reported; the object is applied', async () => {
    const newer = layer2('newer', 1, { vni: 2103, vlan: 103, futureKnob: 'on' });
    await setIntent(a, [red, good, newer]);
    const status = await until('newer applied', async () => {
      const s = await readStatus(a);
      return s?.configStatus === 'provisioned' && s.appliedGenerations?.layer2Networks?.newer === 1
        ? s
        : undefined;
    });
    expect(status.objectWarnings).toEqual([
      expect.objectContaining({ kind: 'Layer2Network', name: 'newer', field: 'spec.futureKnob' }),
    ]);
    expect((await ownedLinks(a)).get('tr.103')).toMatchObject({ master: 'br2103', up: true });
  });

  it('an object edited into an invalid state keeps its last applied state until fixed', async () => {
    const invalid = layer2('newer', 2, { vni: 2103, vlan: 5000 });
    await setIntent(a, [red, good, invalid]);
    const status = await degradedWith(1);
    expect(status.objectErrors).toEqual([
      expect.objectContaining({
        name: 'newer',
        field: 'spec.vlan',
        message: expect.stringContaining('keeps its last applied state'),
      }),
    ]);
    expect(status.appliedGenerations?.layer2Networks).toEqual({ good: 1, newer: 1 });
    expect((await ownedLinks(a)).get('tr.103')).toMatchObject({ master: 'br2103', up: true });
    // Deleting it removes it.
    await setIntent(a, [red, good]);
    await waitApplied(a, [red, good]);
    expect((await ownedLinks(a)).has('tr.103')).toBe(false);
  });
});
