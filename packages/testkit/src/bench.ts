import { performance } from 'node:perf_hooks';
import { runCommand } from '@fabrik/netcore';

// Helpers of the benchmark scripts (`npm run bench:*`): one median, one way to time a CNI call, and
// the floor of a Node.js plugin.

/** The median of the samples (the mean of the two middle ones for an even count); NaN for none. */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

/** Milliseconds one CNI plugin call took; throws with the plugin's output when it failed (a failed call is no sample). */
export async function timeCniCall(call: () => Promise<{ code: number; out?: unknown }>): Promise<number> {
  const t0 = performance.now();
  const result = await call();
  if (result.code !== 0) throw new Error(`plugin failed: ${JSON.stringify(result.out)}`);
  return performance.now() - t0;
}

/**
 * Milliseconds of one bare `node -e 0` start with the bare environment CNI plugins get (PATH only:
 * variables such as NODE_EXTRA_CA_CERTS in this process's environment would add tens of
 * milliseconds to every start): the floor of any Node.js plugin on this machine right now.
 */
export async function timeBareNodeStart(): Promise<number> {
  const t0 = performance.now();
  await runCommand(process.execPath, ['-e', '0'], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
  return performance.now() - t0;
}
