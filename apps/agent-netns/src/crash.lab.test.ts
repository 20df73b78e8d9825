import { readdir } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IntentObject } from '@fabrik/agent-runtime';
import { runCommand } from '@fabrik/netcore';
import type { AgentProcess } from '@fabrik/testkit';
import {
  agentCommand,
  layer2,
  ownedLinks,
  readStatus,
  setIntent,
  startAgent,
  startLabNodes,
  vrf,
  waitApplied,
  type LabNode,
  type LabNodes,
} from '../test/lab-nodes.js';

// kill -9 at random points of an apply, then restart: the agent converges and nothing is left
// behind (links, FRR lines, temporary files, processes). One node, a file source. The agent is
// killed with its process group, as a container runtime kills a container (frr-reload.py and
// vtysh die with it), at a random delay after the intent file changed, in [0, the time an apply
// of that change took in this run].

const TRIALS = 10;
/** An apply takes seconds on a quiet machine and about 40 s at a load average of 16. */
const APPLY_TIMEOUT_MS = 180_000;
const P = 'agc-';
let lab: LabNodes;
let a: LabNode;

/** Two intents the trials switch between: the second adds a VRF, L2 networks and FRR lines. */
const small = (g: number): IntentObject[] => [
  vrf('red', g, { vni: 1001, redistribute: { connected: true } }),
  layer2('net1', g, { vni: 2101, vlan: 101, vrf: 'red', anycastGateways: ['10.1.0.1/24'] }),
  layer2('l2-hbr', g, { vni: 2200, vlan: 200 }),
];
const large = (g: number): IntentObject[] => [
  ...small(g),
  vrf('blue', g, { vni: 1002, importVrfs: ['red'], redistribute: { connected: true } }),
  layer2('net3', g, { vni: 2103, vlan: 103, vrf: 'blue', anycastGateways: ['10.3.0.1/24'] }),
  layer2('extra', g, { vni: 2300, vlan: 300, routeTarget: '65000:9300' }),
];

/** What a converged node holds: its owned links (master, up) and FRR's running configuration. */
const snapshot = async () => ({
  links: Object.fromEntries([...(await ownedLinks(a))].sort(([x], [y]) => (x < y ? -1 : 1))),
  frr: await a.frr.runningConfig(),
});

/**
 * Files a killed process may leave behind: temporary files next to FRR's config and in the state
 * directory. frr.conf.sav is vtysh's own backup, which every `write memory` of a reload replaces.
 */
const strayFiles = async () => [
  ...(await readdir(a.frr.configDir)).filter((f) => !['frr.conf', 'frr.conf.sav', 'vtysh.conf'].includes(f)),
  ...(await readdir(a.stateDir)).filter((f) => f !== 'last-good.json'),
];

/**
 * Processes of this node's agents and the tools they run (frr-reload.py, vtysh, ip monitor,
 * flock) outside the running agent's process group: what a killed agent left running.
 */
const leftoverProcesses = async () =>
  (await runCommand('ps', ['-eo', 'pgid=,args='])).stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /fabrik-agent-netns|frr-reload\.py|vtysh|monitor|flock/.test(l))
    .filter((l) => l.includes(a.configFile) || l.includes(a.hbr))
    .filter((l) => !l.startsWith(`${a.agent!.pid} `));

/** Applies `intent` with the agent running and returns how long that took (file written -> status says applied). */
async function timedApply(intent: IntentObject[]): Promise<number> {
  const t0 = performance.now();
  await setIntent(a, intent);
  await waitApplied(a, intent, APPLY_TIMEOUT_MS);
  return performance.now() - t0;
}

/** The agent killed last, for the diagnosis. */
let killed: AgentProcess | undefined;

