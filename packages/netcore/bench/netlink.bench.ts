// Netlink benchmark (run inside the lab: `npm run bench:netlink`).
//
// End state: a trunk, 50 VRFs (vrf + bridge + L3 vxlan) and 200 L2 networks (bridge + vxlan +
// tr.<vid> + anycast gateway address), as the HBR agent builds them.
//  - floor: the same end state written by hand as one `ip -batch -` input, applied in a fresh netns
//  - cold:  createNetlink().reconcile(desired) in another fresh netns (observe + plan + one
//           rtnetlink request per operation on one socket + verifying re-observe)
//  - no-op: reconcile of the applied state again (must be one observe and an empty plan)
// Prints ratios against the floor measured in this run; no timed assertions.
// Last line: RESULT netlink cold_ratio=<x> noop_ms=<y> links=<n>
import { randomBytes } from 'node:crypto';
import { netnsAdd, netnsDel, runCommand } from '../src/index.js';
import {
  createNetlink,
  observeScopeOf,
  ownershipMark,
  type DesiredLink,
  type DesiredState,
} from '../src/netlink/index.js';

const L2_NETWORKS = Number(process.env['BENCH_L2'] ?? 200);
const VRFS = Number(process.env['BENCH_VRFS'] ?? 50);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const OWNER = 'bench';
const VTEP = '10.255.0.1';

function desiredState(): DesiredState {
  const links: DesiredLink[] = [{ kind: 'dummy', name: 'tr', up: true }];
  for (let i = 0; i < VRFS; i++) {
    links.push(
      { kind: 'vrf', name: `vrf${i}`, table: 1000 + i, up: true },
      { kind: 'bridge', name: `br-l3-${i}`, master: `vrf${i}`, up: true },
      {
        kind: 'vxlan',
        name: `vx-l3-${i}`,
        vni: 50_000 + i,
        local: VTEP,
        dstport: 4789,
        learning: false,
        master: `br-l3-${i}`,
        up: true,
        port: { learning: false, neighSuppress: true },
      },
    );
  }
  for (let j = 0; j < L2_NETWORKS; j++) {
    const vid = 100 + j;
    links.push(
      {
        kind: 'bridge',
        name: `br${vid}`,
        mtu: 1450,
        master: `vrf${j % VRFS}`,
        up: true,
        addresses: [{ address: `10.${100 + Math.floor(j / 250)}.${j % 250}.1/24` }],
      },
      {
        kind: 'vxlan',
        name: `vx${vid}`,
        vni: vid,
        local: VTEP,
        dstport: 4789,
        learning: false,
        mtu: 1450,
        master: `br${vid}`,
        up: true,
        port: { learning: false, neighSuppress: true },
      },
      { kind: 'vlan', name: `tr.${vid}`, parent: 'tr', id: vid, mtu: 1450, master: `br${vid}`, up: true },
    );
  }
  return { owner: OWNER, links };
}

/**
 * The same end state written by hand with the same care: per link `link add` (with mtu), one
 * `link set` for the mark and master (the kernel ignores an alias given to `link add`), port
 * flags, addresses; enslaved links are brought up at the end (the kernel applies `up` before
 * `master` within one message, so `master M up` would bring a port up before enslaving it).
 */
function floorBatch(state: DesiredState): string {
  const mark = ownershipMark(OWNER);
  const lines: string[] = [];
  for (const l of state.links) {
    // A bridge's mtu is set with `link set` (sticky), the others' at creation.
    const mtu = l.mtu === undefined || l.kind === 'bridge' ? '' : ` mtu ${l.mtu}`;
    const bridgeMtu = l.kind === 'bridge' && l.mtu !== undefined ? ` mtu ${l.mtu}` : '';
    switch (l.kind) {
      case 'dummy':
        lines.push(`link add name ${l.name}${mtu} type dummy`);
        break;
      case 'vrf':
        lines.push(`link add name ${l.name}${mtu} type vrf table ${l.table}`);
        break;
      case 'bridge':
        lines.push(`link add name ${l.name}${mtu} type bridge`);
        break;
      case 'vxlan':
        lines.push(
          `link add name ${l.name}${mtu} type vxlan id ${l.vni} local ${l.local} dstport ${l.dstport} nolearning`,
        );
        break;
      case 'vlan':
        lines.push(`link add link ${l.parent} name ${l.name}${mtu} type vlan id ${l.id}`);
        break;
      default:
        throw new Error(`floor: unexpected kind ${l.kind}`);
    }
    lines.push(
      `link set dev ${l.name} alias ${mark}${bridgeMtu}${l.master ? ` master ${l.master}` : l.up ? ' up' : ''}`,
    );
    if (l.port) lines.push(`link set dev ${l.name} type bridge_slave learning off neigh_suppress on`);
    for (const a of l.addresses ?? []) lines.push(`addr add ${a.address} dev ${l.name}`);
  }
  for (const l of state.links) if (l.master && l.up) lines.push(`link set dev ${l.name} up`);
  return `${lines.join('\n')}\n`;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};
