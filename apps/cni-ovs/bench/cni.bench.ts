// npm run bench:cni — the cost of one attachment through fabrik-ovs against the floor measured in
// the same run: Debian's Go `bridge` plugin with host-local, ADD+DEL pairs alternated between the
// two; then 50 parallel ADDs and DELs of fabrik-ovs, counted as ok when both succeeded and nothing
// (OVS port, veth, IP lease) is left. Last line:
// RESULT cni add_del_ratio=<x> add_p50_ms=<y> parallel50_ok=<n> standalone_ratio=<z>
// where standalone_ratio is the plugin doing all the work itself; add_del_ratio is the fast path
// through agent-host once that exists, and the standalone path until then.
import { createTempNetns, startOvs, uniqueName, type TempNetns } from '@fabrik/testkit';
import { runCommand } from '@fabrik/netcore';
import {
  createPluginSandbox,
  execPlugin,
  hostVeths,
  leasedIps,
  sandboxSettings,
  writeNodeSettings,
  DEBIAN_CNI_DIR,
} from '../test/harness.js';
import { hostVethName } from '@fabrik/ovs-attachment';

const PAIRS = Number(process.env['BENCH_PAIRS'] ?? 30);
const WARMUP = 3;
const PARALLEL = 50;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

async function timed(fn: () => Promise<{ code: number; out?: unknown }>): Promise<number> {
  const t0 = performance.now();
  const r = await fn();
  if (r.code !== 0) throw new Error(`plugin failed: ${JSON.stringify(r.out)}`);
  return performance.now() - t0;
}

