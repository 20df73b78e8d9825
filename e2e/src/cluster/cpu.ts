import { readFile, readdir } from 'node:fs/promises';

// Where the lab kernel's CPU went. The lab kernel is one host thread, so every process inside
// competes for it: the report ends with the processes that used the most, each with what its
// exited children used (kubectl, cnitool, vtysh, frr-reload.py are short-lived: they show up
// in their parent's children's time).

/** Clock ticks per second of /proc/PID/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface ProcessCpu {
  readonly pid: number;
  readonly command: string;
  /** Its own user + system time, ms. */
  readonly selfMs: number;
  /** Its waited-for children's user + system time, ms. */
  readonly childrenMs: number;
}

/** Every live process's CPU time (pure parsing aside: reads /proc). */
export async function processCpu(): Promise<ProcessCpu[]> {
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d));
  const rows = await Promise.all(
    pids.map(async (pid) => {
      try {
        const [stat, cmdline] = await Promise.all([
          readFile(`/proc/${pid}/stat`, 'utf8'),
          readFile(`/proc/${pid}/cmdline`, 'utf8'),
        ]);
        return parseStat(Number(pid), stat, cmdline);
      } catch {
        return undefined; // gone meanwhile
      }
    }),
  );
  return rows.filter((r): r is ProcessCpu => r !== undefined);
}

/** One /proc/PID/stat line (fields after the parenthesised comm: utime is the 14th field). */
export function parseStat(pid: number, stat: string, cmdline: string): ProcessCpu {
  const afterComm = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // afterComm[0] is field 3 (state): field N is afterComm[N - 3].
  const field = (n: number) => Number(afterComm[n - 3]);
  const ms = (ticks: number) => Math.round((ticks * 1000) / TICKS_PER_SECOND);
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const command = cmdline.split('\0').filter(Boolean).join(' ') || `[${comm}]`;
  return { pid, command, selfMs: ms(field(14) + field(15)), childrenMs: ms(field(16) + field(17)) };
}

/** The `top` processes by own + children's CPU, one line each. */
export function formatCpu(rows: readonly ProcessCpu[], top = 15): string {
  return [...rows]
    .sort((a, b) => b.selfMs + b.childrenMs - (a.selfMs + a.childrenMs))
    .slice(0, top)
    .map(
      (r) =>
        `${(r.selfMs / 1000).toFixed(1).padStart(6)} s self ${(r.childrenMs / 1000).toFixed(1).padStart(6)} s children  ${r.command.slice(0, 110)}`,
    )
    .join('\n');
}

/** Daemons a lab node runs beside the agents. */
const DAEMONS = /^(?:\S*\/)?(?:zebra|bgpd|staticd|mgmtd|watchfrr|ovs-vswitchd|ovsdb-server)\b/;

/**
 * Cumulative CPU time (ms) of the lab by group: this process (the orchestrator, with the API
 * server), the processes it ran and waited for (kubectl, cnitool and the plugins, vtysh, ip, the
 * agents' one-shot commands), each kind of running agent with what it ran (fabrik-ipam under
 * agent-host on the CNI fast path, frr-reload.py and vtysh under agent-netns), FRR and OVS, the
 * rest (processes still running, not yet waited for).
 */
export async function labCpuByGroup(): Promise<Record<string, number>> {
  const groups = {
    orchestrator: 0,
    'its processes': 0,
    'agent-host': 0,
    'agent-netns': 0,
    'FRR+OVS': 0,
    other: 0,
  };
  for (const p of await processCpu()) {
    if (p.pid === process.pid) {
      groups.orchestrator += p.selfMs;
      groups['its processes'] += p.childrenMs;
    } else if (p.command.includes('/bin/fabrik-agent-host')) groups['agent-host'] += p.selfMs + p.childrenMs;
    else if (p.command.includes('/bin/fabrik-agent-netns')) groups['agent-netns'] += p.selfMs + p.childrenMs;
    else if (DAEMONS.test(p.command)) groups['FRR+OVS'] += p.selfMs + p.childrenMs;
    else groups.other += p.selfMs;
  }
  return groups;
}