const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;
const nsName = (what: string): string => `bench-${what}-${randomBytes(3).toString('hex')}`;

async function main(): Promise<void> {
  const state = desiredState();
  const floorText = floorBatch(state);
  const namespaces: string[] = [];
  const floors: number[] = [];
  const colds: number[] = [];
  const noops: number[] = [];
  const observes: number[] = [];
  let opsCold = 0;
  let links = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const floorNs = nsName('floor');
      const coldNs = nsName('cold');
      namespaces.push(floorNs, coldNs);
      await netnsAdd(floorNs);
      await netnsAdd(coldNs);

      // Alternate which one runs first: the kernel's work (and UML's) drifts during a run.
      const nl = createNetlink({ netns: coldNs });
      const runFloor = async (): Promise<void> => {
        const t = process.hrtime.bigint();
        // Fed on stdin like apply's batch, so that both pay the same for the input.
        await runCommand('ip', ['-n', floorNs, '-batch', '-'], { input: floorText });
        floors.push(ms(t));
      };
      const runCold = async (): Promise<void> => {
        const t = process.hrtime.bigint();
        const cold = await nl.reconcile(state);
        colds.push(ms(t));
        opsCold = cold.plan.ops.length;
      };
      if (round % 2 === 0) {
        await runFloor();
        await runCold();
      } else {
        await runCold();
        await runFloor();
      }

      let t0 = process.hrtime.bigint();
      t0 = process.hrtime.bigint();
      const noop = await nl.reconcile(state);
      noops.push(ms(t0));
      if (noop.plan.ops.length !== 0)
        throw new Error(`no-op reconcile planned ${noop.plan.ops.length} operations`);

      t0 = process.hrtime.bigint();
      const observed = await nl.observe(observeScopeOf(state));
      observes.push(ms(t0));
      links = observed.links.filter((l) => l.alias?.startsWith(ownershipMark(OWNER))).length;

      // The floor namespace must hold the same links (same kinds, masters, up state).
      const floorLinks = await createNetlink({ netns: floorNs }).linkList();
      const summary = (ls: readonly (typeof floorLinks)[number][]): string =>
        ls
          .filter((l) => l.spec.name !== 'lo')
          .map((l) => `${l.spec.name}:${l.spec.kind}:${l.spec.master}:${l.spec.up}:${l.spec.mtu}:${l.alias}`)
          .sort()
          .join(',');
      if (summary(floorLinks) !== summary(observed.links))
        throw new Error('the floor batch and the reconcile produced different links');

      process.stdout.write(
        `round ${round + 1}: floor ${floors.at(-1)?.toFixed(0)} ms (${floorText.split('\n').length - 1} lines), cold reconcile ${colds.at(-1)?.toFixed(0)} ms (${opsCold} ops), no-op ${noops.at(-1)?.toFixed(0)} ms, observe ${observes.at(-1)?.toFixed(0)} ms\n`,
      );
    }
  } finally {
    // Deleted only at the end: tearing down 750 links runs in the background and would slow the next round.
    for (const ns of namespaces) await netnsDel(ns).catch(() => {});
  }
  // Other work on the machine makes single runs inside UML noisy: each round pairs a floor and a
  // cold run back to back, and the result is the median of the per-round ratios.
  const floor = median(floors);
  const cold = median(colds);
  const noopMs = median(noops);
  const observeMs = median(observes);
  const ratio = median(colds.map((c, i) => c / (floors[i] ?? NaN)));
  process.stdout.write(
    `median of ${ROUNDS}: floor ${floor.toFixed(0)} ms, cold ${cold.toFixed(0)} ms, no-op ${noopMs.toFixed(0)} ms = ${(noopMs / observeMs).toFixed(2)} x one observe (${observeMs.toFixed(0)} ms)\n`,
  );
  process.stdout.write(
    `RESULT netlink cold_ratio=${ratio.toFixed(2)} noop_ms=${noopMs.toFixed(0)} links=${links}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