const sb = await createPluginSandbox();
const ovs = await startOvs();
const ovsBridge = uniqueName('brb');
const linuxBridge = uniqueName('cnb');
const namespaces: TempNetns[] = [];
try {
  await ovs.addBridge(ovsBridge);
  // As on a node, the settings file is in place; the default ofport timeout applies.
  await writeNodeSettings(sb, { ...sandboxSettings(sb, ovs.endpoint), timeouts: {} });
  const fabrikConf = {
    cniVersion: '1.0.0',
    name: uniqueName('bf'),
    type: 'fabrik-ovs',
    bridge: ovsBridge,
    vlan: 100,
    ipam: { type: 'host-local', subnet: '10.120.0.0/22', dataDir: sb.ipamDataDir },
  };
  const goConf = {
    cniVersion: '1.0.0',
    name: uniqueName('bg'),
    type: 'bridge',
    bridge: linuxBridge,
    ipam: { type: 'host-local', subnet: '10.121.0.0/22', dataDir: sb.ipamDataDir },
  };
  const pluginEnv = { CNI_PATH: `${sb.binDir}:${DEBIAN_CNI_DIR}` };
  const addDel = async (
    conf: Record<string, unknown>,
    ns: TempNetns,
  ): Promise<{ add: number; total: number }> => {
    const binary = conf['type'] === 'bridge' ? `${DEBIAN_CNI_DIR}/bridge` : sb.plugin;
    const opts = { containerId: uniqueName('b'), netns: ns.path, ifname: 'net1', env: pluginEnv, binary };
    const add = await timed(() => execPlugin(sb, 'ADD', conf, opts));
    const del = await timed(() => execPlugin(sb, 'DEL', conf, opts));
    return { add, total: add + del };
  };

  const fabrik: Array<{ add: number; total: number }> = [];
  const go: Array<{ add: number; total: number }> = [];
  // The floor of any Node.js plugin on this machine right now: two bare `node -e 0` starts, with
  // the same bare environment the plugins get (variables such as NODE_EXTRA_CA_CERTS in this
  // process's environment would add tens of milliseconds to every Node start).
  const nodeFloor: number[] = [];
  const nodeStart = async () => {
    const t0 = performance.now();
    await runCommand(process.execPath, ['-e', '0'], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    return performance.now() - t0;
  };
  for (let i = 0; i < WARMUP + PAIRS; i++) {
    const nsF = await createTempNetns('fbn-');
    const nsG = await createTempNetns('fbn-');
    namespaces.push(nsF, nsG);
    // Alternate which plugin goes first, so drift in machine load hits both alike.
    let f: { add: number; total: number };
    let g: { add: number; total: number };
    if (i % 2 === 0) {
      f = await addDel(fabrikConf, nsF);
      g = await addDel(goConf, nsG);
    } else {
      g = await addDel(goConf, nsG);
      f = await addDel(fabrikConf, nsF);
    }
    if (i >= WARMUP) {
      fabrik.push(f);
      go.push(g);
      nodeFloor.push((await nodeStart()) + (await nodeStart()));
    }
    await nsF.destroy();
    await nsG.destroy();
  }
  const fTotal = median(fabrik.map((x) => x.total));
  const gTotal = median(go.map((x) => x.total));
  const fAdd = median(fabrik.map((x) => x.add));
  console.log(`pairs=${PAIRS} fabrik-ovs add_p50=${fAdd.toFixed(1)}ms add+del_p50=${fTotal.toFixed(1)}ms`);
  console.log(
    `pairs=${PAIRS} go-bridge  add_p50=${median(go.map((x) => x.add)).toFixed(1)}ms add+del_p50=${gTotal.toFixed(1)}ms`,
  );
  const floor = median(nodeFloor);
  console.log(
    `two bare node starts p50=${floor.toFixed(1)}ms: the ratio floor of a Node.js plugin here is ${(floor / gTotal).toFixed(2)}`,
  );

  const pods = await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      const ns = await createTempNetns('fbp-');
      namespaces.push(ns);
      return { containerId: uniqueName('p'), netns: ns.path, ifname: 'net1', env: pluginEnv };
    }),
  );
  const t0 = performance.now();
  const adds = await Promise.all(pods.map((p) => execPlugin(sb, 'ADD', fabrikConf, p)));
  const t1 = performance.now();
  const dels = await Promise.all(pods.map((p) => execPlugin(sb, 'DEL', fabrikConf, p)));
  const t2 = performance.now();
  const veths = new Set(await hostVeths());
  const portsOut = await ovs.vsctl(
    '--format=json',
    '--columns=name',
    'find',
    'Port',
    `external_ids:fabrik-cni-network=${fabrikConf.name}`,
  );
  const ports = new Set((JSON.parse(portsOut) as { data: string[][] }).data.map((r) => r[0]));
  const leaseCount = (await leasedIps(sb, fabrikConf.name)).length;
  const ok = pods.filter(
    (p, i) =>
      adds[i]?.code === 0 &&
      dels[i]?.code === 0 &&
      !veths.has(hostVethName(p.containerId, 'net1')) &&
      !ports.has(hostVethName(p.containerId, 'net1')),
  ).length;
  const failures = [...adds, ...dels].filter((r) => r.code !== 0).map((r) => JSON.stringify(r.out));
  if (failures.length > 0) console.log(`parallel failures: ${failures.slice(0, 3).join(' | ')}`);
  console.log(
    `parallel ${PARALLEL}: adds ${(t1 - t0).toFixed(0)}ms, dels ${(t2 - t1).toFixed(0)}ms, leases left ${leaseCount}`,
  );
  const parallelOk = leaseCount === 0 ? ok : Math.max(0, ok - leaseCount);
  const standalone = (fTotal / gTotal).toFixed(2);
  console.log(
    `RESULT cni add_del_ratio=${standalone} add_p50_ms=${fAdd.toFixed(1)} parallel50_ok=${parallelOk} standalone_ratio=${standalone}`,
  );
} finally {
  for (const ns of namespaces) await ns.destroy();
  await runCommand('ip', ['link', 'del', linuxBridge]).catch(() => undefined);
  await ovs.stop();
  await sb.remove();
}