/** The log lines of the killed agent and of its successor, and `plan`'s output: what a failed trial is explained with. */
async function diagnosis(): Promise<string> {
  const tail = (agent: AgentProcess | undefined) =>
    (agent?.logs ?? []).slice(-20).map((l) => JSON.stringify(l));
  const plan = await agentCommand(a, 'plan').catch((e: unknown) => ({
    code: -1,
    stdout: '',
    stderr: String(e),
  }));
  return [
    "--- the killed agent's last log lines ---",
    ...tail(killed),
    "--- the running agent's last log lines ---",
    ...tail(a.agent),
    `--- its stderr ---\n${a.agent?.stderr() ?? ''}`,
    `--- plan (exit ${plan.code}) ---\n${plan.stdout}${plan.stderr}`,
    `--- its status ---\n${JSON.stringify(await readStatus(a), null, 1)}`,
  ].join('\n');
}

beforeAll(async () => {
  lab = await startLabNodes({ prefix: P, single: true });
  a = lab.nodes[0]!;
}, 300_000);
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') console.log(await diagnosis());
});
afterAll(() => lab?.destroy());

describe('agent-netns killed with SIGKILL in the middle of applies', { timeout: 1_500_000 }, () => {
  it(`converges after a restart with nothing leaked, in ${TRIALS} trials`, async () => {
    // The converged state of each intent, and how long a switch to it takes: the window to kill in.
    let generation = 1;
    startAgent(a);
    await timedApply(small(generation));
    const smallState = await snapshot();
    const toLargeMs = await timedApply(large(++generation));
    const largeState = await snapshot();
    const toSmallMs = await timedApply(small(++generation));
    expect(await snapshot()).toEqual(smallState);
    const want = { small: smallState, large: largeState };
    const window = { small: toSmallMs, large: toLargeMs };
    expect(Object.keys(want.large.links).length).toBeGreaterThan(Object.keys(want.small.links).length);

    const lines: string[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      const to = trial % 2 === 1 ? 'large' : 'small';
      const intent = (to === 'large' ? large : small)(++generation);
      const delay = Math.round(Math.random() * window[to]);
      const what = `trial ${trial}: killed ${delay} ms into a ${Math.round(window[to])} ms apply to the ${to} intent`;
      try {
        await setIntent(a, intent);
        await new Promise((r) => setTimeout(r, delay));
        killed = a.agent;
        await a.agent!.kill();
        const killedAt = performance.now();
        startAgent(a);
        await waitApplied(a, intent, APPLY_TIMEOUT_MS);
        const recoveryMs = Math.round(performance.now() - killedAt);
        expect(await snapshot(), 'owned links and FRR running configuration').toEqual(want[to]);
        expect(await strayFiles(), 'stray files').toEqual([]);
        expect(await leftoverProcesses(), 'processes left by the killed agent').toEqual([]);
        lines.push(`${what}, converged ${recoveryMs} ms after the restart`);
      } catch (e) {
        throw new Error(`${what}: ${(e as Error).message}`, { cause: e });
      }
    }
    console.log(lines.join('\n'));

    // Converged for the agent's own planner too: nothing left to change, kernel or FRR.
    const plan = await agentCommand(a, 'plan');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    // SIGTERM in the middle of an apply: the agent ends at the next step boundary with exit code
    // 0 (within the stop's grace), and the next start completes the apply.
    const intent = (TRIALS % 2 === 0 ? large : small)(++generation);
    const to = TRIALS % 2 === 0 ? 'large' : 'small';
    await setIntent(a, intent);
    await new Promise((r) => setTimeout(r, window[to] / 2));
    const stopAt = performance.now();
    expect(await a.agent!.stop()).toBe(0);
    const stopMs = Math.round(performance.now() - stopAt);
    startAgent(a);
    await waitApplied(a, intent, APPLY_TIMEOUT_MS);
    expect(await snapshot()).toEqual(want[to]);
    console.log(
      `SIGTERM ${Math.round(window[to] / 2)} ms into a ${Math.round(window[to])} ms apply: exited in ${stopMs} ms`,
    );
    expect(await a.agent!.stop()).toBe(0);
  });
});
