// A readable, timed report of a lab scenario: setup steps and checks, one line each, ending with
// `LAB OK <n> checks passed` or `LAB FAILED <what>`.

export interface ReportLine {
  readonly kind: 'step' | 'check';
  readonly name: string;
  readonly ok: boolean;
  readonly ms: number;
  readonly detail?: string;
}

const DETAIL_INDENT = ' '.repeat(24);

/** Cumulative CPU time so far by group (ms): the report prints each step's share. */
export type CpuClock = () => Promise<Readonly<Record<string, number>>>;

export class LabReport {
  readonly lines: ReportLine[] = [];
  private readonly started = performance.now();
  private cpuBefore: Promise<Readonly<Record<string, number>>> | undefined;

  constructor(
    private readonly print: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
    /** When given, every step and check gets a line with the CPU time each group used during it. */
    private readonly cpuClock?: CpuClock,
  ) {}

  /** CPU used by group since the last call (the first call starts counting). */
  private async cpuSince(): Promise<string | undefined> {
    if (!this.cpuClock) return undefined;
    const before = await this.cpuBefore;
    const now = this.cpuClock();
    this.cpuBefore = now;
    const after = await now;
    if (!before) return undefined;
    const parts = Object.entries(after).map(([group, ms]) => [group, ms - (before[group] ?? 0)] as const);
    const total = parts.reduce((n, [, ms]) => n + ms, 0);
    return `cpu ${(total / 1000).toFixed(1)} s: ${parts
      .filter(([, ms]) => ms >= 50)
      .map(([group, ms]) => `${group} ${(ms / 1000).toFixed(1)}`)
      .join(', ')}`;
  }

  /** Starts counting CPU for the next step (call once before the first). */
  async startCpu(): Promise<void> {
    await this.cpuSince();
  }

  /**
   * A setup step; a failing step stops the scenario (there is nothing left to check). A step
   * that resolves with a string has it printed as its detail.
   */
  async step<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const value = await fn();
      const ms = performance.now() - t0;
      const detail = joinDetail(typeof value === 'string' ? value : undefined, await this.cpuSince());
      this.record({ kind: 'step', name, ok: true, ms, ...detail });
      return value;
    } catch (e) {
      const ms = performance.now() - t0;
      this.record({ kind: 'step', name, ok: false, ms, ...joinDetail(describe(e), await this.cpuSince()) });
      throw new StepFailedError(name, { cause: e });
    }
  }

  /** A check; failures are recorded and the scenario goes on, so one run shows every failure. */
  async check(name: string, fn: () => Promise<string | void>): Promise<boolean> {
    const t0 = performance.now();
    try {
      const detail = await fn();
      const ms = performance.now() - t0;
      this.record({
        kind: 'check',
        name,
        ok: true,
        ms,
        ...joinDetail(detail || undefined, await this.cpuSince()),
      });
      return true;
    } catch (e) {
      const ms = performance.now() - t0;
      this.record({ kind: 'check', name, ok: false, ms, ...joinDetail(describe(e), await this.cpuSince()) });
      return false;
    }
  }

  /** Detail lines under the last step or check (what a step made, for the reader). */
  note(text: string): void {
    for (const l of text.split('\n')) this.print(`${DETAIL_INDENT}${l}`);
  }

  get failures(): ReportLine[] {
    return this.lines.filter((l) => !l.ok);
  }

  get checksPassed(): number {
    return this.lines.filter((l) => l.kind === 'check' && l.ok).length;
  }

  /** Prints the verdict line and returns the process exit code. */
  finish(): number {
    const total = ((performance.now() - this.started) / 1000).toFixed(1);
    const failed = this.failures;
    if (failed.length === 0 && this.checksPassed > 0) {
      this.print(`\nLAB OK ${this.checksPassed} checks passed (${total} s)`);
      return 0;
    }
    const what = failed.length ? failed.map((l) => l.name).join('; ') : 'no checks ran';
    this.print(`\nLAB FAILED ${what}`);
    return 1;
  }

  private record(line: ReportLine): void {
    this.lines.push(line);
    const mark = line.ok ? 'ok  ' : 'FAIL';
    const ms = `${Math.round(line.ms)} ms`.padStart(8);
    this.print(`${mark} ${line.kind === 'step' ? 'step ' : 'check'} ${ms}  ${line.name}`);
    if (line.detail) this.note(line.detail);
  }
}

export class StepFailedError extends Error {
  readonly code = 'STEP_FAILED' as const;
  constructor(
    readonly step: string,
    options: { cause: unknown },
  ) {
    super(`step failed: ${step}`, options);
    this.name = 'StepFailedError';
  }
}

function joinDetail(...parts: (string | undefined)[]): { detail?: string } {
  const detail = parts.filter((p) => p).join('\n');
  return detail ? { detail } : {};
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
