// Measuring probes for the single-NIC tests: a ping that runs while the agent works (its replies
// tell how long the path was gone), and `ip monitor route` (when the default route was missing).
import { startCommand } from '@fabrik/netcore';

export interface PingProbe {
  /** Stops the ping and returns what it saw. */
  stop(): Promise<PingResult>;
}

export interface PingResult {
  readonly sent: number;
  readonly received: number;
  /** The longest run of lost echoes between two answered ones, in ms (count x interval). */
  readonly longestGapMs: number;
  /** Sequence numbers answered (duplicates once). */
  readonly answered: ReadonlySet<number>;
}

/** `ping -i INTERVAL TARGET` inside `netns` until stopped. */
export function startPing(netns: string, target: string, intervalMs = 20): PingProbe {
  let out = '';
  const ping = startCommand(
    'ip',
    ['netns', 'exec', netns, 'ping', '-n', '-i', String(intervalMs / 1000), target],
    {
      onOutput: (text, stream) => {
        if (stream === 'stdout') out += text;
      },
    },
  );
  return {
    async stop() {
      ping.kill('SIGINT');
      await ping.exited;
      const answered = new Set<number>();
      for (const m of out.matchAll(/icmp_seq=(\d+)/g)) answered.add(Number(m[1]));
      const sent = Number(/(\d+) packets transmitted/.exec(out)?.[1] ?? 0);
      const seqs = [...answered].sort((a, b) => a - b);
      let longest = 0;
      for (let i = 1; i < seqs.length; i++) longest = Math.max(longest, seqs[i]! - seqs[i - 1]! - 1);
      return { sent, received: answered.size, longestGapMs: longest * intervalMs, answered };
    },
  };
}

export interface RouteMonitor {
  /** Stops; the longest time without an IPv4 default route in the main table, in ms (0: never without). */
  stop(): Promise<{ longestWithoutDefaultMs: number; events: string[] }>;
}

/**
 * `ip -4 monitor route` inside `netns`, tracking the IPv4 default routes of the main table by
 * their metric (the kernel's key there). A `route replace` shows as one new route and no deletion.
 */
export function startRouteMonitor(netns: string, initialMetrics: readonly number[] = [0]): RouteMonitor {
  const events: string[] = [];
  const present = new Set(initialMetrics);
  let lostAt: number | undefined;
  let longest = 0;
  let partial = '';
  const onChunk = (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^(Deleted )?default .*?(?: metric (\d+))?\s*$/.exec(line);
      if (!m || / table /.test(line)) continue;
      events.push(line);
      const metric = Number(/ metric (\d+)/.exec(line)?.[1] ?? 0);
      if (m[1]) {
        present.delete(metric);
        if (present.size === 0) lostAt = performance.now();
      } else {
        if (present.size === 0 && lostAt !== undefined)
          longest = Math.max(longest, performance.now() - lostAt);
        present.add(metric);
      }
    }
  };
  const monitor = startCommand('ip', ['netns', 'exec', netns, 'ip', '-4', 'monitor', 'route'], {
    onOutput: (text, stream) => {
      if (stream === 'stdout') onChunk(text);
    },
  });
  return {
    async stop() {
      monitor.kill('SIGTERM');
      await monitor.exited;
      if (present.size === 0 && lostAt !== undefined) longest = Math.max(longest, performance.now() - lostAt);
      return { longestWithoutDefaultMs: Math.round(longest), events };
    },
  };
}
