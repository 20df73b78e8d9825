// Benchmark of the OVSDB client against ovs-vsctl, on a private OVS (testkit startOvs).
//
//   npm run bench:ovsdb
//
// Adds and deletes PORTS patch ports (each marked external_ids:fabrik-owner, as fabrik does) four ways:
//   fabrik per port   addPort/deletePort, one call after the other, on one connection
//   vsctl per port    one `ovs-vsctl --no-wait add-port` / `del-port` process per port
//   fabrik batch      addPorts/deletePorts: every port in one transaction
//   vsctl batch       one ovs-vsctl process whose single transaction holds every port (the floor)
// Neither side waits for ovs-vswitchd (--no-wait), so both measure database work only. Each way
// runs ROUNDS times; the median is reported. The last line is the machine-readable result.
import { performance } from 'node:perf_hooks';
import {
  addPort,
  addPorts,
  connectOvsdb,
  deletePort,
  deletePorts,
  DEFAULT_OVS_OWNER,
  ensureBridge,
  type PortSpec,
} from '@fabrik/netcore/ovsdb';
import { createTempNetns, median, startOvs, uniqueName } from '@fabrik/testkit';

const PORTS = Number(process.env.PORTS ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

// vswitchd in a namespace of its own, so its devices cannot collide with other OVS instances here.
const switchNs = await createTempNetns('fovsb-');
const ovs = await startOvs({ netns: switchNs.name });
try {
  const client = await connectOvsdb(ovs.endpoint);
  const bridge = uniqueName('bbr');
  await ensureBridge(client, { name: bridge, datapathType: 'netdev' });
  const names = Array.from({ length: PORTS }, (_, i) => `bp${i}`);
  // Patch ports in pairs (bp0<->bp1, ...): real ports for vswitchd without creating kernel devices.
  const peer = (i: number) => names[i ^ 1]!;
  const specs: PortSpec[] = names.map((name, i) => ({
    bridge,
    name,
    type: 'patch',
    peer: peer(i),
    tag: 100,
  }));
  const vsctlAddArgs = (name: string, i: number) => [
    'add-port',
    bridge,
    name,
    'tag=100',
    '--',
    'set',
    'interface',
    name,
    'type=patch',
    `options:peer=${peer(i)}`,
    'external_ids:fabrik-owner=fabrik',
    '--',
    'set',
    'port',
    name,
    'external_ids:fabrik-owner=fabrik',
  ];
  const assertPorts = async (expected: number) => {
    const n = (await ovs.vsctl('list-ports', bridge)).split('\n').filter(Boolean).length;
    if (n !== expected) throw new Error(`expected ${expected} ports on ${bridge}, found ${n}`);
  };

  const ways: Record<string, () => Promise<void>> = {
    'fabrik per port': async () => {
      for (const s of specs) await addPort(client, s);
      await assertPorts(PORTS);
      for (const n of names) await deletePort(client, n, { owner: DEFAULT_OVS_OWNER });
    },
    'vsctl per port': async () => {
      for (const [i, n] of names.entries()) await ovs.vsctl('--no-wait', ...vsctlAddArgs(n, i));
      await assertPorts(PORTS);
      for (const n of names) await ovs.vsctl('--no-wait', 'del-port', bridge, n);
    },
    'fabrik batch': async () => {
      await addPorts(client, specs);
      await assertPorts(PORTS);
      await deletePorts(client, names, { owner: DEFAULT_OVS_OWNER });
    },
    'vsctl batch': async () => {
      await ovs.vsctl('--no-wait', ...names.flatMap((n, i) => ['--', ...vsctlAddArgs(n, i)]));
      await assertPorts(PORTS);
      await ovs.vsctl('--no-wait', ...names.flatMap((n) => ['--', 'del-port', bridge, n]));
    },
  };

  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(ways)) {
      const t0 = performance.now();
      await run();
      times[name]!.push(performance.now() - t0);
      await assertPorts(0);
    }
  }
  await client.close();

  const ms = (k: string) => median(times[k]!);
  console.log(`ovsdb benchmark: add + delete ${PORTS} ports, median of ${ROUNDS} rounds`);
  for (const k of Object.keys(ways)) {
    console.log(
      `  ${k.padEnd(16)} ${ms(k).toFixed(1).padStart(9)} ms  (${((ms(k) / PORTS) * 1000).toFixed(0)} us per port)`,
    );
  }
  const perPort = ms('fabrik per port') / ms('vsctl per port');
  const batch = ms('fabrik batch') / ms('vsctl batch');
  console.log(`RESULT ovsdb per_port_ratio=${perPort.toFixed(3)} batch_ratio=${batch.toFixed(3)}`);
} finally {
  await ovs.stop();
  await switchNs.destroy();
}
