import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { createTempNetns, startFrr, type FrrInstance, type TempNetns } from '@fabrik/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseFrrIntent, type FrrTemplateSet } from './intent.js';
import { reloadFrr } from './runtime/reload.js';
import { renderFrrConfig } from './render.js';

// The VRF fixtures of the golden tests, reloaded into real zebra, bgpd, staticd and bfdd with
// real VRF devices (lab kernel). reloadFrr checks that zebra maps every L3 VNI to its VRF; a
// second reload of the same text must change nothing (the rendered text is FRR's own form).
const fixture = async (name: string): Promise<unknown> =>
  parse(await readFile(new URL(`./__fixtures__/${name}.input.yaml`, import.meta.url), 'utf8'));

let ns: TempNetns;
let frr: FrrInstance;

beforeEach(async () => {
  ns = await createTempNetns('fabrik-frrv-');
  await ns.ip('link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'eth2');
  for (const [name, table] of [
    ['red', 1001],
    ['blue', 1002],
    ['green', 1003],
  ] as const) {
    await ns.ip('link', 'add', name, 'type', 'vrf', 'table', String(table));
    await ns.ip('link', 'set', name, 'up');
  }
  frr = await startFrr({
    netns: ns.name,
    config: `frr defaults datacenter\nhostname ${hostname()}\n!\n`,
    daemons: ['zebra', 'bgpd', 'staticd', 'bfdd'],
  });
});
afterEach(async () => {
  await frr?.stop();
  await ns?.destroy();
});

const cases: [string, FrrTemplateSet, string[]][] = [
  ['loop-guard', 'netns', ['  advertise ipv4 unicast route-map fabrik-red-export\n']],
  [
    'vrf-peers',
    'netns',
    [
      ' bgp listen range 10.20.0.0/24 peer-group fabrik-red-10.20.0.0-24\n',
      '  neighbor fd00:10::5 route-map fabrik-red-fd00:10::5-in in\n',
      '  redistribute kernel\n',
    ],
  ],
  [
    'ipv6',
    'netns',
    [
      ' ipv6 route fd00:20:1::/64 blue nexthop-vrf blue\n',
      '  advertise ipv6 unicast route-map fabrik-red-export\n',
    ],
  ],
  ['filters', 'netns', [' match source-vrf green\n', ' call fabrik-red-from-green\n']],
  ['filters', 'vrf-ibgp', [' match large-community fabrik-green-tag\n', ' call fabrik-red-from-green\n']],
  ['route-targets', 'netns', ['  route-target import 10.0.0.1:7\n']],
];

describe('VRF constructs against running daemons (lab kernel)', () => {
  it.each(cases)(
    '%s [%s]: applied, L3 VNIs mapped, the second reload changes nothing',
    async (name, mode, lines) => {
      const intent = parseFrrIntent(await fixture(name));
      const config = renderFrrConfig(intent, { mode, hostname: hostname() });
      const target = { pathspace: ns.name, netns: ns.name };
      expect((await reloadFrr({ ...target, config })).changed).toBe(true);
      const running = await frr.runningConfig();
      for (const line of lines) expect(running).toContain(line);
      expect(await reloadFrr({ ...target, config })).toMatchObject({
        changed: false,
        added: [],
        removed: [],
      });
    },
  );
});
