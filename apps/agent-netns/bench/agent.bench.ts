// agent-netns benchmark, inside the lab: `npm run bench:agent` (builds the agent first).
//
// One node (HBR netns with FRR, a trunk) holding 200 Layer2Networks and 50 VRFs, agent-netns running
// from a file source as in the HBR container. Then one Layer2Network is added and removed again, 10
// times; each change is timed from the file write until the agent's status file says it is applied
// (the kernel verified by netcore's re-observe, FRR checked against its running configuration).
//  - floor, same run, same node, agent stopped: the netlink operations of the same change (the
//    lines of netcore's plan) as one `ip -batch`, plus one `frr-reload.py --reload` of the same
//    FRR configuration, which is what a script without fabrik would run;
//  - idle CPU: the agent's user + system time over 10 s with nothing to do.
// No timed assertions. Last line: RESULT agent change_ms=<p50> change_ratio=<x> idle_cpu_pct=<y>
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand, runInNetns } from '@fabrik/netcore';
import { formatPlan, plan } from '@fabrik/netcore/netlink';
import type { IntentObject } from '@fabrik/agent-runtime';
import { nodeDesiredState, nodeFrrConfig, observeNode } from '../src/apply.js';
import { desiredNode } from '../src/desired.js';
import { hbrNodeOf, loadNetnsConfig, OWNER } from '../src/setup.js';
import {
  layer2,
  readStatus,
  setIntent,
  startAgent,
  startLabNodes,
  vrf,
  waitApplied,
  type LabNode,
} from '../test/lab-nodes.js';

const VRFS = Number(process.env.BENCH_VRFS ?? 50);
const L2_NETWORKS = Number(process.env.BENCH_L2 ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const IDLE_SECONDS = 10;

const p50 = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const ms = (t0: number) => performance.now() - t0;

const base: IntentObject[] = [
  ...Array.from({ length: VRFS }, (_, i) =>
    vrf(`v${i}`, 1, { vni: 10_000 + i, redistribute: { connected: true } }),
  ),
  ...Array.from({ length: L2_NETWORKS }, (_, j) =>
    layer2(`n${j}`, 1, {
      vni: 20_000 + j,
      vlan: 100 + j,
      vrf: `v${j % VRFS}`,
      anycastGateways: [`10.${100 + Math.floor(j / 250)}.${j % 250}.1/24`],
    }),
  ),
];
const extra = (generation: number) => layer2('bench-extra', generation, { vni: 30_000, vlan: 400 });

/** CPU seconds (user + system) the process has used, from /proc/PID/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return ticks / 100; // USER_HZ
}

async function main(): Promise<void> {
  const lab = await startLabNodes({ prefix: 'agb-', single: true });
  const node = lab.nodes[0] as LabNode;
  try {
    await setIntent(node, base);
    const t0 = performance.now();
    const agent = startAgent(node);
    await waitApplied(node, base, 1_800_000);
    console.log(
      `initial apply: ${VRFS} VRFs + ${L2_NETWORKS} Layer2Networks in ${Math.round(ms(t0))} ms (agent start included)`,
    );

    // Idle: nothing changes; the agent waits for events (and its resync timer).
    await new Promise((r) => setTimeout(r, 2000));
    const cpu0 = await cpuSeconds(agent.pid);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idlePct = (((await cpuSeconds(agent.pid)) - cpu0) / IDLE_SECONDS) * 100;

    const changes: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const objects of [[...base, extra(round)], base]) {
        const t = performance.now();
        await setIntent(node, objects);
        await waitApplied(node, objects, 600_000);
        changes.push(ms(t));
      }
    }
    const lines = agent.logs
      .filter((l) => typeof l.reconcile === 'number')
      .slice(-4)
      .map((l) => JSON.stringify(l));
    console.log(`last reconciles:\n${lines.join('\n')}`);
    await agent.stop();

    // The floor: the same changes without the agent.
    const config = await loadNetnsConfig(node.configFile);
    const hbr = hbrNodeOf(config);
    const intentOf = (objects: IntentObject[]) => desiredNode(config, { objects, problems: [] }).intent;
    const frrFile = join(node.dir, 'floor-frr.conf');
    const floor: number[] = [];
    let current = base;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const objects of [[...base, extra(round)], base]) {
        const intent = intentOf(objects);
        const observed = await observeNode(hbr, intent);
        const ops = formatPlan(plan(nodeDesiredState(hbr, intent, observed), observed));
        await writeFile(frrFile, nodeFrrConfig(hbr, intent));
        const t = performance.now();
        const ipLines = ops.filter((l) => l.startsWith('ip ')).map((l) => l.slice(3));
        if (ipLines.length)
          await runCommand('ip', ['-n', node.hbr, '-batch', '-'], { input: `${ipLines.join('\n')}\n` });
        const bridgeLines = ops.filter((l) => l.startsWith('bridge ')).map((l) => l.slice(7));
        if (bridgeLines.length)
          await runCommand('bridge', ['-n', node.hbr, '-batch', '-'], {
            input: `${bridgeLines.join('\n')}\n`,
          });
        await runInNetns(
          node.hbr,
          'python3',
          ['/usr/lib/frr/frr-reload.py', '-N', node.hbr, '--reload', '--stdout', frrFile],
          { timeoutMs: 600_000 },
        );
        floor.push(ms(t));
        current = objects;
      }
    }
    // The floor's changes left the node as the agent left it: its plan is empty again.
    const last = intentOf(current);
    const now = await observeNode(hbr, last);
    const leftover = formatPlan(plan(nodeDesiredState(hbr, last, now), now));
    if (leftover.length > 0) throw new Error(`the floor did not converge: ${leftover.join('; ')}`);
    const status = await readStatus(node);

    const change = p50(changes);
    const floorMs = p50(floor);
    console.log(`changes (ms): ${changes.map(Math.round).join(' ')}`);
    console.log(`floor (ms):   ${floor.map(Math.round).join(' ')}`);
    console.log(`owned: ${JSON.stringify(status?.ownedObjects)}; owner mark fabrik:${OWNER}`);
    console.log(
      `RESULT agent change_ms=${Math.round(change)} change_ratio=${(change / floorMs).toFixed(2)} idle_cpu_pct=${idlePct.toFixed(2)}`,
    );
  } finally {
    await lab.destroy();
  }
}

await main();
