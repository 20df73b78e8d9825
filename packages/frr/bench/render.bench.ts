// `npm run bench:frr`: renders an intent with 1000 VRFs and 4000 L2 VNIs (validation, model and
// templates, as renderFrrConfig does it) after a warm-up that compiles the templates once.
// Prints the median against a floor measured in the same run (a JSON round trip of the same
// intent: the least any renderer has to do is read it), the median of each stage, and the first
// validation of the process (what a CLI run or an agent start pays once); the last line is the
// machine-readable result. No assertion: the goal (< 100 ms) is read, not enforced.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { median } from '@fabrik/testkit';
import {
  parseFrrIntent,
  renderFrrConfig,
  renderFrrModel,
  toFrrModel,
  type FrrIntentInput,
} from '../src/index.js';

const VRFS = 1000;
const L2S = 4000;

function intent(): FrrIntentInput {
  const vrfName = (i: number) => `vrf${String(i).padStart(4, '0')}`;
  return {
    asn: 65000,
    routerId: '10.0.0.1',
    vtepIp: '10.0.0.1',
    underlay: {
      neighbors: [
        { address: '192.0.2.2', remoteAs: 'external', password: 'bench-secret', bfd: true },
        { interface: 'eth1', remoteAs: 'external' },
      ],
    },
    vrfs: Array.from({ length: VRFS }, (_, i) => ({
      name: vrfName(i),
      vni: 10_000 + i,
      importVrfs: [vrfName((i + 1) % VRFS)],
      import: [{ cidr: `10.${i % 256}.0.0/16`, le: 24 }],
      export: [{ cidr: `172.16.${i % 256}.0/24` }],
      aggregates: [`172.16.${i % 256}.0/24`],
      redistribute: { connected: true, static: true },
      staticRoutes: [{ prefix: `192.168.${i % 256}.0/24`, blackhole: true }],
    })),
    layer2s: Array.from({ length: L2S }, (_, j) => ({
      vni: 100_000 + j,
      vlan: j + 1,
      vrf: vrfName(j % VRFS),
      ...(j % 2 === 0 ? { routeTarget: `65001:${j}` } : {}),
    })),
  };
}

function time(fn: () => unknown, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/** CPU milliseconds of the process (GC threads included): steadier than wall time on a loaded machine. */
function cpuTime(fn: () => unknown, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

const input = intent();
const firstParseMs = cpuTime(() => parseFrrIntent(input), 1);
let text = '';
for (let i = 0; i < 5; i++) text = renderFrrConfig(input); // warm-up: templates compiled once, JIT warm
const renderMs = time(() => (text = renderFrrConfig(input)), 15);
const floorMs = time(() => JSON.parse(JSON.stringify(input)), 15);
const parsed = parseFrrIntent(input);
const model = toFrrModel(parsed);
const renderCpuMs = cpuTime(() => renderFrrConfig(input), 15);
const stages = {
  validation: cpuTime(() => parseFrrIntent(input), 15),
  model: cpuTime(() => toFrrModel(parsed), 15),
  templates: cpuTime(() => renderFrrModel(model), 15),
};
const lines = text.split('\n').length - 1;

console.log(`load average ${loadavg()[0]?.toFixed(1)} on this machine`);
console.log(
  `render: ${renderMs.toFixed(1)} ms median of 15 (goal < 100 ms), ${lines} lines, ${(text.length / 1024).toFixed(0)} KiB`,
);
console.log(
  `floor (JSON round trip of the intent): ${floorMs.toFixed(2)} ms; render/floor = ${(renderMs / floorMs).toFixed(1)}x`,
);
console.log(
  `CPU time (median of 15): render ${renderCpuMs.toFixed(1)} ms = ${Object.entries(stages)
    .map(([stage, ms]) => `${stage} ${ms.toFixed(1)} ms`)
    .join(' + ')}; the first validation of the process ${firstParseMs.toFixed(1)} ms`,
);
console.log(
  `RESULT frr render_ms=${renderMs.toFixed(1)} ratio=${(renderMs / floorMs).toFixed(1)} cpu_ms=${renderCpuMs.toFixed(1)} first_validation_cpu_ms=${firstParseMs.toFixed(1)} vrfs=${VRFS} l2=${L2S} lines=${lines}`,
);
