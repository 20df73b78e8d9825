// npm run bench:ipam — the cost of an address from fabrik-ipam against the floor measured in the
// same run: Debian's host-local (a file lock on the node, no network), ADD+DEL pairs alternated
// between the two, each executed as a runtime executes an IPAM plugin; then 50 ADDs of fabrik-ipam
// in parallel on one pool (wall time until the last one answered), and the addresses given twice.
// The API server is @fabrik/testkit's, in this process. Last line:
// RESULT ipam add_del_ratio=<x> parallel50_ms=<y> duplicates=<n>
import { execCniPlugin, median, timeBareNodeStart, timeCniCall, uniqueName } from '@fabrik/testkit';
import { join } from 'node:path';
import { createIpamSandbox, createPool, execIpam, ipamConf, podArgs } from '../test/harness.js';

const PAIRS = Number(process.env['BENCH_PAIRS'] ?? 20);
const WARMUP = 2;
const PARALLEL = 50;

const sb = await createIpamSandbox();
try {
  await createPool(sb, 'bench-pairs', {
    ipRanges: [{ cidr: '10.130.0.0/22' }],
    subnetInfo: { gateway: '10.130.0.1', prefixLength: 22 },
  });
  await createPool(sb, 'bench-parallel', {
    ipRanges: [{ cidr: '10.131.0.0/24' }],
    subnetInfo: { gateway: '10.131.0.1', prefixLength: 24 },
  });
  const fabrikConf = ipamConf('bench', { ippools: ['bench-pairs'] });
  const hostLocalConf = {
    cniVersion: '1.0.0',
    name: uniqueName('bh'),
    type: 'host-local',
    ipam: { type: 'host-local', subnet: '10.132.0.0/22', dataDir: join(sb.dir, 'host-local') },
  };
  const attachment = (i: number | string) => ({
    containerId: `bench-${i}`,
    netns: `/run/netns/bench-${i}`,
    ifname: 'net1',
    args: podArgs(i),
  });
  const fabrikPair = async (i: number | string): Promise<number> =>
    (await timeCniCall(() => execIpam(sb, 'ADD', fabrikConf, attachment(i)))) +
    (await timeCniCall(() => execIpam(sb, 'DEL', fabrikConf, attachment(i))));
  const hostLocalPair = async (i: number | string): Promise<number> => {
    const run = (command: string) =>
      execCniPlugin('/usr/lib/cni/host-local', command, hostLocalConf, {
        ...attachment(i),
        path: sb.cniPath,
      });
    return (await timeCniCall(() => run('ADD'))) + (await timeCniCall(() => run('DEL')));
  };
  // The floor of any Node.js plugin: two bare `node -e 0` starts with the plugins' bare environment.
  const nodePair = async (): Promise<number> => (await timeBareNodeStart()) + (await timeBareNodeStart());

  for (let i = 0; i < WARMUP; i++) {
    await fabrikPair(`warm-${i}`);
    await hostLocalPair(`warm-${i}`);
  }
  const fabrik: number[] = [];
  const hostLocal: number[] = [];
  const bareNode: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    fabrik.push(await fabrikPair(i));
    hostLocal.push(await hostLocalPair(i));
    bareNode.push(await nodePair());
  }
  const ratio = median(fabrik) / median(hostLocal);
  console.log(`pairs=${PAIRS} fabrik-ipam add+del_p50=${median(fabrik).toFixed(1)}ms`);
  console.log(`pairs=${PAIRS} host-local  add+del_p50=${median(hostLocal).toFixed(1)}ms`);
  console.log(
    `two bare node starts p50=${median(bareNode).toFixed(1)}ms: the ratio floor of a Node.js plugin here is ${(median(bareNode) / median(hostLocal)).toFixed(2)}`,
  );

  const parallelConf = ipamConf('bench-parallel', { ippools: ['bench-parallel'] });
  const t0 = performance.now();
  const adds = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) => execIpam(sb, 'ADD', parallelConf, attachment(`p${i}`))),
  );
  const parallelMs = performance.now() - t0;
  const given = adds.flatMap((r) =>
    ((r.out?.['ips'] as Array<{ address: string }> | undefined) ?? []).map((ip) => ip.address),
  );
  const failed = adds.filter((r) => r.code !== 0).length;
  const stored = (await sb.pools.get('bench-parallel')).status?.ipAddresses ?? [];
  const duplicates =
    given.length - new Set(given).size + (stored.length - new Set(stored.map((e) => e.ipAddress)).size);
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) => execIpam(sb, 'DEL', parallelConf, attachment(`p${i}`))),
  );
  const delMs = performance.now() - t1;
  const left = (await sb.pools.get('bench-parallel')).status?.ipAddresses?.length ?? 0;
  console.log(
    `parallel ${PARALLEL}: adds ${parallelMs.toFixed(0)}ms (failed ${failed}), dels ${delMs.toFixed(0)}ms, addresses left ${left}`,
  );
  console.log(
    `RESULT ipam add_del_ratio=${ratio.toFixed(2)} parallel50_ms=${parallelMs.toFixed(0)} duplicates=${duplicates}`,
  );
} finally {
  await sb.remove();
}
