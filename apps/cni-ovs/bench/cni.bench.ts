// npm run bench:cni — the cost of one attachment through fabrik-ovs against the floor measured in
// the same run: Debian's Go `bridge` plugin with host-local. Each round does an ADD+DEL pair on
// each of three paths, in a rotating order so that drift in machine load hits all alike: fabrik-ovs
// handing its verbs to agent-host's CNI socket (the fast path), fabrik-ovs doing all the work itself
// (standalone: the node settings name no socket), and Go bridge. Then 50 parallel ADDs and DELs on
// the fast path, counted as ok when both succeeded and nothing (OVS port, veth, IP lease) is left.
// Last line:
// RESULT cni add_del_ratio=<fast> add_p50_ms=<fast ADD> parallel50_ok=<n> standalone_ratio=<z>
import { join } from 'node:path';
import {
  createTempNetns,
  median,
  startOvs,
  timeBareNodeStart,
  timeCniCall,
  uniqueName,
  type TempNetns,
} from '@fabrik/testkit';
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

/** ADD and ADD+DEL durations of the rounds, in ms. */
type Pair = { add: number; total: number };

const sb = await createPluginSandbox('standalone');
const ovs = await startOvs();
const ovsBridge = uniqueName('brb');
const linuxBridge = uniqueName('cnb');
const namespaces: TempNetns[] = [];
try {
  await ovs.addBridge(ovsBridge);
  // As on a node, the settings files are in place; the default ofport timeout applies. The
  // standalone file names no socket; the fast path's names the running agent's.
  const settings = { ...sandboxSettings(sb, ovs.endpoint), timeouts: {} };
  const standaloneSettings = await writeNodeSettings(sb, settings);
  const agent = await sb.startAgent(ovs.endpoint);
  const fastSettings = await writeNodeSettings(
    sb,
    { ...settings, agentHostSocket: agent.socket },
    join(sb.dir, 'fast-path.yaml'),
  );
  const ipam = (subnet: string) => ({ type: 'host-local', subnet });
  const fabrikConf = (name: string, subnet: string) => ({
    cniVersion: '1.0.0',
    name,
    type: 'fabrik-ovs',
    bridge: ovsBridge,
    vlan: 100,
    ipam: ipam(subnet),
  });
  const paths = [
    { name: 'fast path', conf: fabrikConf(uniqueName('bf'), '10.120.0.0/22'), settings: fastSettings },
    { name: 'standalone', conf: fabrikConf(uniqueName('bs'), '10.122.0.0/22'), settings: standaloneSettings },
    {
      name: 'go bridge',
      conf: {
        cniVersion: '1.0.0',
        name: uniqueName('bg'),
        type: 'bridge',
        bridge: linuxBridge,
        ipam: ipam('10.121.0.0/22'),
      },
      settings: standaloneSettings,
      binary: `${DEBIAN_CNI_DIR}/bridge`,
    },
  ] as const;
  const [fastPath, standalonePath, goPath] = paths;
  // Fast-path calls: when the plugin started and exited (epoch ms), to set against the agent's log.
  const fastTimes: Array<{ command: string; attachment: string; start: number; end: number }> = [];
  const addDel = async (path: (typeof paths)[number], ns: TempNetns): Promise<Pair> => {
    const opts = {
      containerId: uniqueName('b'),
      netns: ns.path,
      ifname: 'net1',
      env: { FABRIK_CNI_CONFIG: path.settings },
      ...('binary' in path ? { binary: path.binary } : {}),
    };
    const timed = async (command: string) => {
      const start = performance.timeOrigin + performance.now();
      const ms = await timeCniCall(() => execPlugin(sb, command, path.conf, opts));
      if (path === fastPath)
        fastTimes.push({ command, attachment: `${opts.containerId}/net1`, start, end: start + ms });
      return ms;
    };
    const add = await timed('ADD');
    const del = await timed('DEL');
    return { add, total: add + del };
  };

  const rounds = new Map<string, Pair[]>(paths.map((p) => [p.name, []]));
  // The floor of any Node.js plugin on this machine right now: two bare `node -e 0` starts.
  const nodeFloor: number[] = [];
  for (let i = 0; i < WARMUP + PAIRS; i++) {
    // Rotate which path goes first, so drift in machine load hits all alike.
    const order = paths.map((_, k) => paths[(i + k) % paths.length]!);
    for (const path of order) {
      const ns = await createTempNetns('fbn-');
      namespaces.push(ns);
      const pair = await addDel(path, ns);
      if (i >= WARMUP) rounds.get(path.name)!.push(pair);
      await ns.destroy();
    }
    if (i >= WARMUP) nodeFloor.push((await timeBareNodeStart()) + (await timeBareNodeStart()));
  }
  const p50 = (path: (typeof paths)[number], what: keyof Pair) =>
    median(rounds.get(path.name)!.map((x) => x[what]));
  for (const path of paths)
    console.log(
      `pairs=${PAIRS} ${path.name.padEnd(10)} add_p50=${p50(path, 'add').toFixed(1)}ms add+del_p50=${p50(path, 'total').toFixed(1)}ms`,
    );
  // Where the fast path's time goes: the agent's own time per verb (from its log), the rest is
  // the plugin process (Node start, reading the settings, the socket round trip).
  const agentMs = (command: string) =>
    median(
      agent.logs
        .filter((l) => l['msg'] === 'cni: answered' && l['command'] === command)
        .slice(WARMUP)
        .map((l) => Number(l['ms'])),
    );
  console.log(`fast path: agent-host's own time p50 ADD=${agentMs('ADD')}ms DEL=${agentMs('DEL')}ms`);
  // The rest of a fast-path call, from the agent's log times (ms resolution): from the plugin's
  // start to the agent reading its request (Node start, the bundle, the settings, the connect), and
  // from the answer to the plugin's exit.
  const around = (command: string, part: 'before' | 'after') =>
    median(
      fastTimes
        .slice(2 * WARMUP)
        .filter((c) => c.command === command)
        .flatMap((c) => {
          const at = (msg: string) =>
            Date.parse(
              String(
                agent.logs.find(
                  (l) => l['msg'] === msg && l['command'] === c.command && l['attachment'] === c.attachment,
                )?.['time'],
              ),
            );
          const t = part === 'before' ? at('cni: received') - c.start : c.end - at('cni: answered');
          return Number.isFinite(t) ? [t] : [];
        }),
    ).toFixed(1);
  console.log(
    `fast path: plugin start to request read p50 ADD=${around('ADD', 'before')}ms DEL=${around('DEL', 'before')}ms; answer to plugin exit p50 ADD=${around('ADD', 'after')}ms DEL=${around('DEL', 'after')}ms`,
  );
  const goTotal = p50(goPath, 'total');
  const floor = median(nodeFloor);
  console.log(
    `two bare node starts p50=${floor.toFixed(1)}ms: the ratio floor of a Node.js plugin here is ${(floor / goTotal).toFixed(2)}`,
  );

  const pods = await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      const ns = await createTempNetns('fbp-');
      namespaces.push(ns);
      return {
        containerId: uniqueName('p'),
        netns: ns.path,
        ifname: 'net1',
        env: { FABRIK_CNI_CONFIG: fastSettings },
      };
    }),
  );
  const t0 = performance.now();
  const adds = await Promise.all(pods.map((p) => execPlugin(sb, 'ADD', fastPath.conf, p)));
  const t1 = performance.now();
  const dels = await Promise.all(pods.map((p) => execPlugin(sb, 'DEL', fastPath.conf, p)));
  const t2 = performance.now();
  const veths = new Set(await hostVeths());
  const portsOut = await ovs.vsctl(
    '--format=json',
    '--columns=name',
    'find',
    'Port',
    `external_ids:fabrik-cni-network=${fastPath.conf.name}`,
  );
  const ports = new Set((JSON.parse(portsOut) as { data: string[][] }).data.map((r) => r[0]));
  const leaseCount = (await leasedIps(sb, fastPath.conf.name)).length;
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
    `parallel ${PARALLEL} (fast path): adds ${(t1 - t0).toFixed(0)}ms, dels ${(t2 - t1).toFixed(0)}ms, leases left ${leaseCount}`,
  );
  // Every call must have been answered by the agent: a fast path that silently fell back would
  // measure the standalone path under the wrong name.
  const answered = agent.logs.filter((l) => l['msg'] === 'cni: answered').length;
  const fastCalls = 2 * (WARMUP + PAIRS) + 2 * PARALLEL;
  if (answered !== fastCalls)
    throw new Error(`agent-host answered ${answered} of the ${fastCalls} fast-path calls`);
  const parallelOk = leaseCount === 0 ? ok : Math.max(0, ok - leaseCount);
  const ratio = (path: (typeof paths)[number]) => (p50(path, 'total') / goTotal).toFixed(2);
  console.log(
    `RESULT cni add_del_ratio=${ratio(fastPath)} add_p50_ms=${p50(fastPath, 'add').toFixed(1)} parallel50_ok=${parallelOk} standalone_ratio=${ratio(standalonePath)}`,
  );
} finally {
  for (const ns of namespaces) await ns.destroy();
  await runCommand('ip', ['link', 'del', linuxBridge]).catch(() => undefined);
  await ovs.stop();
  await sb.remove();
}
