import { hostname } from 'node:os';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrrIntentInput } from './intent.js';
import { reloadFrr } from './runtime/reload.js';
import { renderFrrConfig } from './render.js';

// The fabric loop guard with three real routers, one netns each:
//
//   leaf A (AS 65001, announces 10.1.0.0/24) --- node (AS 65000, fabrik) --- leaf B (AS 65002)
//
// Without the guard the node passes leaf A's routes on to leaf B (a transit path between
// leaves); with it, leaf B learns only what the node originates (its VTEP).
const LEAF_A_ROUTE = '10.1.0.0/24';
const VTEP = '10.0.0.5/32';

const leafConfig = (asn: number, routerId: string, peer: string, network?: string) =>
  [
    'frr defaults datacenter',
    `hostname ${hostname()}`,
    '!',
    `router bgp ${asn}`,
    ` bgp router-id ${routerId}`,
    ' no bgp default ipv4-unicast',
    ' no bgp network import-check',
    ` neighbor ${peer} remote-as external`,
    ' !',
    ' address-family ipv4 unicast',
    ...(network ? [`  network ${network}`] : []),
    `  neighbor ${peer} activate`,
    ' exit-address-family',
    'exit',
    '!',
    '',
  ].join('\n');

const nodeIntent = (guard: boolean): FrrIntentInput => ({
  asn: 65000,
  routerId: '10.0.0.5',
  vtepIp: '10.0.0.5',
  fabricLoopGuard: { enabled: guard },
  underlay: {
    neighbors: [
      { address: '10.0.1.1', remoteAs: 'external' },
      { address: '10.0.2.1', remoteAs: 'external' },
    ],
  },
});

let leafA: TempNetns, node: TempNetns, leafB: TempNetns;
const daemons: FrrInstance[] = [];
let nodeFrr: FrrInstance, leafBFrr: FrrInstance;

/** The prefixes of `show bgp ipv4 unicast json` (or of another command with the same shape). */
async function prefixes(frr: FrrInstance, command = 'show bgp ipv4 unicast json'): Promise<string[]> {
  const text = await frr.vtysh(command);
  const json = JSON.parse(text.trim() === '' ? '{}' : text) as {
    routes?: Record<string, unknown>;
    advertisedRoutes?: Record<string, unknown>;
  };
  return Object.keys(json.routes ?? json.advertisedRoutes ?? {}).sort();
}

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  leafA = await createTempNetns('fabrik-lga-');
  node = await createTempNetns('fabrik-lgn-');
  leafB = await createTempNetns('fabrik-lgb-');
  for (const [left, right, l, r, net] of [
    [leafA, node, 'a0', 'n1', '10.0.1'],
    [node, leafB, 'n2', 'b0', '10.0.2'],
  ] as const) {
    await left.ip('link', 'add', l, 'type', 'veth', 'peer', 'name', r, 'netns', right.name);
    const leftAddr = left === leafA ? `${net}.1/30` : `${net}.2/30`;
    const rightAddr = right === leafB ? `${net}.1/30` : `${net}.2/30`;
    await left.ip('addr', 'add', leftAddr, 'dev', l);
    await right.ip('addr', 'add', rightAddr, 'dev', r);
    await left.ip('link', 'set', l, 'up');
    await right.ip('link', 'set', r, 'up');
  }
  daemons.push(
    await startFrr({ netns: leafA.name, config: leafConfig(65001, '10.0.1.1', '10.0.1.2', LEAF_A_ROUTE) }),
  );
  leafBFrr = await startFrr({ netns: leafB.name, config: leafConfig(65002, '10.0.2.1', '10.0.2.2') });
  daemons.push(leafBFrr);
  // The VTEP address is the node's own (a loopback address in real life): BGP announces only
  // networks that are in the routing table.
  await node.ip('addr', 'add', VTEP, 'dev', 'lo');
  nodeFrr = await startFrr({
    netns: node.name,
    config: `frr defaults datacenter\nhostname ${hostname()}\n!\n`,
  });
  daemons.push(nodeFrr);
});

afterAll(async () => {
  for (const d of daemons) await d.stop();
  for (const ns of [leafA, node, leafB]) await ns?.destroy();
});

describe('fabric loop guard (three routers)', () => {
  const apply = (guard: boolean) =>
    reloadFrr({
      pathspace: node.name,
      netns: node.name,
      config: renderFrrConfig(nodeIntent(guard), { hostname: hostname() }),
    });
  const advertisedToLeafB = () =>
    prefixes(nodeFrr, 'show bgp ipv4 unicast neighbors 10.0.2.1 advertised-routes json');

  it("keeps leaf A's routes away from leaf B; the node still announces its VTEP", async () => {
    await apply(true);
    await waitFor("the node to learn leaf A's route", async () =>
      (await prefixes(nodeFrr)).includes(LEAF_A_ROUTE),
    );
    await waitFor("leaf B to learn the node's VTEP", async () => (await prefixes(leafBFrr)).includes(VTEP));
    // The route reached the node tagged with the guard's community...
    const route = JSON.parse(await nodeFrr.vtysh(`show bgp ipv4 unicast ${LEAF_A_ROUTE} json`)) as {
      paths?: { community?: { string?: string } }[];
    };
    expect(route.paths?.[0]?.community?.string).toContain('65169:200');
    // ...and the node sends leaf B its VTEP only; leaf B's table has no path through the node to leaf A.
    expect(await advertisedToLeafB()).toEqual([VTEP]);
    expect(await prefixes(leafBFrr)).toEqual([VTEP]);
  });

  it('without the guard the node is a transit path (the check above can fail)', async () => {
    await apply(false);
    await waitFor("leaf B to learn leaf A's route through the node", async () =>
      (await prefixes(leafBFrr)).includes(LEAF_A_ROUTE),
    );
    expect(await advertisedToLeafB()).toEqual([VTEP, LEAF_A_ROUTE].sort());
  });
});
