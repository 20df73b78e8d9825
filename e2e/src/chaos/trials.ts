// What the reliability suite measures: trials, each ending converged (the nodes hold exactly what
// the objects explain, within its time bound) or not, with what leaked and how long recovery took.

export interface Trial {
  /** The suite it belongs to: `kill agent-netns`, `restart ovsdb-server`, `churn`, `bad input`. */
  readonly suite: string;
  readonly name: string;
  readonly converged: boolean;
  /** Findings of the last audit that no object explains. */
  readonly leaked: number;
  /** From the fault (kill, restart) until the nodes matched the objects again. */
  readonly recoverMs?: number;
  readonly detail?: string;
}

export interface TrialSummary {
  readonly trials: number;
  readonly converged: number;
  /** Trials that ended with anything leaked. */
  readonly leaked: number;
  readonly recoverP95Ms: number;
}

/** The nearest-rank percentile `p` (0-100) of `values`; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function summarize(trials: readonly Trial[]): TrialSummary {
  return {
    trials: trials.length,
    converged: trials.filter((t) => t.converged).length,
    leaked: trials.filter((t) => t.leaked > 0).length,
    recoverP95Ms: Math.round(
      percentile(
        trials.flatMap((t) => (t.recoverMs === undefined ? [] : [t.recoverMs])),
        95,
      ),
    ),
  };
}

/** The suite's last line. */
export const resultLine = (s: TrialSummary): string =>
  `RESULT chaos trials=${s.trials} converged=${s.converged} leaked=${s.leaked} recover_p95_ms=${s.recoverP95Ms}`;

/** A small deterministic generator (mulberry32), so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
