// Records the planner's golden inputs from REAL iproute2 dumps.
//
//   host kernel: node --conditions=@fabrik/source --import tsx packages/netcore/src/netlink/__fixtures__/record.ts host-l2
//   lab kernel:  node --conditions=@fabrik/source --import tsx tools/lab/src/cli.ts run -- \
//                  node --conditions=@fabrik/source --import tsx packages/netcore/src/netlink/__fixtures__/record.ts lab-hbr
//
// For each scenario: a throwaway netns with some foreign links, `<case>.desired.json`, the dumps
// before (`<case>.before.dumps.json`) and after applying it (`<case>.after.dumps.json`).
// Then `UPDATE_GOLDEN=1 npx vitest run --project unit packages/netcore/src/netlink` rewrites the goldens.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { netnsAdd, netnsDel, runCommand } from '../../index.js';
import { createNetlink, type DesiredState, type RawDumps } from '../index.js';
import { unfilteredScopeOf } from './scope.js';

interface Scenario {
  /** Raw `ip` commands creating links fabrik does not own. */
  readonly foreign: readonly (readonly string[])[];
  readonly desired: DesiredState;
}

const scenarios: Record<string, Scenario> = {
  'host-l2': {
    foreign: [
      ['link', 'add', 'br1000', 'mtu', '1300', 'type', 'bridge'],
      ['link', 'add', 'vx1000', 'type', 'vxlan', 'id', '1000', 'dstport', '4789'],
      ['link', 'set', 'vx1000', 'master', 'br1000'],
      ['link', 'add', 'br101', 'type', 'bridge'],
      ['link', 'set', 'br101', 'alias', 'fabrik:other'],
      ['route', 'add', 'blackhole', '10.99.0.0/24', 'table', '100'],
    ],
    desired: {
      owner: 'test',
      links: [
        { kind: 'bridge', name: 'br100', mtu: 1450, up: true, addresses: [{ address: '10.100.0.1/24' }, { address: 'fd00:100::1/64', nodad: true }], sysctls: { arpAccept: 1, addrGenMode: 'none' } },
        { kind: 'vxlan', name: 'vx100', vni: 100, local: '192.0.2.1', dstport: 4789, learning: false, mtu: 1450, master: 'br100', up: true, port: { learning: false, neighSuppress: true } },
        { kind: 'bridge', name: 'br200', up: true },
        { kind: 'veth', name: 'pod0', peer: { name: 'pod0p' }, master: 'br100', up: true, port: { hairpin: true } },
        { kind: 'macvlan', name: 'mv100', parent: 'br100', mode: 'bridge', up: true },
      ],
      routes: [
        { dst: '10.200.0.0/24', via: '10.100.0.254', table: 100 },
        { dst: '10.201.0.0/24', type: 'blackhole', table: 100 },
        { dst: 'default', type: 'blackhole', table: 100, family: 'inet6' },
      ],
      neighbours: [{ dev: 'br100', address: '10.100.0.7', lladdr: '02:00:00:00:01:07' }],
      fdb: [{ dev: 'vx100', mac: '00:00:00:00:00:00', dst: '192.0.2.2' }],
    },
  },
  'lab-hbr': {
    foreign: [
      ['link', 'add', 'eth9', 'type', 'dummy'],
      ['link', 'add', 'mgmt', 'type', 'vrf', 'table', '900'],
    ],
    desired: {
      owner: 'hbr',
      links: [
        { kind: 'dummy', name: 'tr', up: true },
        { kind: 'dummy', name: 'vtep', up: true, addresses: [{ address: '192.0.2.1/32' }] },
        { kind: 'vrf', name: 'red', table: 1001, up: true },
        { kind: 'vrf', name: 'blue', table: 1002, up: true },
        { kind: 'bridge', name: 'br-l3-red', master: 'red', up: true, sysctls: { addrGenMode: 'none' } },
        { kind: 'vxlan', name: 'vx-l3-red', vni: 5001, local: '192.0.2.1', dstport: 4789, learning: false, master: 'br-l3-red', up: true, port: { learning: false } },
        { kind: 'bridge', name: 'br100', mtu: 1450, master: 'red', up: true, addresses: [{ address: '10.100.0.1/24' }], sysctls: { arpAccept: 1, addrGenMode: 'none' } },
        { kind: 'vxlan', name: 'vx100', vni: 100, local: '192.0.2.1', dstport: 4789, learning: false, mtu: 1450, master: 'br100', up: true, port: { learning: false, neighSuppress: true } },
        { kind: 'vlan', name: 'tr.100', parent: 'tr', id: 100, mtu: 1450, master: 'br100', up: true },
      ],
      routes: [{ dst: 'default', type: 'unreachable', table: 1002, metric: 4278198272 }],
    },
  },
};

/** Dumps with JSON parsed, so that fixture files are readable and diffable. */
function readable(raw: RawDumps): Record<string, unknown> {
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, k === 'sysctl' ? v : JSON.parse((v as string) || '[]')]));
}

async function record(name: string): Promise<void> {
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
  const dir = dirname(fileURLToPath(import.meta.url));
  const ns = `fabrik-rec-${randomBytes(3).toString('hex')}`;
  await netnsAdd(ns);
  try {
    for (const cmd of scenario.foreign) await runCommand('ip', ['-n', ns, ...cmd]);
    const nl = createNetlink({ netns: ns });
    const scope = unfilteredScopeOf(scenario.desired);
    const before = await nl.dump(scope);
    await nl.reconcile(scenario.desired);
    const after = await nl.dump(scope);
    const write = (suffix: string, data: unknown): Promise<void> => writeFile(join(dir, `${name}.${suffix}`), `${JSON.stringify(data, null, 2)}\n`);
    await write('desired.json', scenario.desired);
    await write('before.dumps.json', readable(before));
    await write('after.dumps.json', readable(after));
    process.stdout.write(`recorded ${name}\n`);
  } finally {
    await netnsDel(ns);
  }
}

for (const name of process.argv.slice(2)) await record(name);
